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
    wire [6:0] op = ir[6:0];
    wire [2:0] f3 = ir[14:12];
    wire [5:0] f6 = ir[31:26];
    wire       vm = ir[25];
    wire [4:0] vs2 = ir[24:20], vs1 = ir[19:15];

    // memory: 8-, 16- or 32-bit elements, mew = 0, nf + 1 fields, unit-stride (lumop 0), strided or indexed
    wire memw = f3 == 3'd6 || f3 == 3'd5 || f3 == 3'd0;
    // whole-register vl<n>re<eew>.v / vs<n>r.v: lumop 01000, unmasked, nf + 1 = 1, 2, 4 or 8 registers
    assign whole = memw && ir[28:26] == 3'b000 && vs2 == 5'b01000 && vm &&
                   (ir[31:29] == 3'd0 || ir[31:29] == 3'd1 || ir[31:29] == 3'd3 || ir[31:29] == 3'd7) &&
                   (op == 7'h07 || (op == 7'h27 && f3 == 3'd0));
    // vlm.v / vsm.v: lumop 01011, 8-bit, unmasked: ceil(vl / 8) bytes of a mask register
    assign mskm = f3 == 3'd0 && ir[31:25] == 7'b0000001 && vs2 == 5'b01011 && (op == 7'h07 || op == 7'h27);
    wire mem32 = (memw && !ir[28] && (ir[27:26] != 2'b00 || vs2 == 5'd0 || (op == 7'h07 && vs2 == 5'b10000))) ||
                 whole || mskm;
    assign ld = op == 7'h07 && mem32;
    assign st = op == 7'h27 && mem32;
    assign meew = f3 == 3'd6 ? 2'd2 : f3 == 3'd5 ? 2'd1 : 2'd0;
    assign strided = (ld || st) && ir[27:26] == 2'b10;
    assign indexed = (ld || st) && ir[26] && !whole && !mskm;
    assign ff = ld && ir[27:26] == 2'b00 && vs2 == 5'b10000;
    assign seg = (ld || st) && ir[31:29] != 3'd0 && !whole && !mskm;

    wire opv = op == 7'h57;
    wire opf = opv && (f3 == 3'd1 || f3 == 3'd5);
    wire opi = opv && (f3 == 3'd0 || f3 == 3'd3 || f3 == 3'd4);       // OPIVV, OPIVI, OPIVX
    wire opm = opv && (f3 == 3'd2 || f3 == 3'd6);                     // OPMVV, OPMVX
    wire vf = f3 == 3'd5;
    assign fp = opf;
    wire is_fma = opf && f6[5:3] == 3'b101;
    wire mv_v = f6 == 6'b010111 && vm && vs2 == 5'd0;
    // VFUNARY0's single-width conversions: vs1 0 xu.f, 1 x.f, 2 f.xu, 3 f.x, 6 rtz.xu.f, 7 rtz.x.f
    wire cvt = opf && !vf && f6 == 6'b010010 && (vs1[4:2] == 3'b000 || vs1[4:1] == 4'b0011);
    wire sq = opf && !vf && f6 == 6'b010011 && vs1 == 5'd0;           // vfsqrt.v
    // vfclass.v, vfrsqrt7.v, vfrec7.v (VFUNARY1; the lanes tell them apart by the vs1 field's low bits)
    wire cls = opf && !vf && f6 == 6'b010011 && (vs1 == 5'b10000 || vs1 == 5'b00100 || vs1 == 5'b00101);
    reg ok, rd_ok, unary;
    always @(*) begin
        ok = 1'b1;
        rd_ok = 1'b0;
        unary = 1'b0;
        lop = LO_ADD;
        bsel = vf ? 2'd1 : 2'd0;
        if (opf && !vf && (f6 == 6'b000001 || f6 == 6'b000011 || f6 == 6'b000101 || f6 == 6'b000111)) begin
            ok = 1'b0;                                      // vfredusum, vfredosum, vfredmin, vfredmax
            rd_ok = 1'b1;
            lop = f6[2] ? (f6[1] ? LO_MAX : LO_MIN) : LO_ADD;
        end else if (opv && f3 == 3'd2 && f6[5:3] == 3'b000) begin     // vred* (OPMVV)
            ok = 1'b0;
            rd_ok = 1'b1;
            case (f6[2:1])
                2'b00: lop = f6[0] ? LO_IAND : LO_IADD;
                2'b01: lop = f6[0] ? LO_IXOR : LO_IOR;
                2'b10: lop = LO_IMIN;
                default: lop = LO_IMAX;
            endcase
        end else if (opv && f3 == 3'd0 && f6[5:1] == 5'b11000) begin     // vwredsumu, vwredsum (OPIVV)
            ok = 1'b0;
            rd_ok = 1'b1;
            lop = LO_IADD;
        end else if (cvt || sq || cls) begin
            lop = cvt ? LO_CVT : sq ? LO_SQRT : LO_CLASS;
            unary = 1'b1;
        end else if (opf) begin
            if (is_fma) lop = LO_FMA;
            else case (f6)
                6'b000000, 6'b000010: lop = LO_ADD;
                6'b100111: begin lop = LO_ADD; ok = vf; end
                6'b000100: lop = LO_MIN;
                6'b000110: lop = LO_MAX;
                6'b001000: lop = LO_SGNJ;
                6'b001001: lop = LO_SGNJN;
                6'b001010: lop = LO_SGNJX;
                6'b100100: lop = LO_MUL;
                6'b100000: lop = LO_DIV;
                6'b100001: begin lop = LO_DIV; ok = vf; end
                6'b011000, 6'b011001, 6'b011011, 6'b011100: lop = LO_FCMP;   // eq le lt ne
                6'b011101, 6'b011111: begin lop = LO_FCMP; ok = vf; end      // gt ge
                6'b010111: begin lop = vm ? LO_MOVE : LO_MERGE; ok = vf && (mv_v || !vm); end   // vfmv.v.f, vfmerge
                6'b001110, 6'b001111: begin lop = LO_MOVE; ok = vf; end      // vfslide1up/down
                default: ok = 1'b0;
            endcase
        end else if (opi) begin
            bsel = f3 == 3'd0 ? 2'd0 : f3 == 3'd4 ? 2'd2 : 2'd3;
            case (f6)
                6'b000000: lop = LO_IADD;
                6'b000010: begin lop = LO_ISUB; ok = f3 != 3'd3; end
                6'b010000: begin lop = LO_IADD; ok = !vm; end                   // vadc.v{v,x,i}m
                6'b010010: begin lop = LO_ISUB; ok = !vm && f3 != 3'd3; end     // vsbc.v{v,x}m
                6'b010001: lop = LO_ICMP;                                       // vmadc
                6'b010011: begin lop = LO_ICMP; ok = f3 != 3'd3; end            // vmsbc
                6'b000011: begin lop = LO_ISUB; ok = f3 != 3'd0; end    // vrsub
                6'b001001: lop = LO_IAND;
                6'b001010: lop = LO_IOR;
                6'b001011: lop = LO_IXOR;
                6'b100101: lop = LO_ISLL;
                6'b101000: lop = LO_ISRL;
                6'b101001: lop = LO_ISRA;
                6'b000100, 6'b000101: begin lop = LO_IMIN; ok = f3 != 3'd3; end
                6'b000110, 6'b000111: begin lop = LO_IMAX; ok = f3 != 3'd3; end
                6'b010111: begin lop = vm ? LO_MOVE : LO_MERGE; ok = mv_v || !vm; end   // vmv.v.*, vmerge.v*m
                6'b011000, 6'b011001, 6'b011100, 6'b011101: lop = LO_ICMP;   // eq ne leu le
                6'b011010, 6'b011011: begin lop = LO_ICMP; ok = f3 != 3'd3; end  // ltu lt
                6'b011110, 6'b011111: begin lop = LO_ICMP; ok = f3 != 3'd0; end  // gtu gt
                6'b001110: lop = LO_MOVE;                          // vslideup (.vx, .vi), vrgatherei16 (.vv)
                6'b001111: begin lop = LO_MOVE; ok = f3 != 3'd0; end  // vslidedown
                6'b001100: lop = LO_MOVE;                                        // vrgather
                6'b100111: if (f3 == 3'd3) begin                                 // vmv<n>r.v: n - 1 in the vs1 field
                    lop = LO_MOVE;
                    unary = 1'b1;
                    ok = vm && (vs1 == 5'd0 || vs1 == 5'd1 || vs1 == 5'd3 || vs1 == 5'd7);
                end else lop = LO_FXP;                                           // vsmul (.vv, .vx)
                6'b100000, 6'b100001: lop = LO_FXP;                              // vsaddu, vsadd
                6'b100010, 6'b100011: begin lop = LO_FXP; ok = f3 != 3'd3; end  // vssubu, vssub
                6'b101010, 6'b101011: lop = LO_FXP;                              // vssrl, vssra
                6'b101110, 6'b101111: lop = LO_FXP;                              // vnclipu, vnclip (.wv, .wx, .wi)
                6'b101100: lop = LO_ISRL;                                        // vnsrl (.wv, .wx, .wi)
                6'b101101: lop = LO_ISRA;                                        // vnsra
                default: ok = 1'b0;
            endcase
        end else if (opm) begin
            bsel = f3 == 3'd2 ? 2'd0 : 2'd2;
            case (f6)
                6'b110000, 6'b110001, 6'b110100, 6'b110101: lop = LO_IADD;   // vwadd(u) .v*, .w*
                6'b110010, 6'b110011, 6'b110110, 6'b110111: lop = LO_ISUB;   // vwsub(u)
                6'b111000, 6'b111010, 6'b111011: lop = LO_IMUL;              // vwmulu, vwmulsu, vwmul
                6'b111100, 6'b111101, 6'b111111: lop = LO_IMAC;              // vwmaccu, vwmacc, vwmaccsu
                6'b111110: begin lop = LO_IMAC; ok = f3 == 3'd6; end         // vwmaccus (.vx only)
                6'b010010: begin                                             // VXUNARY0: vzext/vsext
                    unary = 1'b1;
                    lop = LO_MOVE;
                    ok = f3 == 3'd2 && vs1[4:2] == 3'b001;
                end
                6'b100100, 6'b100101, 6'b100110, 6'b100111: lop = LO_IMUL;   // hu, (low), hsu, h
                6'b101001, 6'b101011, 6'b101101, 6'b101111: lop = LO_IMAC;   // vmadd vnmsub vmacc vnmsac
                6'b100000, 6'b100001, 6'b100010, 6'b100011: lop = LO_IDIV;   // vdivu vdiv vremu vrem
                6'b001000, 6'b001001, 6'b001010, 6'b001011: lop = LO_FXP;    // vaaddu vaadd vasubu vasub
                6'b001110, 6'b001111: begin lop = LO_MOVE; ok = f3 == 3'd6; end  // vslide1up/down
                6'b011000, 6'b011001, 6'b011010, 6'b011011, 6'b011100, 6'b011101, 6'b011110, 6'b011111:
                    begin lop = LO_MLOG; ok = f3 == 3'd2 && vm; end
                6'b010111: begin lop = LO_MOVE; unary = 1'b1; ok = f3 == 3'd2 && vm; end  // vcompress
                6'b010100: begin                                             // VMUNARY0
                    unary = 1'b1;
                    ok = f3 == 3'd2 && (vs1 == 5'b10000 || (vs1 == 5'b10001 && vs2 == 5'd0) ||
                                        vs1 == 5'b00001 || vs1 == 5'b00010 || vs1 == 5'b00011);
                    lop = vs1[4] ? LO_MOVE : LO_MSF;                         // viota, vid: values from S1
                end
                default: ok = 1'b0;
            endcase
        end else ok = 1'b0;
    end
    // element 0 moves: vfmv.f.s (OPFVV), vmv.x.s (OPMVV), vfmv.s.f (OPFVF), vmv.s.x (OPMVX)
    wire wx = opv && f6 == 6'b010000 && vm;
    assign mq = opv && f6 == 6'b010000 && f3 == 3'd2 && (vs1 == 5'b10000 || vs1 == 5'b10001);  // vcpop, vfirst
    assign to_scalar = (wx && (f3 == 3'd1 || f3 == 3'd2) && vs1 == 5'd0) || mq;
    assign from_scalar = wx && (f3 == 3'd5 || f3 == 3'd6) && vs2 == 5'd0;
    assign lanes = ok && !to_scalar && !from_scalar;
    assign red = rd_ok;
    assign ord = rd_ok && opf && f6 == 6'b000011;
    assign wred = rd_ok && opi && f6[5:1] == 5'b11000;
    assign div = lanes && (lop == LO_DIV || lop == LO_SQRT || lop == LO_IDIV);
    assign mk = lanes && (lop == LO_FCMP || lop == LO_ICMP);
    assign carry = lanes && opi && f6[5:2] == 4'b0100;
    assign mlog = lanes && lop == LO_MLOG;
    assign msf = lanes && lop == LO_MSF;
    assign merge = lanes && lop == LO_MERGE;
    assign ei16 = lanes && opi && f3 == 3'd0 && f6 == 6'b001110;
    assign gat = (lanes && opi && f6 == 6'b001100) || ei16;
    assign comp = lanes && opm && f6 == 6'b010111;
    wire   unary0 = opm && f6 == 6'b010100;
    assign vid = lanes && unary0 && vs1 == 5'b10001;
    assign iota = lanes && unary0 && vs1 == 5'b10000;
    assign slide = lanes && lop == LO_MOVE && f6[5:1] == 5'b00111 && !ei16;
    assign slide_up = slide && !f6[0];
    assign slide_one = slide && (f3 == 3'd5 || f3 == 3'd6);
    assign legal = ld || st || lanes || to_scalar || from_scalar || red;
    assign reads_vs1 = lanes && bsel == 2'd0 && !unary && !mlog && !ei16;   // (ei16: its own group rule)
    assign reads_vs2 = (lanes && (lop != LO_MOVE || slide || gat || comp) && !mlog && !msf) || red;
    assign swap = opf ? (f6 == 6'b100111 || f6 == 6'b100001) : (opi && f6 == 6'b000011);
    assign neg_prod = is_fma ? f6[0] : 1'b0;
    assign neg_add = is_fma ? f6[0] ^ f6[1] : (opf && (f6 == 6'b000010 || f6 == 6'b100111));
    assign uses_vd = is_fma && !f6[2];
    assign wop = lanes && opm && f6[5:4] == 2'b11;
    assign wmv = lanes && opi && f6 == 6'b100111 && f3 == 3'd3;
    assign wsrc = wop && f6[5:2] == 4'b1101;
    assign nar = lanes && opi && (f6[5:1] == 5'b10110 || f6[5:1] == 5'b10111);   // vnsrl/vnsra, vnclipu/vnclip
    assign ext = lanes && opm && f6 == 6'b010010;
    assign ext4 = ext && !vs1[1];
    // signedness of the narrow operands: add/sub f6[0]; vwmul(u/su) vs2 f6[1], vs1 f6[0];
    // vwmacc(u/-/us/su): vs2 f6[0] ^ f6[1], vs1 f6[0]; vsext: vs1 field bit 0
    assign sa = ext ? vs1[0] : f6[3] ? (f6[2] ? f6[0] ^ f6[1] : f6[1]) : f6[0];
    assign sb = f6[0];
    assign subw = (lanes && opi && !nar && ((lop >= LO_IADD && lop <= LO_IMAX) || lop == LO_ICMP ||
                                             (f6 == 6'b010111 && (lop == LO_MOVE || lop == LO_MERGE)))) ||
                  (lanes && opm && !wop && (lop == LO_IMUL || lop == LO_IMAC || lop == LO_IDIV)) ||
                  (wx && ((f3 == 3'd6 && vs2 == 5'd0) || (f3 == 3'd2 && vs1 == 5'd0))) ||  // vmv.s.x, vmv.x.s
                  (rd_ok && !opf) ||                                                     // vred*
                  (lanes && opm && f6 == 6'b010100 && (vs1 == 5'b10000 || vs1 == 5'b10001)) ||  // viota, vid
                  (slide && !opf) || gat || comp ||                // the integer slides, vrgather(ei16), vcompress
                  (lanes && lop == LO_FXP && !nar);                // fixed point (vnclip: as the narrowing)
    assign anysew = mlog || msf || mq;
    wire _unused = ^ir[11:7];
endmodule
