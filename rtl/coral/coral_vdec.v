// coral_vdec: decode of the vector instructions coral_vec implements (SEW = 32; `subw`
// and `anysew` say which run at SEW 8 and 16 too): unit-stride and strided vle32/vse32
// (maskable), and vle8/16, vse8/16, vlse8/16, vsse8/16 at SEW = EEW; the indexed
// vluxei/vloxei/vsuxei/vsoxei<8,16,32>.v (SEW-bit data, EEW-bit offsets); the whole-register
// vl<n>re<8,16,32>.v and vs<n>r.v (n = 1, 2, 4, 8) and vmv<n>r.v; vlm.v, vsm.v; vfclass.v, vfrsqrt7.v, vfrec7.v;
// the binary32 element-wise operations
// (add, sub, rsub, mul, min, max, sign injection, the eight fused multiply-adds; .vv and
// .vf), vfdiv, vfrdiv and vfsqrt.v (the lanes' dividers), the single-width conversions
// vfcvt.{x,xu}.f.v (also .rtz) and vfcvt.f.{x,xu}.v; the integer vadd, vsub, vrsub,
// vand, vor, vxor, vsll, vsrl, vsra, vmin(u), vmax(u) (.vv, .vx, .vi as they exist);
// vmul, vmulh, vmulhu, vmulhsu, the multiply-adds vmacc, vnmsac, vmadd, vnmsub and the
// divides vdiv, vdivu, vrem, vremu (.vv, .vx); vmv.v.v/.v.x/.v.i, vfmv.v.f, vmerge.v{v,x,i}m,
// vfmerge.vfm; the element-0 moves vfmv.f.s, vmv.x.s, vfmv.s.f, vmv.s.x; the reductions
// vfredusum, vfredosum, vfredmax, vfredmin, vredsum, vredand, vredor, vredxor, vredmin(u),
// vredmax(u); the compares vmfeq, vmfne, vmflt, vmfle, vmfgt, vmfge, vmseq, vmsne,
// vmslt(u), vmsle(u), vmsgt(u) into a mask register; the slides vslideup/vslidedown (.vx,
// .vi), vslide1up/vslide1down.vx, vfslide1up/down.vf; the register gathers
// vrgather.vv/vx/vi, vrgatherei16.vv and vcompress.vm (an element per cycle); the mask logic
// vm{and,nand,andn,or,nor,orn,xor,xnor}.mm; vid.v and viota.m (element values made in S1),
// vcpop.m and vfirst.m (to x[rd]), vmsbf/vmsif/vmsof.m (VLEN mask bits in one S2 cycle);
// the widening vwadd(u), vwsub(u) (.vv, .vx, .wv, .wx), vwmul(u/su), vwmacc(u/su/us) at SEW 8
// and 16 (narrow sources extended to 16 or 32 bits), the narrowing vnsrl/vnsra (.wv, .wx, .wi)
// at SEW 8 and 16, and vzext/vsext.vf2 (SEW 16, 32) and .vf4 (SEW 32); the fixed-point vsadd(u),
// vssub(u), vaadd(u), vasub(u), vsmul, vssrl, vssra (SEW 8, 16, 32) and vnclip(u) (as the narrowing);
// vadc, vsbc, vmadc, vmsbc (SEW 8, 16, 32; .v{v,x,i}m take the carry / borrow in from v0).
// The encodings are isa/coral's (funct6, funct3, and the vs1 field's selector of VMUNARY0
// and VWXUNARY0). Combinational; used at dispatch (checks) and in the vector unit.
module coral_vdec (
    input  wire [31:0] ir,
    output wire        legal,     // one of the above (vsetvl* are the core's)
    output wire        ld,        // vector load
    output wire        st,        // vector store
    output wire [1:0]  meew,      // ... its element width: 0 8, 1 16, 2 32 bits (runs at SEW = EEW)
    output wire        whole,     // ... a whole-register access of nf + 1 registers (ir[31:29] = nf; vtype ignored)
    output wire        mskm,      // ... vlm.v / vsm.v (any SEW)
    output wire        wmv,       // vmv<n>r.v: n = the vs1 field + 1 registers of vs2 to vd (vtype ignored)
    output wire        strided,   // ... strided (else unit-stride)
    output wire        ff,        // ... a fault-only-first unit-stride load (lumop 10000; segments too)
    output wire        seg,       // ... a segment access of nf + 1 fields (ir[31:29] = nf), any addressing mode
    output wire        indexed,   // ... indexed (ordered or not: one element a cycle either way); meew is
                                  // the offsets' width, the data's is SEW
    output wire        lanes,     // element-wise through the lanes (writes vd)
    output wire        fp,        // a floating-point instruction (OPFVV / OPFVF)
    output wire        to_scalar, // vfmv.f.s, vmv.x.s: element 0 of vs2 to f/x[rd]
    output wire        from_scalar, // vfmv.s.f, vmv.s.x: the scalar to element 0 of vd
    output wire        red,       // a reduction: vs2 (group) and vs1[0] into vd[0] (lop: add, min, max)
    output wire        ord,       // ... vfredosum: one element per cycle, in order
    output wire        wred,      // ... vwredsum(u) (SEW 8, 16): pairs of vs2's elements summed at 2 SEW, then as vredsum at 2 SEW
    output wire        div,       // through the lanes' fp or integer dividers (a beat per 8 cycles)
    output wire        mk,        // a compare: one mask bit per element into the single register vd
    output wire        carry,     // vadc, vsbc (lop LO_IADD, LO_ISUB) and vmadc, vmsbc (LO_ICMP: the carry /
                                  // borrow out is the mask bit); vm = 0: each element's v0 bit is the carry / borrow in
    output wire        mlog,      // mask logic: vd = vs2 op vs1, VLEN bits in one cycle
    output wire        slide,     // a slide: vs2's group moved by an offset (lop LO_MOVE)
    output wire        slide_up,  // ... towards higher elements
    output wire        slide_one, // ... vslide1*: by 1, the scalar in the element left free
    output wire        merge,     // vmerge/vfmerge: v0 picks the second operand, else vs2 (every element < vl written)
    output wire        vid,       // vid.v: vd[i] = i
    output wire        iota,      // viota.m: vd[i] = active set bits of the single register vs2 below i
    output wire        mq,        // vdiv, vdivu, vrem, vremu (.vv, .vx; the lanes' integer dividers); vcpop.m / vfirst.m (to_scalar): a count or an index of vs2's mask bits
    output wire        msf,       // vmsbf/vmsif/vmsof.m: mask bits of vd from vs2's first active set bit
    output wire        gat,       // vrgather.vv/vx/vi, vrgatherei16.vv: one element per cycle, vd[i] = vs2[index]
    output wire        ei16,      // ... vrgatherei16.vv: 16-bit indices (vs1's group half as long)
    output wire        comp,      // vcompress.vm: one element of vs2 per cycle, packed into vd
    output wire        wop,       // widening: vd (2*SEW) from vs2 (SEW, or 2*SEW: wsrc) and vs1/x[rs1] (SEW)
    output wire        wsrc,      // ... .wv / .wx: vs2 is 2*SEW wide
    output wire        nar,       // vnsrl/vnsra: vd (SEW) from vs2 (2*SEW), shifted by vs1/x[rs1]/uimm5
    output wire        ext,       // vzext/vsext.vf2/vf4: vd (SEW) from vs2 (SEW/2 or SEW/4)
    output wire        ext4,      // ... .vf4
    output wire        sa,        // the narrow vs2 (wop, ext) sign-extended
    output wire        subw,      // runs at SEW 8 and 16 too, 2 or 4 elements a lane: vadd, vsub, vrsub,
                                  // vand, vor, vxor, vsll, vsrl, vsra, vmin(u), vmax(u), vmv.v.*,
                                  // vmerge.v*m, the integer compares, vmul, vmulh(u/su) and the
                                  // multiply-adds, vmv.s.x, vmv.x.s, the integer reductions, vid, viota
    output wire        anysew,    // does not depend on SEW (mask bits: vm*.mm, vcpop, vfirst, vms*f)
    output wire        sb,        // the narrow vs1 / x[rs1] (wop) sign-extended
    output reg  [4:0]  lop,       // lane operation (LO_*)
    output reg  [1:0]  bsel,      // second operand: 0 vs1, 1 f[rs1], 2 x[rs1], 3 simm5
    output wire        reads_vs1, // vs1 is a register group operand
    output wire        reads_vs2, // vs2 is a register group operand
    output wire        swap,      // vfrsub, vfrdiv, vrsub: the operands exchanged
    output wire        neg_prod,
    output wire        neg_add,
    output wire        uses_vd    // vfmadd family: vd is a product operand, vs2 the addend
);
    localparam [4:0] LO_ADD = 5'd0, LO_MUL = 5'd1, LO_FMA = 5'd2, LO_MIN = 5'd3, LO_MAX = 5'd4,
                     LO_SGNJ = 5'd5, LO_SGNJN = 5'd6, LO_SGNJX = 5'd7, LO_MOVE = 5'd8,
                     LO_DIV = 5'd9, LO_SQRT = 5'd10, LO_CVT = 5'd11, LO_IADD = 5'd12, LO_ISUB = 5'd13,
                     LO_IAND = 5'd14, LO_IOR = 5'd15, LO_IXOR = 5'd16, LO_ISLL = 5'd17,
                     LO_ISRL = 5'd18, LO_ISRA = 5'd19, LO_IMIN = 5'd20, LO_IMAX = 5'd21,
                     LO_FCMP = 5'd22, LO_ICMP = 5'd23,     // compares: the condition is f6[2:0]
                     LO_IMUL = 5'd24, LO_MLOG = 5'd25,     // ... and so are vmul*'s and mask logic's
                     LO_MERGE = 5'd26, LO_MSF = 5'd27,     // vmsbf/sif/sof: the vs1 field's low bits
                     LO_IMAC = 5'd28,                      // vmadd, vnmsub, vmacc, vnmsac: f6[2:1] too
                     LO_IDIV = 5'd29,                      // vdivu, vdiv, vremu, vrem: f6[1:0] too
                     LO_CLASS = 5'd30,                     // vfclass.v, vfrsqrt7.v, vfrec7.v
                     LO_FXP = 5'd31;                       // fixed point: the kind from funct6 (coral_vec)
    `include "coral_isa.vh"
    // Inlined into its users, as Verilator did on its own before the header's constants
    // (which its size estimate counts) were included: one model, optimised as a whole.
    /* verilator inline_module */
    wire [6:0] op = ir[6:0];
    wire [2:0] f3 = ir[14:12];
    wire [5:0] f6 = ir[31:26];
    wire       vm = ir[25];
    wire [4:0] vs2 = ir[24:20], vs1 = ir[19:15];

    // memory: 8-, 16- or 32-bit elements, mew = 0, nf + 1 fields, unit-stride (lumop 0), strided or indexed
    wire memw = f3 == VW_E32 || f3 == VW_E16 || f3 == VW_E8;
    // whole-register vl<n>re<eew>.v / vs<n>r.v: lumop 01000, unmasked, nf + 1 = 1, 2, 4 or 8 registers
    assign whole = memw && ir[28:26] == {1'b0, MOP_UNIT} && vs2 == LUMOP_WHOLE && vm &&
                   (ir[31:29] == NF_WHOLE1 || ir[31:29] == NF_WHOLE2 || ir[31:29] == NF_WHOLE4 || ir[31:29] == NF_WHOLE8) &&
                   (op == OPC_LOAD_FP || (op == OPC_STORE_FP && f3 == VW_E8));
    // vlm.v / vsm.v: lumop 01011, 8-bit, unmasked: ceil(vl / 8) bytes of a mask register
    assign mskm = f3 == VW_E8 && ir[31:25] == {4'b0000, MOP_UNIT, 1'b1} && vs2 == LUMOP_MASK &&
                  (op == OPC_LOAD_FP || op == OPC_STORE_FP);
    wire mem32 = (memw && !ir[28] && (ir[27:26] != MOP_UNIT || vs2 == LUMOP_UNIT || (op == OPC_LOAD_FP && vs2 == LUMOP_FF))) ||
                 whole || mskm;
    assign ld = op == OPC_LOAD_FP && mem32;
    assign st = op == OPC_STORE_FP && mem32;
    assign meew = f3 == VW_E32 ? 2'd2 : f3 == VW_E16 ? 2'd1 : 2'd0;
    assign strided = (ld || st) && ir[27:26] == MOP_STRIDED;
    assign indexed = (ld || st) && ir[26] && !whole && !mskm;
    assign ff = ld && ir[27:26] == MOP_UNIT && vs2 == LUMOP_FF;
    assign seg = (ld || st) && ir[31:29] != 3'd0 && !whole && !mskm;

    wire opv = op == OPC_OP_V;
    wire opf = opv && (f3 == OPFVV || f3 == OPFVF);
    wire opi = opv && (f3 == OPIVV || f3 == OPIVI || f3 == OPIVX);
    wire opm = opv && (f3 == OPMVV || f3 == OPMVX);
    wire vf = f3 == OPFVF;
    assign fp = opf;
    wire is_fma = opf && f6[5:3] == F6_VFMADD[5:3];      // vf(n)madd, vf(n)msub, vf(n)macc, vf(n)msac
    wire mv_v = f6 == F6_VMV_V && vm && vs2 == SEL_VMV_V_V;
    // VFUNARY0's single-width conversions: vs1 0 xu.f, 1 x.f, 2 f.xu, 3 f.x, 6 rtz.xu.f, 7 rtz.x.f
    wire cvt = opf && !vf && f6 == F6_VFCVT_X_F && (vs1[4:2] == SEL_VFCVT_XU_F_V[4:2] || vs1[4:1] == SEL_VFCVT_RTZ_XU_F_V[4:1]);
    wire sq = opf && !vf && f6 == F6_VFSQRT && vs1 == SEL_VFSQRT_V;
    // vfclass.v, vfrsqrt7.v, vfrec7.v (VFUNARY1; the lanes tell them apart by the vs1 field's low bits)
    wire cls = opf && !vf && f6 == F6_VFCLASS && (vs1 == SEL_VFCLASS_V || vs1 == SEL_VFRSQRT7_V || vs1 == SEL_VFREC7_V);
    reg ok, rd_ok, unary;
    always @(*) begin
        ok = 1'b1;
        rd_ok = 1'b0;
        unary = 1'b0;
        lop = LO_ADD;
        bsel = vf ? 2'd1 : 2'd0;
        if (opf && !vf && (f6 == F6_VFREDUSUM || f6 == F6_VFREDOSUM || f6 == F6_VFREDMIN || f6 == F6_VFREDMAX)) begin
            ok = 1'b0;                                      // vfredusum, vfredosum, vfredmin, vfredmax
            rd_ok = 1'b1;
            lop = f6[2] ? (f6[1] ? LO_MAX : LO_MIN) : LO_ADD;
        end else if (opv && f3 == OPMVV && f6[5:3] == F6_VREDSUM[5:3]) begin     // vred* (OPMVV)
            ok = 1'b0;
            rd_ok = 1'b1;
            case (f6[2:1])
                2'b00: lop = f6[0] ? LO_IAND : LO_IADD;
                2'b01: lop = f6[0] ? LO_IXOR : LO_IOR;
                2'b10: lop = LO_IMIN;
                default: lop = LO_IMAX;
            endcase
        end else if (opv && f3 == OPIVV && f6[5:1] == F6_VWREDSUM[5:1]) begin     // vwredsumu, vwredsum (OPIVV)
            ok = 1'b0;
            rd_ok = 1'b1;
            lop = LO_IADD;
        end else if (cvt || sq || cls) begin
            lop = cvt ? LO_CVT : sq ? LO_SQRT : LO_CLASS;
            unary = 1'b1;
        end else if (opf) begin
            if (is_fma) lop = LO_FMA;
            else case (f6)
                F6_VFADD, F6_VFSUB: lop = LO_ADD;
                F6_VFRSUB: begin lop = LO_ADD; ok = vf; end
                F6_VFMIN: lop = LO_MIN;
                F6_VFMAX: lop = LO_MAX;
                F6_VFSGNJ: lop = LO_SGNJ;
                F6_VFSGNJN: lop = LO_SGNJN;
                F6_VFSGNJX: lop = LO_SGNJX;
                F6_VFMUL: lop = LO_MUL;
                F6_VFDIV: lop = LO_DIV;
                F6_VFRDIV: begin lop = LO_DIV; ok = vf; end
                F6_VMFEQ, F6_VMFLE, F6_VMFLT, F6_VMFNE: lop = LO_FCMP;
                F6_VMFGT, F6_VMFGE: begin lop = LO_FCMP; ok = vf; end
                F6_VFMV_V: begin lop = vm ? LO_MOVE : LO_MERGE; ok = vf && (mv_v || !vm); end   // vfmv.v.f, vfmerge
                F6_VFSLIDE1UP, F6_VFSLIDE1DOWN: begin lop = LO_MOVE; ok = vf; end
                default: ok = 1'b0;
            endcase
        end else if (opi) begin
            bsel = f3 == OPIVV ? 2'd0 : f3 == OPIVX ? 2'd2 : 2'd3;
            case (f6)
                F6_VADD: lop = LO_IADD;
                F6_VSUB: begin lop = LO_ISUB; ok = f3 != OPIVI; end
                F6_VADC: begin lop = LO_IADD; ok = !vm; end                   // vadc.v{v,x,i}m
                F6_VSBC: begin lop = LO_ISUB; ok = !vm && f3 != OPIVI; end     // vsbc.v{v,x}m
                F6_VMADC: lop = LO_ICMP;
                F6_VMSBC: begin lop = LO_ICMP; ok = f3 != OPIVI; end
                F6_VRSUB: begin lop = LO_ISUB; ok = f3 != OPIVV; end
                F6_VAND: lop = LO_IAND;
                F6_VOR: lop = LO_IOR;
                F6_VXOR: lop = LO_IXOR;
                F6_VSLL: lop = LO_ISLL;
                F6_VSRL: lop = LO_ISRL;
                F6_VSRA: lop = LO_ISRA;
                F6_VMINU, F6_VMIN: begin lop = LO_IMIN; ok = f3 != OPIVI; end
                F6_VMAXU, F6_VMAX: begin lop = LO_IMAX; ok = f3 != OPIVI; end
                F6_VMV_V: begin lop = vm ? LO_MOVE : LO_MERGE; ok = mv_v || !vm; end   // vmv.v.*, vmerge.v*m
                F6_VMSEQ, F6_VMSNE, F6_VMSLEU, F6_VMSLE: lop = LO_ICMP;
                F6_VMSLTU, F6_VMSLT: begin lop = LO_ICMP; ok = f3 != OPIVI; end
                F6_VMSGTU, F6_VMSGT: begin lop = LO_ICMP; ok = f3 != OPIVV; end
                F6_VSLIDEUP: lop = LO_MOVE;                        // vslideup (.vx, .vi), vrgatherei16 (.vv)
                F6_VSLIDEDOWN: begin lop = LO_MOVE; ok = f3 != OPIVV; end
                F6_VRGATHER: lop = LO_MOVE;
                F6_VMV1R: if (f3 == OPIVI) begin                                 // vmv<n>r.v: n - 1 in the vs1 field
                    lop = LO_MOVE;
                    unary = 1'b1;
                    ok = vm && (vs1 == SEL_VMV1R_V || vs1 == SEL_VMV2R_V || vs1 == SEL_VMV4R_V || vs1 == SEL_VMV8R_V);
                end else lop = LO_FXP;                                           // vsmul (.vv, .vx)
                F6_VSADDU, F6_VSADD: lop = LO_FXP;
                F6_VSSUBU, F6_VSSUB: begin lop = LO_FXP; ok = f3 != OPIVI; end
                F6_VSSRL, F6_VSSRA: lop = LO_FXP;
                F6_VNCLIPU, F6_VNCLIP: lop = LO_FXP;                             // (.wv, .wx, .wi)
                F6_VNSRL: lop = LO_ISRL;                                         // (.wv, .wx, .wi)
                F6_VNSRA: lop = LO_ISRA;
                default: ok = 1'b0;
            endcase
        end else if (opm) begin
            bsel = f3 == OPMVV ? 2'd0 : 2'd2;
            case (f6)
                F6_VWADDU_VV, F6_VWADD_VV, F6_VWADDU_WV, F6_VWADD_WV: lop = LO_IADD;   // (.vx, .wx alike)
                F6_VWSUBU_VV, F6_VWSUB_VV, F6_VWSUBU_WV, F6_VWSUB_WV: lop = LO_ISUB;
                F6_VWMULU, F6_VWMULSU, F6_VWMUL: lop = LO_IMUL;
                F6_VWMACCU, F6_VWMACC, F6_VWMACCSU: lop = LO_IMAC;
                F6_VWMACCUS: begin lop = LO_IMAC; ok = f3 == OPMVX; end      // (.vx only)
                F6_VZEXT: begin                                              // VXUNARY0: vzext/vsext
                    unary = 1'b1;
                    lop = LO_MOVE;
                    ok = f3 == OPMVV && vs1[4:2] == SEL_VZEXT_VF4[4:2];
                end
                F6_VMULHU, F6_VMUL, F6_VMULHSU, F6_VMULH: lop = LO_IMUL;
                F6_VMADD, F6_VNMSUB, F6_VMACC, F6_VNMSAC: lop = LO_IMAC;
                F6_VDIVU, F6_VDIV, F6_VREMU, F6_VREM: lop = LO_IDIV;
                F6_VAADDU, F6_VAADD, F6_VASUBU, F6_VASUB: lop = LO_FXP;
                F6_VSLIDE1UP, F6_VSLIDE1DOWN: begin lop = LO_MOVE; ok = f3 == OPMVX; end
                F6_VMANDN, F6_VMAND, F6_VMOR, F6_VMXOR, F6_VMORN, F6_VMNAND, F6_VMNOR, F6_VMXNOR:
                    begin lop = LO_MLOG; ok = f3 == OPMVV && vm; end
                F6_VCOMPRESS: begin lop = LO_MOVE; unary = 1'b1; ok = f3 == OPMVV && vm; end
                F6_VID: begin                                                // VMUNARY0
                    unary = 1'b1;
                    ok = f3 == OPMVV && (vs1 == SEL_VIOTA_M || (vs1 == SEL_VID_V && vs2 == SEL2_VID_V) ||
                                         vs1 == SEL_VMSBF_M || vs1 == SEL_VMSOF_M || vs1 == SEL_VMSIF_M);
                    lop = vs1[4] ? LO_MOVE : LO_MSF;                         // viota, vid: values from S1
                end
                default: ok = 1'b0;
            endcase
        end else ok = 1'b0;
    end
    // element 0 moves: vfmv.f.s (OPFVV), vmv.x.s (OPMVV), vfmv.s.f (OPFVF), vmv.s.x (OPMVX)
    wire wx = opv && f6 == F6_VMV_X && vm;
    assign mq = opv && f6 == F6_VCPOP && f3 == OPMVV && (vs1 == SEL_VCPOP_M || vs1 == SEL_VFIRST_M);
    assign to_scalar = (wx && (f3 == OPFVV || f3 == OPMVV) && vs1 == SEL_VMV_X_S) || mq;
    assign from_scalar = wx && (f3 == OPFVF || f3 == OPMVX) && vs2 == SEL_VMV_S_X;
    assign lanes = ok && !to_scalar && !from_scalar;
    assign red = rd_ok;
    assign ord = rd_ok && opf && f6 == F6_VFREDOSUM;
    assign wred = rd_ok && opi && f6[5:1] == F6_VWREDSUM[5:1];
    assign div = lanes && (lop == LO_DIV || lop == LO_SQRT || lop == LO_IDIV);
    assign mk = lanes && (lop == LO_FCMP || lop == LO_ICMP);
    assign carry = lanes && opi && f6[5:2] == F6_VADC[5:2];
    assign mlog = lanes && lop == LO_MLOG;
    assign msf = lanes && lop == LO_MSF;
    assign merge = lanes && lop == LO_MERGE;
    assign ei16 = lanes && opi && f3 == OPIVV && f6 == F6_VRGATHEREI16;
    assign gat = (lanes && opi && f6 == F6_VRGATHER) || ei16;
    assign comp = lanes && opm && f6 == F6_VCOMPRESS;
    wire   unary0 = opm && f6 == F6_VID;
    assign vid = lanes && unary0 && vs1 == SEL_VID_V;
    assign iota = lanes && unary0 && vs1 == SEL_VIOTA_M;
    assign slide = lanes && lop == LO_MOVE && f6[5:1] == F6_VSLIDEUP[5:1] && !ei16;
    assign slide_up = slide && !f6[0];
    assign slide_one = slide && (f3 == OPFVF || f3 == OPMVX);
    assign legal = ld || st || lanes || to_scalar || from_scalar || red;
    assign reads_vs1 = lanes && bsel == 2'd0 && !unary && !mlog && !ei16;   // (ei16: its own group rule)
    assign reads_vs2 = (lanes && (lop != LO_MOVE || slide || gat || comp) && !mlog && !msf) || red;
    assign swap = opf ? (f6 == F6_VFRSUB || f6 == F6_VFRDIV) : (opi && f6 == F6_VRSUB);
    assign neg_prod = is_fma ? f6[0] : 1'b0;
    assign neg_add = is_fma ? f6[0] ^ f6[1] : (opf && (f6 == F6_VFSUB || f6 == F6_VFRSUB));
    assign uses_vd = is_fma && !f6[2];
    assign wop = lanes && opm && f6[5:4] == F6_VWMULU[5:4];   // the widening group, 11xxxx
    assign wmv = lanes && opi && f6 == F6_VMV1R && f3 == OPIVI;
    assign wsrc = wop && f6[5:2] == F6_VWADDU_WV[5:2];
    assign nar = lanes && opi && (f6[5:1] == F6_VNSRL[5:1] || f6[5:1] == F6_VNCLIPU[5:1]);   // vnsrl/vnsra, vnclipu/vnclip
    assign ext = lanes && opm && f6 == F6_VZEXT;
    assign ext4 = ext && !vs1[1];
    // signedness of the narrow operands: add/sub f6[0]; vwmul(u/su) vs2 f6[1], vs1 f6[0];
    // vwmacc(u/-/us/su): vs2 f6[0] ^ f6[1], vs1 f6[0]; vsext: vs1 field bit 0
    assign sa = ext ? vs1[0] : f6[3] ? (f6[2] ? f6[0] ^ f6[1] : f6[1]) : f6[0];
    assign sb = f6[0];
    assign subw = (lanes && opi && !nar && ((lop >= LO_IADD && lop <= LO_IMAX) || lop == LO_ICMP ||
                                             (f6 == F6_VMV_V && (lop == LO_MOVE || lop == LO_MERGE)))) ||
                  (lanes && opm && !wop && (lop == LO_IMUL || lop == LO_IMAC || lop == LO_IDIV)) ||
                  (wx && ((f3 == OPMVX && vs2 == SEL_VMV_S_X) || (f3 == OPMVV && vs1 == SEL_VMV_X_S))) ||  // vmv.s.x, vmv.x.s
                  (rd_ok && !opf) ||                                                     // vred*
                  (lanes && opm && f6 == F6_VID && (vs1 == SEL_VIOTA_M || vs1 == SEL_VID_V)) ||  // viota, vid
                  (slide && !opf) || gat || comp ||                // the integer slides, vrgather(ei16), vcompress
                  (lanes && lop == LO_FXP && !nar);                // fixed point (vnclip: as the narrowing)
    assign anysew = mlog || msf || mq;
    wire _unused = ^ir[11:7];
endmodule
