// coral_vec: coral's vector unit (Zve32f subset, SEW 32 and for the integer instructions
// 8 and 16; coral_vdec lists the instructions), decoupled from the scalar core by a queue
// of DEPTH instructions.
//
//   dispatch  the core's EX stage checks an instruction (d_fault: what the model's
//             semantics reject; d_unsup: what this unit does not implement yet) and
//             pushes it with the vl, vtype, frm and scalar operands of that moment;
//   S1        issue, one beat per cycle (a beat: VLEN bits, NB = VLEN / 32 elements;
//             strided accesses, gathers, vcompress: one element per cycle): reads the
//             register file (3 operands and the mask, bypassed from S2; a gather's
//             source register addressed by its index), drives the DTCM banks'
//             second ports (loads: addresses; stores: addresses and data, written on
//             this edge);
//   S2        execute and write back: NB lanes of rtl/common's fp32_fma, coral_fminmax,
//             the dividers (fp32_divsqrt, coral_idiv, started from S1) and the integer
//             operations (at SEW 8 / 16 a per-element unit, 4 / 2 elements a lane), or
//             the banks' load data, merged with the mask, tail and agnostic policies
//             (agnostic elements become all ones) into one register, byte by byte as
//             its elements at SEW 8 / 16.
//
// An instruction starts in S1 on the cycle after its dispatch or after the previous
// one's last beat, whichever is later, and holds S1 for max(1, ceil(vl * SEW / VLEN)) cycles
// (per element: max(1, vl); dividers: 8 per beat; a unit load from inside a word whose bytes
// span more than NB words: one more): the model's timing (isa/coral/manual_intro.md); its last
// register write lands one cycle later, in S2. Registers of a group wholly in the
// tail are marked all-ones in one cycle (a valid bit per register) instead of being
// written. The register file is 32 x VLEN bits with 4 read ports and 1 write port.
// The unit runs on a gated clock (icg): idle, it does not toggle.
module coral_vec #(
    parameter integer VLEN       = 128,
    parameter integer DEPTH      = 8,
    parameter integer DTCM_WORDS = 4096,
    parameter [31:0]  DTCM_BASE  = 32'h0001_0000,
    parameter integer DTCM_SIZE  = 16384
) (
    input  wire        clk,
    input  wire        rst,
    // dispatch (checked in the same cycle, pushed on the edge)
    input  wire        d_valid,
    input  wire [31:0] d_ir,
    input  wire [$clog2(VLEN):0] d_vl,
    input  wire [8:0]  d_vt,          // {vill, vma, vta, vsew[2:0], vlmul[2:0]}
    input  wire [2:0]  d_frm,
    input  wire [1:0]  d_vxrm,
    input  wire [31:0] d_xa,          // x[rs1]
    input  wire [31:0] d_xb,          // x[rs2]
    input  wire [31:0] d_fa,          // f[rs1]
    output wire        d_legal,
    output wire        d_fault,
    output wire        d_unsup,
    output wire        d_pend,        // a masked access whose addresses need a v0 still being computed
    output wire        d_ffl,         // a fault-only-first load: vl becomes d_ffvl (its dispatch)
    output wire [$clog2(VLEN):0] d_ffvl,
    output wire        d_drain,       // an indexed access waits: something queued or issuing writes its offsets or v0
    output wire        d_to_scalar,
    // state the core waits on
    output wire        q_full,
    output wire        st_pend,       // a vector store queued or issuing
    output wire        mem_pend,      // a vector load or store queued or issuing
    output wire        drained,       // nothing queued or issuing this cycle
    output wire        active,        // anything queued, issuing or writing back
    output wire        sval_ok,       // a to-scalar move is issuing: sval is its value
    output wire [31:0] sval,
    output wire [4:0]  vflags,        // fp flags of the write-back in S2
    output wire        vsat,          // ... a fixed-point active element saturated (vxsat)
    output reg  [63:0] busy_cycles,
    // trace port: S2's register write (and registers marked all-ones) of the instruction
    // numbered tr_s2seq (0, 1, ... in dispatch order), and tr_s1seq, the one in S1 (whose
    // stores go to the banks this cycle); a trace reader attributes them to its dispatch
    output wire [31:0] tr_s1seq,
    output wire [31:0] tr_s2seq,
    output wire        tr_we,
    output wire [4:0]  tr_reg,
    output wire [VLEN-1:0] tr_val,
    output wire [31:0] tr_marks,
    // host access to the register file (while idle): word `dbg_addr` = reg * NB + word
    input  wire        dbg_we,
    input  wire [12:0] dbg_addr,
    input  wire [31:0] dbg_wdata,
    output wire [31:0] dbg_rdata,
    // the DTCM banks' second ports, clocked by the unit's gated clock (m_clk)
    output wire               m_clk,
    output reg  [NB-1:0]      m_en,
    output reg  [4*NB-1:0]    m_we,
    output reg  [RA*NB-1:0]   m_addr,
    output reg  [32*NB-1:0]   m_wdata,
    input  wire [32*NB-1:0]   m_rdata,
    // a unit-stride store's beat from an address that is no multiple of 4 spans NB + 1 words:
    // the last one (in the first one's bank, one row up) goes through the bank's port A,
    // which the core leaves alone while a vector store is queued or issuing (its loads and
    // stores wait for it)
    output reg  [3:0]         x_we,
    output reg  [DA-1:0]      x_word,
    output reg  [31:0]        x_wdata
);
    localparam integer NB = VLEN / 32;
    localparam integer LNB = $clog2(NB);
    localparam integer VW = $clog2(VLEN) + 1;
    localparam integer DA = $clog2(DTCM_WORDS);
    localparam integer RA = DA - LNB;
    `include "coral_isa.vh"
    localparam integer QW = 32 + VW + 8 + 3 + 2 + 96;
    localparam integer QA = DEPTH > 1 ? $clog2(DEPTH) : 1;
    localparam [4:0] LO_ADD = 5'd0, LO_MUL = 5'd1, LO_FMA = 5'd2, LO_MIN = 5'd3, LO_MAX = 5'd4,
                     LO_SGNJ = 5'd5, LO_SGNJN = 5'd6, LO_SGNJX = 5'd7, LO_DIV = 5'd9,
                     LO_SQRT = 5'd10, LO_CVT = 5'd11, LO_IADD = 5'd12, LO_ISUB = 5'd13,
                     LO_IAND = 5'd14, LO_IOR = 5'd15, LO_IXOR = 5'd16, LO_ISLL = 5'd17,
                     LO_ISRL = 5'd18, LO_ISRA = 5'd19, LO_IMAX = 5'd21,   // 20: LO_IMIN
                     LO_FCMP = 5'd22, LO_ICMP = 5'd23, LO_IMUL = 5'd24,   // 25: LO_MLOG (s2_mlog)
                     LO_MERGE = 5'd26, LO_IMAC = 5'd28, LO_IDIV = 5'd29,  // 27: LO_MSF (s2_msf)
                     LO_MOVE = 5'd8, LO_CLASS = 5'd30, LO_FXP = 5'd31;
    // fixed-point kinds (fxalu): saturating add/subtract, averaging add/subtract, vsmul, scaling shifts
    localparam [1:0] FX_SAT = 2'd0, FX_AVG = 2'd1, FX_MUL = 2'd2, FX_SHIFT = 2'd3;
    localparam integer DIVC = 8;      // cycles per beat of vfdiv/vfrdiv/vfsqrt (class VFDIV) and of
                                      // vdiv/vrem (class VDIV: 4 quotient bits per clock, 8 clocks)
    localparam [1:0] S_OLD = 2'd0, S_NEW = 2'd1, S_ONES = 2'd2;
    localparam [1:0] K_LANES = 2'd0, K_LOAD = 2'd1, K_LOADS = 2'd2, K_SCALAR = 2'd3;
    localparam [VLEN-1:0] ONES = {VLEN{1'b1}}, ONE = {{(VLEN - 1){1'b0}}, 1'b1};

    // ------------------------------------------------------------------ dispatch checks
    wire dl, dst, dstr, dlanes, dfp, dtos, dfroms, dvs1, dvs2, dswap, dnp, dna, dvd, dred, dord, dwred, ddiv, dmk;
    wire dmlog, dsl, dsup, dsone, dmerge, dvid, diota, dmq, dmsf, dgat, dcomp, dei16;
    wire dwop, dwsrc, dnar, dext, dext4, dsa, dsb, dsubw, danysew;
    wire [1:0] dmeew, emeew;
    wire       dwhole, ewhole, dwmv, ewmv, dmskm, emskm;
    wire [4:0] dlop;
    wire [1:0] dbsel;
    wire didx, eidx, estr_s, dseg, eseg, dff, eff, dcarry, ecarry;
    coral_vdec u_ddec (.ir(d_ir), .legal(d_legal), .ld(dl), .st(dst), .strided(dstr), .indexed(didx), .seg(dseg), .ff(dff), .carry(dcarry), .lanes(dlanes),
                       .fp(dfp), .to_scalar(dtos), .from_scalar(dfroms), .red(dred), .ord(dord), .wred(dwred), .div(ddiv), .mk(dmk), .mlog(dmlog), .slide(dsl), .slide_up(dsup), .slide_one(dsone), .merge(dmerge), .vid(dvid), .iota(diota), .mq(dmq), .msf(dmsf), .gat(dgat), .comp(dcomp), .ei16(dei16),
                       .wop(dwop), .wsrc(dwsrc), .nar(dnar), .ext(dext), .ext4(dext4), .sa(dsa), .sb(dsb),
                       .subw(dsubw), .anysew(danysew), .meew(dmeew), .whole(dwhole), .wmv(dwmv), .mskm(dmskm), .lop(dlop), .bsel(dbsel),
                       .reads_vs1(dvs1), .reads_vs2(dvs2), .swap(dswap), .neg_prod(dnp),
                       .neg_add(dna), .uses_vd(dvd));
    wire       d_vill = d_vt[8];
    wire       d_sew32 = d_vt[5:3] == 3'd2;
    // whole-register accesses ignore vtype and vl: nf + 1 registers, all their 32-bit words (the
    // queue entry gets vl = n NB, SEW 32, LMUL n, so the unit runs them as vle32/vse32)
    // (vmv<n>r.v likewise: a vmv.v.v of vs2's n registers)
    wire       d_whl = dwhole || dwmv;
    wire [2:0] d_nf = dwmv ? d_ir[17:15] : d_ir[31:29];
    wire [3:0] d_wn = {1'b0, d_nf} + 4'd1;
    wire [1:0] d_wl = d_nf[2] ? 2'd3 : d_nf[1] ? 2'd2 : d_nf[0] ? 2'd1 : 2'd0;   // log2(n)
    // vlm.v / vsm.v: a vle8/vse8 of ceil(vl / 8) bytes at SEW 8, LMUL 1 (the tail as vtype says)
    wire [VW-1:0] d_ffk;             // a fault-only-first load: its first active bad element, else vl
    wire [VW-1:0] d_vl0 = d_whl ? VW'(d_wn) << LNB : dmskm ? (d_vl + VW'(7)) >> 3 : d_vl;   // (checked)
    wire [VW-1:0] d_vle = dff ? d_ffk : d_vl0;                                                 // (queued)
    // a unit-stride or strided access of EEW != SEW: EMUL = EEW / SEW * LMUL (more than 8
    // faults, the model's group(); a fraction is one register); it runs as the same access at
    // SEW = EEW and LMUL = EMUL, whose elements, mask bits, tail and beats are its own
    // (an indexed access's data is SEW wide: EMUL = LMUL; EEW is its offsets', whose group has that EMUL)
    wire       d_acc = (dl || dst) && !d_whl && !dmskm && !didx;
    wire signed [3:0] d_elog = $signed({d_vt[2], d_vt[2:0]}) + $signed({2'b00, dmeew}) - $signed({2'b00, d_vt[4:3]});
    wire       d_emul_bad = (d_acc || didx) && d_elog > 4'sd3;
    wire [4:0] d_ne = d_elog[3] ? 5'd1 : 5'd1 << d_elog[1:0];   // its registers
    wire [7:0] d_vte = d_whl ? {5'b00010, 1'b0, d_wl} : dmskm ? {d_vt[7:6], 6'd0} :
                       d_acc ? {d_vt[7:6], 1'b0, dmeew, d_elog[3] ? 3'b111 : d_elog[2:0]} : d_vt[7:0];
    wire [4:0] d_n = d_whl ? {1'b0, d_wn} : (d_vt[2] || dmskm) ? 5'd1 : 5'd1 << d_vt[1:0];   // registers per group
    // ... of 16-bit indices (vrgatherei16: EMUL = 16 / SEW * LMUL, at SEW 8 up to 16: a fault)
    wire [4:0] d_ni = d_vt[5:3] == 3'd2 ? (d_n > 5'd1 ? d_n >> 1 : 5'd1) : d_vt[5:3] == 3'd1 || d_vt[2] ? d_n : d_n << 1;
    wire       d_ei_bad = dei16 && d_vt[5:3] == 3'd0 && !d_vt[2] && d_vt[1:0] == 2'd3;
    wire [4:0] d_vd = d_ir[11:7], d_vs1 = d_ir[19:15], d_vs2 = d_ir[24:20];
    // a segment access of NF fields runs as a strided one whose elements take NF cycles each, field
    // f of element i from its segment's address + f * EEW / 8 into the field's group vd + f * EMUL
    // (segment by segment: the order of overlapping stores is the model's); a unit-stride one is
    // queued as strided with stride NF * EEW / 8
    wire [2:0] d_nfm = dseg ? d_ir[31:29] : 3'd0;                   // NF - 1
    wire [3:0] d_nff = {1'b0, d_nfm} + 4'd1;
    wire       d_useg = dseg && !dstr && !didx;
    wire [31:0] d_irq = d_useg ? {d_ir[31:28], 2'b10, d_ir[25:0]} : d_ir;
    wire [31:0] d_xbq = d_useg ? 32'(d_nff) << dmeew : d_xb;
    wire [4:0] d_nsg = didx ? d_n : d_ne;                           // registers of a field's group
    wire [7:0] d_sgr = 8'(d_nff) * 8'(d_nsg);                        // ... of all fields
    // the model's _groups and (indexed segment loads) no_overlap with the offsets
    wire       d_seg_bad = dseg && (d_sgr > 8'd8 || 8'(d_vd) + d_sgr > 8'd32 ||
                           (dl && didx && {1'b0, d_vd} < {1'b0, d_vs2} + {1'b0, d_ne} &&
                            {3'b0, d_vs2} < 8'(d_vd) + d_sgr));
    wire       d_grp = (dlanes && !dmk && !dmlog && !dmsf && (d_vd & (d_n - 5'd1)) != 5'd0) ||
                       ((dl || dst) && (d_vd & ((d_acc ? d_ne : d_n) - 5'd1)) != 5'd0) ||
                       (dvs1 && (d_vs1 & (d_n - 5'd1)) != 5'd0) || (dvs2 && (d_vs2 & (d_n - 5'd1)) != 5'd0) ||
                       (didx && (d_vs2 & (d_ne - 5'd1)) != 5'd0);
    wire       d_mask = !d_ir[25] && d_vd == 5'd0 && ((dlanes && !dmk) || dl);
    wire       d_ovl = (dsup && d_vd == d_vs2) ||   // slide up: vd's group is vs2's (aligned groups)
                       (dmsf && d_vd == d_vs2) ||   // vms*f: vd is its source
                       (diota && d_vs2 >= d_vd && d_vs2 < d_vd + d_n) ||  // viota: vs2 inside vd's group
                       (dgat && !dei16 && (d_vd == d_vs2 || (d_ir[14:12] == OPIVV && d_vd == d_vs1))) ||   // vrgather
                       // vrgatherei16: vs1's group of d_n / 2 registers (at least 1), aligned to that
                       (dei16 && (d_vd == d_vs2 || (d_vs1 & (d_ni - 5'd1)) != 5'd0 ||
                                  (d_vs1 >= d_vd && d_vs1 < d_vd + d_n) || (d_vd >= d_vs1 && d_vd < d_vs1 + d_ni))) ||
                       (dcomp && (d_vd == d_vs2 || (d_vs1 >= d_vd && d_vs1 < d_vd + d_n))) ||   // vcompress
                       // vmadc/vmsbc: the mask register vd inside a source group other than as its lowest
                       (dcarry && dmk && (({1'b0, d_vs2} < {1'b0, d_vd} && {1'b0, d_vd} < {1'b0, d_vs2} + {1'b0, d_n}) ||
                                          (dvs1 && {1'b0, d_vs1} < {1'b0, d_vd} && {1'b0, d_vd} < {1'b0, d_vs1} + {1'b0, d_n})));
    // widening and narrowing (the model's group(), widen_overlap and no_overlap): the wide
    // group has EMUL = 2 LMUL (d_nw registers; LMUL = 8 faults), a narrow destination may not
    // overlap the wide source unless it is vd = vs2, a wide destination may overlap a narrow
    // source (of d_ns registers) only in its highest part and only when LMUL >= 1 (vf4: >= 4)
    wire       d_frac = d_vt[2];
    wire [4:0] d_nw = d_frac ? 5'd1 : d_n << 1;
    wire [4:0] d_nx = dext4 ? d_n >> 2 : d_n >> 1;                  // vs2 of vzext/vsext: LMUL / factor
    wire [4:0] d_ns = !dext ? d_n : d_nx == 5'd0 ? 5'd1 : d_nx;
    wire       d_whole = !d_frac && (!dext || d_nx != 5'd0);
    wire [4:0] d_nd = dwop ? d_nw : d_n;                            // destination registers
    wire [5:0] d_vde = {1'b0, d_vd} + {1'b0, d_nd};                 // ... end (exclusive)
    function automatic bad_ovl(input [4:0] src, input [4:0] ns, input [5:0] vde, input [4:0] vd, input whole);
        bad_ovl = {1'b0, vd} < {1'b0, src} + {1'b0, ns} && {1'b0, src} < vde &&
                  !(whole && {1'b0, src} == vde - {1'b0, ns});
    endfunction
    wire [1:0] d_sew = d_vt[4:3];
    wire       d_wide_bad = (dwop || dnar) && ((!d_frac && d_vt[1:0] == 2'd3) ||          // EMUL 16
                            (d_vd & (d_nd - 5'd1)) != 5'd0 ||
                            ((dwsrc || dnar) && (d_vs2 & (d_nw - 5'd1)) != 5'd0) ||
                            (dwop && !dwsrc && bad_ovl(d_vs2, d_n, d_vde, d_vd, d_whole)) ||
                            (dwop && dvs1 && bad_ovl(d_vs1, d_n, d_vde, d_vd, d_whole)) ||
                            (dnar && d_vd != d_vs2 && {1'b0, d_vd} < {1'b0, d_vs2} + {1'b0, d_nw} &&
                                      {1'b0, d_vs2} < {1'b0, d_vd} + {1'b0, d_n}));
    wire       d_ext_bad = dext && ((d_vs2 & (d_ns - 5'd1)) != 5'd0 || bad_ovl(d_vs2, d_ns, d_vde, d_vd, d_whole));
    // SEW: widening and narrowing fault at 32 (64-bit elements) and run at 16 (at 8: refused);
    // vzext/vsext fault where SEW / factor < 8 and run at 32 (vf2 at 16: refused)
    wire       d_sew_bad = ((dwop || dnar || dwred) && d_sew32) || (dext && (dext4 ? !d_sew32 : d_sew == 2'd0));
    wire       d_sew_ok = (dwop || dnar) ? d_sew <= 2'd1 : (dsubw || danysew) ? d_sew != 2'd3 :
                          (dl || dst) ? 1'b1 : dext ? d_sew != 2'd0 : d_sew32;
    // memory: the first and last element's addresses in DTCM and aligned (stride too).
    // DW bits hold every offset and bound below exactly: d_off = x[rs1] - DTCM_BASE and the
    // distances to DTCM's ends lie within +-(2^32 + 2^31) (DTCM_SIZE < 2^31).
    localparam integer DW = 34;
    wire signed [DW-1:0] d_off = $signed({2'd0, d_xa}) - $signed({2'd0, DTCM_BASE});
    wire [2:0] d_eb = 3'd1 << dmeew;                                // element bytes (8/16/32-bit accesses;
                                                                    // a whole-register store: 1)
    // the model checks a whole-register access's first and last element of that size
    wire [VW+1:0] d_vchk = dwhole ? (VW + 2)'(d_vl0) << (2'd2 - dmeew) : (VW + 2)'(d_vl0);
    wire [1:0] d_am = 2'(d_eb - 3'd1);                              // ... alignment mask
    wire signed [DW-1:0] d_step = (dstr || d_useg) ? {{(DW-32){d_xbq[31]}}, d_xbq} : DW'(d_eb);
    wire signed [DW-1:0] d_fsp = DW'(d_nfm) << (didx ? d_vt[4:3] : dmeew);   // a segment's fields after its first
    wire signed [DW-1:0] d_maxoff = DW'(DTCM_SIZE) - DW'(d_eb);
    // the first and last element in DTCM: both between the bounds below (d_qlo, d_qhi), which
    // hold for every element, so no multiple of the stride is formed
    wire       d_rout;
    wire       d_rbad = (d_xa[1:0] & d_am) != 2'd0 || (dstr && d_vl > 1 && (d_xb[1:0] & d_am) != 2'd0) || d_rout;
    // a masked access: only the active elements' addresses count (the model's rule); when
    // they are not all good, each element is checked against v0, which must be final:
    // nothing queued or issuing writes v0 (S2's write is bypassed), else d_pend
    wire       d_mm = (dl || dst) && !didx && !d_ir[25];
    wire       d_mbad, v0_pend;
    // (a fault-only-first load faults only on element 0; a later bad active element trims vl to it)
    wire       d_mem = (dl || dst) && !didx && d_vchk != 0 && d_rbad &&
                       (dff ? (!d_mm || !v0_pend) && d_ffk == 0 : (!d_mm || (!v0_pend && d_mbad)));
    assign d_ffl = d_legal && dff;
    assign d_ffvl = d_ffk;
    // the registers an instruction writes (its scoreboard entry): [vd, vd + count), the count
    // its destination group's (a mask, a reduction, vmv.s.x, vlm: 1; a load: NF * EMUL; a
    // widening: 2 LMUL), none for stores and moves to a scalar; from the fields and vtype
    // alone, not vl: a superset at vl = 0, in tu tails, for an empty vslideup (README)
    wire       d_wb = dlanes || dl || dfroms || dred;
    wire [7:0] d_wcnt = !d_wb ? 8'd0 : (dmk || dmlog || dmsf || dred || dfroms) ? 8'd1 :
                        (dl && (d_acc || didx)) ? d_sgr : 8'(d_nd);
    wire [31:0] d_wset = 32'(((64'd1 << d_wcnt) - 64'd1) << d_vd);
    // an indexed access checks every active element's address x[rs1] + offset (the offsets
    // zero-extended) from the index group, read (S2 bypassed) once no instruction queued or
    // issuing writes a register of that group or, masked, v0 (d_drain holds the core until
    // then; its checks and faults wait too, so that they are the model's after its wait)
    wire       d_ibad;
    wire [31:0] pend_w;                                              // written by the queue and S1
    // (the offsets' EMUL registers from vs2, 8 when EMUL is over 8; none at vill: those fault
    // at once, as the model's)
    wire [3:0] d_nr = d_elog > 4'sd3 ? 4'd8 : 4'(d_ne);
    wire [31:0] d_rset = d_vill ? 32'd0 : 32'(((64'd1 << d_nr) - 64'd1) << d_vs2) | {31'd0, !d_ir[25]};
    wire       d_go = !didx || (pend_w & d_rset) == 32'd0;
    // an indexed load whose destination overlaps the offsets other than as RVV allows (vd = vs2
    // with SEW <= EEW, or a wider vd's highest part with the offsets' EMUL >= 1) is reserved: its
    // elements would be written before later offsets are read, which the model does not do
    wire [5:0] d_dend = {1'b0, d_vd} + {1'b0, d_n}, d_iend = {1'b0, d_vs2} + {1'b0, d_ne};
    wire       d_iovl = dl && didx && !dseg && {1'b0, d_vd} < d_iend && {1'b0, d_vs2} < d_dend &&
                        !(d_vd == d_vs2 && {1'b0, d_vt[4:3]} <= {1'b0, dmeew}) &&
                        !({1'b0, d_vt[4:3]} > {1'b0, dmeew} && !d_elog[3] && d_iend == d_dend);
    assign d_drain = d_legal && !d_go;
    assign d_fault = d_legal && d_go && ((didx && d_vl != 0 && d_ibad) || (d_vill && !d_whl) || (dwmv && (d_vs2 & (d_n - 5'd1)) != 5'd0) || (dfp && (!d_sew32 || d_frm > 3'd4)) || d_sew_bad || d_grp || d_mask ||
                                 d_ovl || d_mem || d_seg_bad || d_wide_bad || d_ext_bad || d_emul_bad || d_ei_bad);
    assign d_unsup = d_legal && d_go && (!d_vill || d_whl) && !dfp && ((!d_sew_ok && !d_whl) || d_iovl);
    assign d_pend = d_legal && d_mm && d_vl != 0 && d_rbad && v0_pend;
    assign d_to_scalar = dtos;

    // ------------------------------------------------------------------ queue
    reg  [QW-1:0] q [0:DEPTH-1];
    reg  [DEPTH-1:0] q_isst, q_ismem;
    reg  [31:0]   q_w [0:DEPTH-1];     // each entry's written registers
    reg  [QA-1:0] qh, qt;
    reg  [QA:0]   qn;
    wire [QW-1:0] d_entry = {d_irq, d_vle, d_vte, d_frm, d_vxrm, d_xa, d_xbq, d_fa};
    integer i;
    reg any_st, any_mem;
    reg [31:0] any_w;
    always @(*) begin
        any_st = 1'b0;
        any_mem = 1'b0;
        any_w = 32'd0;
        for (i = 0; i < DEPTH; i = i + 1)
            if ((QA + 1)'(i) < qn) begin
                any_st = any_st | q_isst[(32'(qh) + i) % DEPTH];
                any_mem = any_mem | q_ismem[(32'(qh) + i) % DEPTH];
                any_w = any_w | q_w[(32'(qh) + i) % DEPTH];
            end
    end

    // ------------------------------------------------------------------ S1
    reg          s1_v;
    reg  [31:0]  s1_w;                // the registers the instruction in S1 writes
    reg  [31:0]  e_ir;
    reg  [VW-1:0] e_vl;
    reg  [7:0]   e_vt;
    reg  [2:0]   e_frm;
    reg  [1:0]   e_vxrm;
    reg  [31:0]  e_xa, e_xb, e_fa;
    reg  [31:0]  e_seq, n_seq, s2_seq;        // trace numbering (no effect on the datapath)
    reg  [VW-1:0] bc;                 // beat (strided: element) of this cycle
    reg  [31:0]  saddr;               // strided: this element's address (a segment's first field)
    reg  [2:0]   sf;                  // a segment access: the field of this cycle
    reg  [VW-1:0] sgi;                // ... the element (segment), its fields in consecutive cycles
    wire [VW-1:0] ebc;                // the element of a strided or indexed access this cycle
    wire el, est, estr, elanes, efp, etos, efroms, evs1, evs2, eswap, enp, ena, evd, elegal, ered, eord, ewred, ediv, emk;
    wire emlog, esl, esup, esone, emerge, evid, eiota, emq, emsf, egat, ecomp, eei16;
    wire ewop, ewsrc, enar, eext, eext4, esa, esb, esubw, eanysew;
    wire [4:0] elop;
    wire [1:0] ebsel;
    coral_vdec u_edec (.ir(e_ir), .legal(elegal), .ld(el), .st(est), .strided(estr_s), .indexed(eidx), .seg(eseg), .ff(eff), .carry(ecarry), .lanes(elanes),
                       .fp(efp), .to_scalar(etos), .from_scalar(efroms), .red(ered), .ord(eord), .wred(ewred), .div(ediv), .mk(emk), .mlog(emlog), .slide(esl), .slide_up(esup), .slide_one(esone), .merge(emerge), .vid(evid), .iota(eiota), .mq(emq), .msf(emsf), .gat(egat), .comp(ecomp), .ei16(eei16),
                       .wop(ewop), .wsrc(ewsrc), .nar(enar), .ext(eext), .ext4(eext4), .sa(esa), .sb(esb),
                       .subw(esubw), .anysew(eanysew), .meew(emeew), .whole(ewhole), .wmv(ewmv), .mskm(emskm), .lop(elop), .bsel(ebsel),
                       .reads_vs1(evs1), .reads_vs2(evs2), .swap(eswap), .neg_prod(enp),
                       .neg_add(ena), .uses_vd(evd));
    // an indexed access runs as a strided one (an element per cycle), its address from the offsets
    assign estr = estr_s || eidx;
    assign ebc = eseg ? sgi : bc;
    wire         pass_end = sgi == e_vl - VW'(1);                  // a segment access's last element
    wire [4:0]   sfo = 5'(sf) * e_n;                               // ... the field's group (from vd)
    wire [4:0]   e_vd = e_ir[11:7], e_vs1 = e_ir[19:15], e_vs2 = e_ir[24:20];
    wire         e_vm = e_ir[25], e_vta = e_vt[6], e_vma = e_vt[7];
    wire [4:0]   e_n = e_vt[2] ? 5'd1 : 5'd1 << e_vt[1:0];
    wire [4:0]   e_nd = ewop && !e_vt[2] ? e_n << 1 : e_n;     // destination registers (widening: 2 LMUL)
    // SEW 8 and 16 (the subw instructions): a beat is still VLEN bits, 2 or 4 elements a lane
    wire [1:0]   e_sew = e_vt[4:3];
    // widening and narrowing from SEW 8 and vzext/vsext.vf2 at SEW 16 run as 16-bit operations
    // (e_osew) on 8-bit sources extended in S1 (narrowing: on the 16-bit source, then packed)
    wire         e_w8 = ((ewop || enar) && e_sew == 2'd0) || (eext && !eext4 && e_sew == 2'd1);
    // vwredsum(u) sums its SEW elements in pairs at 2 SEW (S1) and reduces those (S2): its
    // accumulators, tree and write are 2 SEW's, its beats SEW's (e_bsh)
    wire [1:0]   e_osew = e_w8 ? 2'd1 : ewred ? e_sew + 2'd1 : e_sew;
    wire         e_sub = (esubw || el || est || e_w8) && e_osew != 2'd2;   // (memory: SEW = EEW here)
    wire [1:0]   e_esh = e_sub ? 2'd2 - e_osew : 2'd0;             // log2(elements a lane)
    wire [2:0]   e_bsh = {1'b0, e_esh} + {2'b00, ewred};
    wire [VW-1:0] beats = (e_vl + ((VW'(NB) << e_bsh) - VW'(1))) >> (LNB + 32'(e_bsh));
    // a reduction: its beats, then log2(NB) cycles of the lane tree
    wire [VW-1:0] rbeats = e_vl == 0 ? VW'(1) : beats;
    // a unit-stride load (8 / 16 bits, whole-register, vlm) from an address that is no multiple
    // of 4: beat b's bytes start inside word b NB of the access and end inside word (b + 1) NB.
    // When its bytes span more than NB words, S1 reads NB words a cycle from the first one's
    // (one per bank, as aligned) and S2 writes beat b a cycle late, from the previous cycle's
    // words (ld_prev) and this one's first: the access holds S1 for one cycle more than its beats
    wire [VW+1:0] u_bytes = (VW + 2)'(e_vl) << e_vt[4:3];
    wire          u_span = el && !estr && e_xa[1:0] != 2'd0 && (VW + 2)'(e_xa[1:0]) + u_bytes > (VW + 2)'(4 * NB);
    wire          rtree = !eord && bc >= rbeats;                   // a reduction's tree cycles
    wire [VW-1:0] rhalf = (VW'(NB) << e_esh) >> (bc - rbeats + VW'(1));   // ... elements k and k + rhalf added
    // vfredosum: one element per cycle through lane 0's adder, in element order
    wire [VW-1:0] dur = ered ? (eord ? (e_vl == 0 ? VW'(1) : e_vl) : rbeats + VW'(LNB) + VW'(e_esh)) : ediv ? rbeats * VW'(DIVC) :
                        (e_vl == 0 || etos || efroms || emlog || emsf) ? VW'(1) :
                        eseg ? e_vl * VW'({1'b0, e_ir[31:29]} + 4'd1) : (estr || egat || ecomp) ? e_vl : beats + VW'(u_span);
    wire         s1_last = bc == dur - VW'(1);
    wire         wb = elanes || el || efroms || ered;    // goes on to S2
    wire         free = !s1_v || s1_last;

    // ------------------------------------------------------------------ register file
    reg  [VLEN-1:0] vrf [0:31];
    reg  [31:0]     vones;             // register reads as all ones (a tail register)
    reg             s2_v, s2_we;
    reg  [4:0]      s2_reg;
    reg  [31:0]     s2_marks;
    reg  [VLEN-1:0] wval;              // S2's write
    function automatic [VLEN-1:0] rd(input [4:0] r);
        if (s2_v && s2_we && s2_reg == r) rd = wval;
        else if (vones[r] || (s2_v && s2_marks[r])) rd = ONES;
        else rd = vrf[r];
    endfunction
    wire [VW-1:0] bt = ediv ? bc / VW'(DIVC) : eord ? bc >> LNB : u_span ? bc - VW'(1) : bc;  // the beat (a divide
                                                        // holds each DIVC cycles, vfredosum NB; u_span: a cycle late)
    wire        dstart = ediv && bc % VW'(DIVC) == 0;   // ... and starts the lanes' dividers in its first
    wire        dlast = !ediv || bc % VW'(DIVC) == VW'(DIVC - 1);  // ... and writes it after its last
    // elements a register (EPR: NB << e_esh) and VLMAX (fractional LMUL at SEW 8 / 16: EPR / 2, 4, 8)
    wire [31:0] e_epr = 32'(NB) << e_esh;
    wire [31:0] e_vlmax = e_vt[2] ? e_epr >> (3'd0 - e_vt[2:0]) : 32'(e_n) * e_epr;
    // element k (mod the elements of a register) of v, SEW bits (e_sub: e_sew's) zero-extended
    function automatic [31:0] elem_at(input [VLEN-1:0] v, input [LNB+1:0] k, input sub, input [1:0] sw);
        if (sub && sw == 2'd0) elem_at = {24'd0, v[8 * k[LNB+1:0] +: 8]};
        else if (sub) elem_at = {16'd0, v[16 * k[LNB:0] +: 16]};
        else elem_at = v[32 * k[LNB-1:0] +: 32];
    endfunction
    // slides: element e of vd takes vs2[e + off] (down) or vs2[e - off] (up); a beat's EPR
    // elements come from two registers of vs2's group, lo and lo + 1, rotated by off mod EPR
    wire [31:0] s_off = esone ? 32'd1 : e_ir[14:12] == OPIVI ? {27'd0, e_ir[19:15]} : e_xa;
    wire [31:0] s_offq = s_off >> (LNB + 32'(e_esh));
    wire [4:0]  s_q = s_offq[4:0];
    wire [LNB-1:0] s_rr = s_off[LNB-1:0];
    wire [LNB+1:0] s_rrE = (LNB + 2)'(s_off & (e_epr - 32'd1));   // (SEW 8 / 16)
    wire [4:0]  s_lo = esup ? e_vs2 + bt[4:0] - s_q - 5'd1 : e_vs2 + bt[4:0] + s_q;
    wire        s_none = esup && !esone && {{(32 - VW){1'b0}}, e_vl} <= s_off;  // vslideup: nothing written
    // gathers and vcompress: element bc each cycle (of vd, of vs2); a gather's index comes
    // from vs1[bc] (.vv; read on port b), x[rs1] or the unsigned immediate, and selects the
    // register of vs2's group read on port a (0 past VLMAX); vcompress reads vs1's bit bc
    // and packs vs2[bc] at position c_pos (carried in ccnt) of vd
    wire [VW-1:0] bce = bc >> (LNB + 32'(e_esh));
    // widening and vzext/vsext: beat bt's NB elements are part bt mod 2 (mod 4) of register
    // bt / 2 (bt / 4) of a narrow source group; narrowing: of the destination group
    wire [VW-1:0] bnar = eext4 ? bt >> 2 : (eext || (ewop && !ewsrc)) ? bt >> 1 : bt;
    wire [VLEN-1:0] op_a, op_b;
    wire [31:0] g_idx = eei16 ? {16'd0, op_b[16 * bc[LNB:0] +: 16]} : e_ir[14:12] == OPIVV ? elem_at(op_b, bc[LNB+1:0], e_sub, e_sew) :
                        e_ir[14:12] == OPIVI ? {27'd0, e_ir[19:15]} : e_xa;
    wire        g_in = g_idx < e_vlmax;
    wire [31:0] g_rg = g_idx >> (LNB + 32'(e_esh));                     // ... its register in vs2's group
    wire [31:0] gval = g_in ? elem_at(op_a, g_idx[LNB+1:0], e_sub, e_sew) : 32'd0;
    reg  [VW-1:0] ccnt;
    wire [VW-1:0] c_pos = bc == {VW{1'b0}} ? {VW{1'b0}} : ccnt;
    wire        c_sel = ecomp && bc < e_vl && op_b[bc[$clog2(VLEN)-1:0]];
    wire [VW-1:0] c_reg = c_pos >> (LNB + 32'(e_esh));
    wire [VW-1:0] c_slot = c_pos & VW'(e_epr - 32'd1);
    // an indexed access: element bc's offset, of emeew bits, from register bc / (offsets a register) of vs2's group
    wire [VW-1:0] bci = ebc >> (LNB + 2 - 32'(emeew));
    wire [4:0]  r_a = eidx ? e_vs2 + bci[4:0] : esl ? s_lo : eiota ? e_vs2 : egat ? e_vs2 + g_rg[4:0] : ecomp ? e_vs2 + bce[4:0] :
                      e_vs2 + bnar[4:0];
    wire [VW-1:0] bce16 = bc >> (LNB + 1);           // vrgatherei16: 2 NB indices a register
    wire [4:0]  r_b = esl ? s_lo + 5'd1 : eei16 ? e_vs1 + bce16[4:0] : egat ? e_vs1 + bce[4:0] : ecomp ? e_vs1 :
                      e_vs1 + (ewop || enar ? bt[5:1] : bt[4:0]);
    wire [VW-1:0] bc_reg = estr ? ebc >> (LNB + 32'(e_esh)) : egat ? bce : ecomp ? c_reg : enar ? bt >> 1 : bt;   // per element: the element's register
    wire [4:0]  r_c = (ered || emk || emlog || emsf) ? e_vd : e_vd + sfo + bc_reg[4:0];
    assign op_a = rd(r_a);
    assign op_b = rd(r_b);
    wire [VLEN-1:0] op_c = rd(r_c), v0 = rd(5'd0);
    wire [31:0] eaddr = (eidx ? e_xa + elem_at(op_a, ebc[LNB+1:0], emeew != 2'd2, emeew) : saddr) + (32'(sf) << e_sew);   // the element's address
    assign pend_w = any_w | (s1_v ? s1_w : 32'd0);
    assign v0_pend = pend_w[0];
    // A unit-stride or strided access's elements i < VLEN (every access checks at most VLEN:
    // d_vchk <= VLEN): the DTCM offset d_off + d_step * i of element i lies in [0, d_top]
    // exactly for the i between two bounds, each a quotient of at most log2(VLEN) bits
    // (restoring division, saturating: a quotient past the last element's index marks them
    // all), not multiples of the stride. Stride >= 0: bad below, i <= (-off - 1) / |stride|
    // when off < 0; bad above, i > (top - off) / |stride| (all when top < off). Stride < 0
    // mirrors them. An unmasked access is checked at its first and last element (the offsets
    // are monotonic in i); a masked or fault-only-first one at each element below vl.
    // Alignment repeats every 4 elements.
    localparam integer LV = $clog2(VLEN);
    // x >= 0 (below 2^33), dv = |stride| (at most 2^31); r >= dv * 2^b compared as
    // r >> b >= dv, so no step is wider than x
    function automatic [LV-1:0] quot(input [DW-2:0] x, input [31:0] dv);
        reg [DW-2:0] r;
        integer b;
        begin
            r = x;
            quot = {LV{1'b0}};
            for (b = LV - 1; b >= 0; b = b - 1)
                if ((r >> b) >= (DW-1)'(dv)) begin
                    r = r - ((DW-1)'(dv) << b);
                    quot[b] = 1'b1;
                end
        end
    endfunction
    wire signed [DW-1:0] d_top = d_maxoff - d_fsp;
    wire       d_sneg = d_step < 0;
    wire [31:0] d_sabs = d_sneg ? 32'(-d_step) : 32'(d_step);
    wire signed [DW-1:0] d_xlo = d_sneg ? d_off - d_top - 1 : -d_off - 1;   // >= 0: bad up to quotient
    wire signed [DW-1:0] d_xhi = d_sneg ? d_off : d_top - d_off;           // < 0: all bad; else bad past quotient
    reg  [LV-1:0] qlo, qhi;
    always @(*) begin
        qlo = {LV{1'b0}};
        qhi = {LV{1'b0}};
        if ((dl || dst) && !didx) begin   // (so that the simulator skips this on other instructions)
            qlo = quot(d_xlo[DW-2:0], d_sabs);
            qhi = quot(d_xhi[DW-2:0], d_sabs);
        end
    end
    function automatic out_at(input [LV-1:0] ei);   // element ei's offset outside [0, d_top]
        out_at = (d_xlo >= 0 && ei <= qlo) || d_xhi < 0 || ei > qhi;
    endfunction
    assign d_rout = out_at({LV{1'b0}}) || out_at(LV'(d_vchk - (VW + 2)'(1)));
    reg  [1:0]  s_ea [0:3];
    reg        sbad;                   // element mi's address is outside DTCM or misaligned
    reg        mbad;
    reg [VW-1:0] ffk;                  // a fault-only-first load's first active bad element (segment), else vl
    integer mi;
    always @(*) begin
        mbad = 1'b0;
        ffk = d_vl;
        sbad = 1'b0;
        for (mi = 0; mi < 4; mi = mi + 1) s_ea[mi] = 2'd0;
        if ((d_mm || (d_legal && dff)) && d_rbad) begin   // (so that the simulator skips this on other instructions)
            for (mi = 0; mi < 4; mi = mi + 1) s_ea[mi] = d_xa[1:0] + 2'(d_step[1:0] * 2'(mi));
            for (mi = VLEN - 1; mi >= 0; mi = mi - 1) begin
                sbad = out_at(LV'(mi)) || (s_ea[mi % 4] & d_am) != 2'd0;
                if (VW'(mi) < d_vl && (d_ir[25] || v0[mi]) && sbad) begin
                    mbad = 1'b1;
                    ffk = VW'(mi);
                end
            end
        end
    end
    assign d_mbad = mbad;
    assign d_ffk = ffk;
    // an indexed access's active elements: x[rs1] + offset in DTCM and SEW-aligned, i.e. the
    // zero-extended EEW-bit offset within [-d_off, d_itop - d_off], compared at EEW bits (each
    // bound is clamped to the EEW range once: all or none of the elements may break it). The
    // offsets' group (at most 8 registers, aligned: else d_grp) lies in one aligned block of 8
    // registers, read and shifted down to the group's first register.
    wire [2:0] d_sb = 3'd1 << d_vt[4:3];                             // data element bytes
    wire signed [DW-1:0] d_ilo = -d_off, d_ihi = DW'(DTCM_SIZE) - DW'(d_sb) - d_fsp - d_off;
    wire [DW-1:0] d_emax = (DW'(1) << (32'd8 << dmeew)) - DW'(1);    // the largest offset of EEW bits
    wire       i_lon = d_ilo <= 0, i_loa = d_ilo > $signed(d_emax);  // lower bound: no / every offset below
    wire       i_hia = d_ihi < 0, i_hin = d_ihi >= $signed(d_emax);  // upper bound: every / no offset above
    reg        ibad;
    reg [8*VLEN-1:0] igrp;
    reg        i_bad;
    integer ii;
    always @(*) begin
        ibad = 1'b0;
        i_bad = 1'b0;
        igrp = {(8 * VLEN){1'b0}};
        if (d_legal && didx) begin    // (so that the simulator skips the loop on other instructions)
            for (ii = 0; ii < 8; ii = ii + 1) igrp[VLEN*ii +: VLEN] = rd({d_vs2[4:3], 3'(ii)});
            igrp = igrp >> (VLEN * 32'(d_vs2[2:0]));
            for (ii = 0; ii < VLEN; ii = ii + 1) begin
                // element ii's offset, if the group can hold it (EEW 16: ii < VLEN / 2; 32: VLEN / 4;
                // an element past that is past vl)
                if (dmeew == 2'd0)
                    i_bad = (!i_lon && (i_loa || igrp[8*ii +: 8] < d_ilo[7:0])) ||
                            (!i_hin && (i_hia || igrp[8*ii +: 8] > d_ihi[7:0])) ||
                            ((d_xa[1:0] + igrp[8*ii +: 2]) & 2'(d_sb - 3'd1)) != 2'd0;
                else if (dmeew == 2'd1 && ii < VLEN / 2)
                    i_bad = (!i_lon && (i_loa || igrp[16*ii +: 16] < d_ilo[15:0])) ||
                            (!i_hin && (i_hia || igrp[16*ii +: 16] > d_ihi[15:0])) ||
                            ((d_xa[1:0] + igrp[16*ii +: 2]) & 2'(d_sb - 3'd1)) != 2'd0;
                else if (dmeew == 2'd2 && ii < VLEN / 4)
                    i_bad = (!i_lon && (i_loa || igrp[32*ii +: 32] < d_ilo[31:0])) ||
                            (!i_hin && (i_hia || igrp[32*ii +: 32] > d_ihi[31:0])) ||
                            ((d_xa[1:0] + igrp[32*ii +: 2]) & 2'(d_sb - 3'd1)) != 2'd0;
                else
                    i_bad = 1'b0;
                if (VW'(ii) < d_vl && (d_ir[25] || v0[ii]) && i_bad)
                    ibad = 1'b1;
            end
        end
    end
    assign d_ibad = ibad;
    assign dbg_rdata = vones[dbg_addr[LNB +: 5]] ? 32'hFFFF_FFFF : vrf[dbg_addr[LNB +: 5]][32 * dbg_addr[LNB-1:0] +: 32];

    // ------------------------------------------------------------------ S1: beat set-up
    wire [VW-1:0] e0 = bt << (LNB + 32'(e_esh));                    // first element of the beat
    wire [VW-1:0] bslot = ebc & ((VW'(NB) << e_esh) - VW'(1));       // strided: the element's slot
    wire [VW-1:0] last_reg = ecomp ? c_reg : (e_vl - VW'(1)) >> (LNB + 32'(e_esh) + (enar ? 1 : 0));
    // SEW 8 / 16: each element's mask/tail choice and v0 bit (element k of the beat: byte k
    // at SEW 8, bytes 2k, 2k + 1 at SEW 16)
    reg  [1:0]  selE [0:4*NB-1];
    reg  [4*NB-1:0] mbE, actE;
    reg  [VW-1:0] ee;
    integer k4;
    always @(*) begin
        ee = {VW{1'b0}};
        for (k4 = 0; k4 < 4 * NB; k4 = k4 + 1) begin
            selE[k4] = S_OLD;
            mbE[k4] = 1'b0;
            actE[k4] = 1'b0;
        end
        if (e_sub)                       // (so that the simulator skips the loop on other instructions)
            for (k4 = 0; k4 < 4 * NB; k4 = k4 + 1) begin
                ee = e0 + VW'(k4);
                mbE[k4] = v0[ee[$clog2(VLEN)-1:0]];
                selE[k4] = ee < e_vl ? ((e_vm || emerge || ecarry || mbE[k4]) ? S_NEW : (e_vma ? S_ONES : S_OLD)) :
                                       (e_vta ? S_ONES : S_OLD);
                actE[k4] = ewred ? k4 < 2 * NB && wact[k4 % (2 * NB)] : ee < e_vl && (e_vm || mbE[k4]);
                if (efroms || ered) selE[k4] = k4 == 0 ? S_NEW : e_vta ? S_ONES : S_OLD;  // vmv.s.x, vred*: element 0
                if (esup && !esone && {{(32 - VW){1'b0}}, ee} < s_off && ee < e_vl) selE[k4] = S_OLD;  // below the offset
                if (ecomp)                       // vcompress: element c_pos, on the last cycle the tail from it
                    selE[k4] = (c_sel && VW'(k4) == c_slot) ? S_NEW :
                               (s1_last && e_vta && (VW'(k4) > c_slot || (!c_sel && VW'(k4) == c_slot))) ? S_ONES : S_OLD;
                if (estr || egat)                // strided, gathers: element bc, slot bc mod (elements a register)
                    selE[k4] = VW'(k4) != bslot ? ((ebc == e_vl - VW'(1) && VW'(k4) > bslot && e_vta) ? S_ONES : S_OLD) :
                               (e_vm || v0[ebc[$clog2(VLEN)-1:0]]) ? S_NEW : (e_vma ? S_ONES : S_OLD);
            end
    end
    reg  [1:0]  sel [0:NB-1];
    reg  [NB-1:0] ract;                                              // reduction: active elements of the beat
    reg  [31:0] marks;
    reg  [VW-1:0] e;
    reg  [VLEN-1:0] slid;              // a slide's beat
    reg  [LNB:0] sj;
    reg  [31:0] es;
    integer j;
    always @(*) begin
        for (j = 0; j < NB; j = j + 1) begin
            e = e0 + VW'(j);
            ract[j] = ewred ? wact[j] : e < e_vl && (e_vm || v0[e[$clog2(VLEN)-1:0]]);
            if (efroms || ered) sel[j] = j == 0 ? S_NEW : (e_vta ? S_ONES : S_OLD);
            else if (ecomp) sel[j] = (c_sel && j[LNB-1:0] == c_pos[LNB-1:0]) ? S_NEW :
                                     (s1_last && e_vta && (j[LNB-1:0] > c_pos[LNB-1:0] ||
                                      (!c_sel && j[LNB-1:0] == c_pos[LNB-1:0]))) ? S_ONES : S_OLD;
            else if (estr || egat) sel[j] = j[LNB-1:0] != ebc[LNB-1:0] ?
                                    ((ebc == e_vl - VW'(1) && j[LNB-1:0] > ebc[LNB-1:0] && e_vta) ? S_ONES : S_OLD) :
                                    (e_vm || v0[ebc[$clog2(VLEN)-1:0]]) ? S_NEW : (e_vma ? S_ONES : S_OLD);
            else if (esup && !esone && {{(32 - VW){1'b0}}, e} < s_off && e < e_vl) sel[j] = S_OLD;  // below the offset
            else if (e < e_vl) sel[j] = (e_vm || emerge || ecarry || v0[e[$clog2(VLEN)-1:0]]) ? S_NEW : (e_vma ? S_ONES : S_OLD);
            else sel[j] = e_vta ? S_ONES : S_OLD;
            // the slide's element: lane (j +- off) mod NB of lo or lo + 1 (read only for slides:
            // under esl, so that the simulator skips it on other instructions)
            sj = {(LNB + 1){1'b0}};
            es = 32'd0;
            slid[32*j +: 32] = 32'd0;
            if (esl) begin
                sj = esup ? {1'b0, LNB'(j)} - {1'b0, s_rr} + (LNB + 1)'(NB) : {1'b0, LNB'(j)} + {1'b0, s_rr};
                es = {{(32 - VW){1'b0}}, e} + s_off;        // slide down: the source element
                slid[32*j +: 32] = sj[LNB] ? op_b[32 * sj[LNB-1:0] +: 32] : op_a[32 * sj[LNB-1:0] +: 32];
                if (!esup && (es < {{(32 - VW){1'b0}}, e} || es >= e_vlmax)) slid[32*j +: 32] = 32'd0;
                if (esone && (esup ? e == 0 : e == e_vl - VW'(1))) slid[32*j +: 32] = efp ? e_fa : e_xa;
            end
        end
        marks = 32'd0;
        if ((eseg ? pass_end : s1_last) && e_vta && e_vl != 0 && !s_none && ((elanes && !emk && !emlog && !emsf) || el))
            for (j = 0; j < 32; j = j + 1)
                if (j > 32'(e_vd + sfo) + 32'(last_reg) && j < 32'(e_vd + sfo) + 32'(e_nd)) marks[j] = 1'b1;
    end

    // vwredsum(u): beat bt's source elements summed in pairs, each extended to 2 SEW (signed:
    // vwredsum), an inactive one as 0; a pair with an active element is active
    reg  [VLEN-1:0] wpair;
    reg  [2*NB-1:0] wact;
    reg  [VW-1:0]   wel;
    reg             wal, wah;
    reg  [31:0]     wxl, wxh;
    integer wj;
    always @(*) begin
        wpair = {VLEN{1'b0}};
        wact = {(2 * NB){1'b0}};
        wel = {VW{1'b0}};
        {wal, wah, wxl, wxh} = 66'd0;
        if (ewred)                       // (so that the simulator skips the loop on other instructions)
            for (wj = 0; wj < 2 * NB; wj = wj + 1)
                if (wj < (NB << e_esh)) begin
                    wel = (bt << (LNB + 32'(e_bsh))) + VW'(2 * wj);
                    wal = wel < e_vl && (e_vm || v0[wel[$clog2(VLEN)-1:0]]);
                    wah = wel + VW'(1) < e_vl && (e_vm || v0[wel[$clog2(VLEN)-1:0] + 1]);
                    if (e_sew == 2'd0) begin
                        wxl = {{24{e_ir[26] && op_a[16*wj + 7]}}, op_a[16*wj +: 8]};
                        wxh = {{24{e_ir[26] && op_a[16*wj + 15]}}, op_a[16*wj + 8 +: 8]};
                        wpair[16*wj +: 16] = (wal ? wxl[15:0] : 16'd0) + (wah ? wxh[15:0] : 16'd0);
                    end else begin
                        wxl = {{16{e_ir[26] && op_a[32*(wj % NB) + 15]}}, op_a[32*(wj % NB) +: 16]};
                        wxh = {{16{e_ir[26] && op_a[32*(wj % NB) + 31]}}, op_a[32*(wj % NB) + 16 +: 16]};
                        wpair[32*(wj % NB) +: 32] = (wal ? wxl : 32'd0) + (wah ? wxh : 32'd0);
                    end
                    wact[wj] = wal || wah;
                end
    end
    // a slide's beat at SEW 8 / 16: element k of the beat from element (k +- off) mod EPR of lo or lo + 1
    reg  [VLEN-1:0] slidE;
    reg  [LNB+2:0]  sjE, sjW;
    reg  [31:0]     esE, svE;
    reg  [VW-1:0]   eeS;
    integer kS;
    always @(*) begin
        slidE = {VLEN{1'b0}};
        sjE = {(LNB + 3){1'b0}};
        sjW = {(LNB + 3){1'b0}};
        esE = 32'd0;
        svE = 32'd0;
        eeS = {VW{1'b0}};
        if (esl && e_sub)                // (so that the simulator skips the loop on other instructions)
            for (kS = 0; kS < 4 * NB; kS = kS + 1)
                if (32'(kS) < e_epr) begin
                    eeS = e0 + VW'(kS);
                    sjE = esup ? (LNB + 3)'(kS) - (LNB + 3)'(s_rrE) + (LNB + 3)'(e_epr) : (LNB + 3)'(kS) + (LNB + 3)'(s_rrE);
                    sjW = sjE - (LNB + 3)'(e_epr);
                    svE = 32'(sjE) >= e_epr ? elem_at(op_b, sjW[LNB+1:0], 1'b1, e_sew) : elem_at(op_a, sjE[LNB+1:0], 1'b1, e_sew);
                    esE = {{(32 - VW){1'b0}}, eeS} + s_off;
                    if (!esup && (esE < {{(32 - VW){1'b0}}, eeS} || esE >= e_vlmax)) svE = 32'd0;
                    if (esone && (esup ? eeS == 0 : eeS == e_vl - VW'(1))) svE = e_xa;
                    if (e_sew == 2'd1) slidE[16*(kS % (2 * NB)) +: 16] = svE[15:0];
                    else slidE[8*kS +: 8] = svE[7:0];
                end
    end

    // vid.v and viota.m: the beat's element values, made here (the lanes pass them on as
    // a move's second operand); viota counts the active set bits of the single register vs2
    // below each element, the earlier beats' count carried in icnt. vmerge, vadc/vsbc/vmadc/vmsbc:
    // each element's v0 bit, for S2
    reg  [VLEN-1:0] gen;
    reg  [31:0]     gcnt, icnt;
    reg  [NB-1:0]   mbit;
    reg  [VW-1:0]   ge;
    integer gj;
    always @(*) begin
        gen = {VLEN{1'b0}};
        gcnt = bc == {VW{1'b0}} ? 32'd0 : icnt;
        mbit = {NB{1'b0}};
        ge = {VW{1'b0}};
        if (evid || eiota || emerge || ecarry)   // (so that the simulator skips the loop on other instructions)
            for (gj = 0; gj < 4 * NB; gj = gj + 1)
                if (gj < (NB << e_esh)) begin    // (SEW 8 / 16: 4 NB / 2 NB elements a beat)
                    ge = e0 + VW'(gj);
                    if (!e_sub) gen[32*(gj % NB) +: 32] = evid ? 32'(ge) : gcnt;
                    else if (e_osew == 2'd1) gen[16*(gj % (2 * NB)) +: 16] = evid ? 16'(ge) : gcnt[15:0];
                    else gen[8*gj +: 8] = evid ? 8'(ge) : gcnt[7:0];
                    mbit[gj % NB] = v0[ge[$clog2(VLEN)-1:0]];
                    if (ge < e_vl && (e_vm || v0[ge[$clog2(VLEN)-1:0]]) && op_a[ge[$clog2(VLEN)-1:0]]) gcnt = gcnt + 32'd1;
                end
    end
    // vcpop.m / vfirst.m: the active set bits of vs2 below vl (q_bits) counted by a tree of adders
    // (log2(VLEN) levels, each a bit wider), for vfirst the bits below the lowest one (its index;
    // none: -1). (A chain of VLEN conditional 32-bit increments here had Yosys's opt loop narrow
    // one of them per pass over the whole design: its synthesis did not end.)
    wire [VLEN-1:0] q_bits = emq ? op_a & (e_vm ? ONES : v0) & ~(ONES << e_vl) : {VLEN{1'b0}};
    wire [VLEN-1:0] q_in = e_ir[15] ? (q_bits & (~q_bits + ONE)) - ONE : q_bits;
    genvar pl, pk;
    generate
        for (pl = 0; pl <= LV; pl = pl + 1) begin : g_pc
            wire [(VLEN >> pl) * (pl + 1) - 1:0] s;        // VLEN >> pl sums of pl + 1 bits
            if (pl == 0) begin : g_leaf
                assign s = q_in;
            end else begin : g_node
                for (pk = 0; pk < (VLEN >> pl); pk = pk + 1) begin : g_add
                    assign s[pk * (pl + 1) +: pl + 1] = {1'b0, g_pc[pl - 1].s[2 * pk * pl +: pl]} +
                                                        {1'b0, g_pc[pl - 1].s[(2 * pk + 1) * pl +: pl]};
                end
            end
        end
    endgenerate
    wire [LV:0] q_pop = g_pc[LV].s;
    wire [31:0] qcnt = 32'(q_pop);
    wire [31:0] qfirst = q_bits == {VLEN{1'b0}} ? 32'hFFFF_FFFF : 32'(q_pop);

    // a unit-stride store's beat: its bytes' enables (element active and below vl), then the
    // data and enables moved up by the address's byte offset: word j of the NB + 1 the beat spans
    wire [1:0]  u_off = e_xa[1:0];
    reg  [4*NB-1:0] u_be;
    reg  [VW-1:0]   u_el;
    reg  [32*NB+31:0] u_data;
    reg  [4*NB+3:0]   u_bes;
    integer ub;
    always @(*) begin
        u_be = {(4 * NB){1'b0}};
        u_el = {VW{1'b0}};
        u_data = {(32 * NB + 32){1'b0}};
        u_bes = {(4 * NB + 4){1'b0}};
        if (s1_v && est && !estr) begin  // (so that the simulator skips this on other instructions)
            for (ub = 0; ub < 4 * NB; ub = ub + 1) begin
                u_el = e0 + VW'(!e_sub ? ub >> 2 : e_sew == 2'd1 ? ub >> 1 : ub);
                u_be[ub] = u_el < e_vl && (e_vm || v0[u_el[$clog2(VLEN)-1:0]]);
            end
            u_data = {32'd0, op_c} << (8 * u_off);
            u_bes = {4'd0, u_be} << u_off;
        end
    end

    // memory addressing: unit-stride beats cover NB consecutive words (one per bank; a store
    // from an address that is no multiple of 4: NB + 1, the last through port A), strided
    // elements one word
    wire [31:0] w_unit = ((e_xa - DTCM_BASE) >> 2) + (32'(bc) << LNB);
    wire [31:0] w_str = (eaddr - DTCM_BASE) >> 2;
    reg  [31:0] wk;
    integer k;
    always @(*) begin
        m_en = {NB{1'b0}};
        m_we = {4*NB{1'b0}};
        m_addr = {RA*NB{1'b0}};
        m_wdata = {32*NB{1'b0}};
        for (k = 0; k < NB; k = k + 1) begin
            if (estr) begin
                wk = w_str;
                m_addr[RA*k +: RA] = wk[LNB +: RA];
                if (s1_v && (el || est) && e_vl != 0 && wk[LNB-1:0] == k[LNB-1:0]) begin
                    m_en[k] = 1'b1;
                    m_we[4*k +: 4] = (est && (e_vm || v0[ebc[$clog2(VLEN)-1:0]])) ? 4'hF : 4'h0;
                    m_wdata[32*k +: 32] = op_c[32 * ebc[LNB-1:0] +: 32];
                    if (e_sub) begin             // 8 / 16 bits: the element's bytes of the word
                        m_we[4*k +: 4] = m_we[4*k +: 4] & ((e_sew == 2'd1 ? 4'b0011 : 4'b0001) << eaddr[1:0]);
                        m_wdata[32*k +: 32] = e_sew == 2'd1 ? {2{op_c[16 * bslot[$clog2(VLEN)-1:0] +: 16]}} :
                                                              {4{op_c[8 * bslot[$clog2(VLEN)-1:0] +: 8]}};
                    end
                end
            end else begin
                // bank k holds element j of the beat with (w_unit + j) mod NB == k
                wk = w_unit + ((32'(k) - w_unit) & (NB - 1));
                m_addr[RA*k +: RA] = wk[LNB +: RA];
                if (s1_v && (el || est) && e_vl != 0) begin
                    m_en[k] = 1'b1;
                    m_we[4*k +: 4] = est ? u_bes[4 * ((32'(k) - w_unit) & (NB - 1)) +: 4] : 4'h0;
                    m_wdata[32*k +: 32] = u_data[32 * ((32'(k) - w_unit) & (NB - 1)) +: 32];
                end
            end
        end
    end

    always @(*) begin
        x_we = 4'h0;
        x_word = {DA{1'b0}};
        x_wdata = 32'd0;
        if (s1_v && est && !estr && u_off != 2'd0) begin
            x_we = e_vl != 0 ? u_bes[4*NB +: 4] : 4'h0;
            x_word = DA'(w_unit + 32'(NB));
            x_wdata = u_data[32*NB +: 32];
        end
    end

    // narrow operands (widening, vzext/vsext, a narrowing shift's vs1): part p of the register
    // read, NB elements of w = 16 or 8 bits extended to the lanes' 32
    function automatic [VLEN-1:0] widen(input [VLEN-1:0] v, input [1:0] p, input w8, input sgn);
        integer t;
        reg [15:0] h;
        reg [7:0] b8;
        for (t = 0; t < NB; t = t + 1) begin
            h = v[16 * (NB * 32'(p[0]) + t) +: 16];
            b8 = v[8 * (NB * 32'(p) + t) +: 8];
            widen[32*t +: 32] = w8 ? {{24{sgn && b8[7]}}, b8} : {{16{sgn && h[15]}}, h};
        end
    endfunction
    // ... from SEW 8: half p of the register, 2 NB bytes extended to 16 bits
    function automatic [VLEN-1:0] widen16(input [VLEN-1:0] v, input p, input sgn);
        integer t;
        reg [7:0] b8;
        for (t = 0; t < 2 * NB; t = t + 1) begin
            b8 = v[8 * (2 * NB * 32'(p) + t) +: 8];
            widen16[16*t +: 16] = {{8{sgn && b8[7]}}, b8};
        end
    endfunction
    // (in an always block: the simulator extends operands only for the instructions that widen)
    reg  [VLEN-1:0] op_ax, op_bn;
    always @(*) begin
        op_ax = op_a;
        if (ewred) op_ax = wpair;
        else if (eext || (ewop && !ewsrc)) op_ax = e_w8 ? widen16(op_a, bt[0], esa) : widen(op_a, bt[1:0], eext4, esa);
        op_bn = op_b;
        if (ewop || enar) op_bn = e_w8 ? widen16(op_b, bt[0], esb && !enar) : widen(op_b, {1'b0, bt[0]}, 1'b0, esb && !enar);
    end
    wire [31:0]     xa_n = !ewop ? e_xa : e_w8 ? {16'd0, {8{esb && e_xa[7]}}, e_xa[7:0]} :
                                  {{16{esb && e_xa[15]}}, e_xa[15:0]};
    // a scalar operand at SEW 8 / 16: its low element in every element of the lane
    function automatic [31:0] rep_sew(input [31:0] x, input sub, input s16);
        rep_sew = !sub ? x : s16 ? {2{x[15:0]}} : {4{x[7:0]}};
    endfunction
    // second operand of the lanes
    reg [VLEN-1:0] op_bx;
    always @(*)
        if (esl) op_bx = e_sub ? slidE : slid;
        else if (eext) op_bx = op_ax;                     // vzext/vsext: a move of the extended vs2
        else if (ewmv) op_bx = op_a;                      // vmv<n>r.v: a move of vs2's register
        else if (evid || eiota) op_bx = gen;
        else if (egat) op_bx = {NB{rep_sew(gval, e_sub, e_sew == 2'd1)}};
        else if (ecomp) op_bx = {NB{rep_sew(elem_at(op_a, bc[LNB+1:0], e_sub, e_sew), e_sub, e_sew == 2'd1)}};
        else if (emsf) op_bx = e_vm ? ONES : v0;          // vms*f: the active elements
        else case (ebsel)
            2'd0: op_bx = op_bn;
            2'd1: op_bx = {NB{e_fa}};
            2'd2: op_bx = {NB{rep_sew(xa_n, e_sub, e_osew == 2'd1)}};
            default: op_bx = {NB{rep_sew({{27{e_ir[19]}}, e_ir[19:15]}, e_sub, e_osew == 2'd1)}};
        endcase
    assign sval_ok = s1_v && etos;
    assign sval = emq ? (e_ir[15] ? qfirst : qcnt) : !e_sub ? op_a[31:0] :        // vmv.x.s: element 0 sign-extended
                  e_sew == 2'd1 ? {{16{op_a[15]}}, op_a[15:0]} : {{24{op_a[7]}}, op_a[7:0]};

    // ------------------------------------------------------------------ S2
    reg  [1:0]      s2_kind;
    reg  [1:0]      s2_sel [0:NB-1];
    reg  [4:0]      s2_lop;
    reg  [2:0]      s2_cvt;            // conversions: the vs1 field's low bits
    reg             s2_isgn;           // integer min/max: signed
    reg             s2_mk;             // a compare: mask bits s2_e0.. of vd, the tail from vl set
    reg             s2_mlog;           // mask logic: vs2 op vs1 (op: s2_cc), the tail from vl set
    reg             s2_msf;            // vmsbf/vmsof/vmsif (s2_cvt 1/2/3): from vs2 (s2_a), active s2_b
    reg             s2_vma;
    reg  [NB-1:0]   s2_mb;             // vmerge: the elements' v0 bits (vadc & co.: their carry / borrow in)
    reg             s2_carry, s2_cin;  // vadc/vsbc/vmadc/vmsbc; ... the carry / borrow in from v0 (vm = 0)
    reg  [VLEN-1:0] mfb, mres;
    reg  [2:0]      s2_cc;
    reg             s2_sub, s2_s16;    // SEW 8 / 16 (s2_s16: 16): 4 / 2 elements a lane
    reg  [1:0]      s2_selE [0:4*NB-1];
    reg  [4*NB-1:0] s2_mbE, s2_actE;
    // reductions at SEW 8 / 16: 4 NB / 2 NB element accumulators (racc's VLEN bits, rvalE valid),
    // then log2(elements) tree steps; element k takes element k + s2_half
    // vfclass.v: the RISC-V class mask of a binary32
    function automatic [31:0] fclass(input [31:0] a);
        if (a[30:0] == 31'h7F80_0000) fclass = a[31] ? 32'd1 : 32'd128;
        else if (a[30:23] == 8'hFF) fclass = a[22] ? 32'd512 : 32'd256;
        else if (a[30:0] == 31'd0) fclass = a[31] ? 32'd8 : 32'd16;
        else if (a[30:23] == 8'd0) fclass = a[31] ? 32'd4 : 32'd32;
        else fclass = a[31] ? 32'd2 : 32'd64;
    endfunction
    // a lane at SEW 8 or 16: the integer operation on each element (y) and the compare bits
    function automatic [35:0] subalu(input [31:0] a, input [31:0] b, input [31:0] c, input [4:0] lop,
                                     input [2:0] cc, input isgn, input swap, input [3:0] mb, input s16,
                                     input carry, input cin);
        integer t;
        reg [15:0] xa, xb, xc, r, mx, madd;
        reg [16:0] csum, cdif;             // vadc & co.: the element's sum / difference with the carry / borrow in
        reg [16:0] sa17, sb17, pa, pb;
        reg [31:0] p;
        reg [3:0]  sh;
        reg        lt, eq, ilt, cb;
        subalu = 36'd0;
        for (t = 0; t < 4; t = t + 1)
            if (!s16 || t < 2) begin
                xa = s16 ? a[16*(t & 1) +: 16] : {8'd0, a[8*t +: 8]};
                xb = s16 ? b[16*(t & 1) +: 16] : {8'd0, b[8*t +: 8]};
                sa17 = s16 ? {xa[15], xa} : {{9{xa[7]}}, xa[7:0]};
                sb17 = s16 ? {xb[15], xb} : {{9{xb[7]}}, xb[7:0]};
                xc = s16 ? c[16*(t & 1) +: 16] : {8'd0, c[8*t +: 8]};
                // multiplies (cc = funct6[2:0]: vmul 101, vmulh 111, vmulhu 100, vmulhsu 110; the
                // multiply-adds: bit 2 the product with vs2 and vd the addend, bit 1 subtract)
                mx = lop == LO_IMAC && !cc[2] ? xc : xa;
                madd = lop == LO_IMAC && !cc[2] ? xa : xc;
                pa = lop == LO_IMUL && cc[1] ? (s16 ? {mx[15], mx} : {{9{mx[7]}}, mx[7:0]}) : {1'b0, mx};
                pb = lop == LO_IMUL && cc[1] && cc[0] ? sb17 : {1'b0, xb};
                p = 32'($signed(pa) * $signed(pb));
                sh = s16 ? xb[3:0] : {1'b0, xb[2:0]};
                eq = xa == xb;
                lt = isgn ? $signed(sa17) < $signed(sb17) : xa < xb;
                ilt = cc[0] ? $signed(sa17) < $signed(sb17) : xa < xb;
                csum = {1'b0, xa} + {1'b0, xb} + {16'd0, cin && mb[t]};
                cdif = {1'b0, xa} - {1'b0, xb} - {16'd0, cin && mb[t]};
                case (lop)
                    LO_IADD: r = csum[15:0];
                    LO_ISUB: r = swap ? xb - xa : cdif[15:0];
                    LO_IAND: r = xa & xb;
                    LO_IOR: r = xa | xb;
                    LO_IXOR: r = xa ^ xb;
                    LO_ISLL: r = xa << sh;
                    LO_ISRL: r = xa >> sh;
                    LO_ISRA: r = 16'($signed(sa17) >>> sh);
                    LO_MERGE: r = mb[t] ? xb : xa;
                    LO_IMUL: r = cc[1:0] == 2'b01 ? p[15:0] : s16 ? p[31:16] : {8'd0, p[15:8]};
                    LO_IMAC: r = cc[1] ? madd - p[15:0] : madd + p[15:0];
                    default: r = (lt != (lop == LO_IMAX)) ? xa : xb;       // min, max (LO_MOVE: below)
                endcase
                if (lop == LO_MOVE) r = xb;
                cb = cc[2:1] == 2'b00 ? eq != cc[0] : cc[2:1] == 2'b01 ? ilt : cc[2:1] == 2'b10 ? ilt || eq : !ilt && !eq;
                // vmadc / vmsbc: the carry out of the element's width (8 bits zero-extended: bit 8), the borrow
                if (carry) cb = cc[1] ? cdif[16] : s16 ? csum[16] : csum[8];
                subalu[32 + t] = cb;
                if (s16) subalu[16*(t & 1) +: 16] = r;
                else subalu[8*t +: 8] = r[7:0];
            end
    endfunction
    // fixed point (vsadd(u), vssub(u), vaadd(u), vasub(u), vsmul, vssrl, vssra, vnclip(u)) on a
    // lane's elements of n = 32, 16 or 8 bits (sw 2, 1, 0): exact in 64 bits (p32: the lane
    // multiplier's signed 64-bit product at n = 32), shifted right by d and rounded as vxrm says
    // (0 rnu: + the last bit out; 1 rne: that bit if the rest out or the kept LSB is set; 2 rdn;
    // 3 rod: the LSB set when it is 0 and any bit out is 1), clamped to w bits (vnclip: w = n / 2,
    // the result in the element's low half) where the instruction saturates; bits 35:32 say which
    // elements were clamped
    function automatic [35:0] fxalu(input [31:0] a, input [31:0] b, input [63:0] p32, input [1:0] kind, input sub,
                                    input sgn, input [1:0] rm, input [1:0] sw, input clip);
        integer t;
        reg [6:0]  n, w;
        reg [31:0] ea, eb, nm;
        reg signed [63:0] xa, xb, v, y, lo, hi;
        reg signed [33:0] ps;
        reg [63:0] below;
        reg [4:0]  d;
        reg        inc, st;
        fxalu = 36'd0;
        n = sw == 2'd2 ? 7'd32 : sw == 2'd1 ? 7'd16 : 7'd8;
        w = clip ? n >> 1 : n;
        nm = sw == 2'd2 ? 32'hFFFF_FFFF : sw == 2'd1 ? 32'h0000_FFFF : 32'h0000_00FF;
        for (t = 0; t < 4; t = t + 1)
            if (t == 0 || sw == 2'd0 || (sw == 2'd1 && t < 2)) begin
                ea = sw == 2'd2 ? a : sw == 2'd1 ? {16'd0, a[16*(t & 1) +: 16]} : {24'd0, a[8*t +: 8]};
                eb = sw == 2'd2 ? b : sw == 2'd1 ? {16'd0, b[16*(t & 1) +: 16]} : {24'd0, b[8*t +: 8]};
                xa = $signed({ea, 32'd0} << (7'd32 - n));            // the element at the top, then extended
                xb = $signed({eb, 32'd0} << (7'd32 - n));
                xa = sgn ? xa >>> (7'd64 - n) : $signed($unsigned(xa) >> (7'd64 - n));
                xb = sgn ? xb >>> (7'd64 - n) : $signed($unsigned(xb) >> (7'd64 - n));
                ps = $signed(xa[16:0]) * $signed(xb[16:0]);
                case (kind)
                    FX_SAT, FX_AVG: v = sub ? xa - xb : xa + xb;
                    FX_MUL: v = n == 7'd32 ? $signed(p32) : {{30{ps[33]}}, ps};
                    default: v = xa;
                endcase
                d = kind == FX_SHIFT ? eb[4:0] & 5'(n - 7'd1) : kind == FX_AVG ? 5'd1 : kind == FX_MUL ? 5'(w - 7'd1) : 5'd0;
                below = (64'd1 << d) - 64'd1;
                case (rm)
                    2'd0: inc = d != 5'd0 && v[6'(d) - 6'd1];
                    2'd1: inc = d != 5'd0 && v[6'(d) - 6'd1] && (($unsigned(v) & (below >> 1)) != 64'd0 || v[6'(d)]);
                    2'd2: inc = 1'b0;
                    default: inc = !v[6'(d)] && ($unsigned(v) & below) != 64'd0;
                endcase
                y = (v >>> d) + $signed({63'd0, inc});
                lo = sgn ? -(64'sd1 <<< (w - 7'd1)) : 64'sd0;
                hi = sgn ? (64'sd1 <<< (w - 7'd1)) - 64'sd1 : (64'sd1 <<< w) - 64'sd1;
                st = (kind == FX_SAT || kind == FX_MUL || clip) && (y < lo || y > hi);
                if (st) y = y < lo ? lo : hi;
                fxalu[32 + t] = st;
                fxalu[31:0] = fxalu[31:0] | ((y[31:0] & nm) << (n * 7'(t)));
            end
    endfunction
    reg             s2_nar, s2_part;   // narrowing: the lanes' low halves into half s2_part of vd's register
    reg             s2_nhi;            // ... the last beat, in the lower half: the upper one is tail (ta)
    reg  [VW-1:0]   s2_e0, s2_vl;
    wire [NB-1:0]   cbit;
    wire [3:0]      cb4 [0:NB-1];      // SEW 8 / 16: the lane's elements' compare bits
    reg  [VLEN-1:0] mval;
    reg  [2:0]      s2_rm;
    reg  [1:0]      s2_vxrm, s2_fxk;   // fixed point: vxrm, the kind (FX_*)
    reg             s2_fxsub;          // ... subtract (vssub(u), vasub(u))
    wire [3:0]      fxs [0:NB-1];      // ... the lane's elements that saturated
    reg             s2_np, s2_na, s2_swap, s2_uvd;
    reg  [VLEN-1:0] s2_a, s2_b, s2_c;
    reg  [LNB-1:0]  s2_rot;            // unit load: element 0's bank; strided: the element's lane
    reg  [LNB-1:0]  s2_bank;           // strided load: the bank
    reg  [1:0]      s2_boff;           // ... 8 / 16 bits: the element's byte in the word
    wire [31:0]     ld_w = m_rdata[32 * s2_bank +: 32] >> (8 * s2_boff);
    // a unit load's beat: the banks' words in element order, moved down by the address's byte
    // offset (s2_uoff); spanning (s2_span), the previous cycle's words and this one's first
    reg  [1:0]      s2_uoff;
    reg             s2_span;
    reg  [VLEN-1:0] ld_cur, ld_prev;
    integer lw;
    always @(*)
        for (lw = 0; lw < NB; lw = lw + 1) ld_cur[32*lw +: 32] = m_rdata[32 * ((32'(s2_rot) + lw) & (NB - 1)) +: 32];
    wire [VLEN+31:0] ld_cat = s2_span ? {ld_cur[31:0], ld_prev} : {32'd0, ld_cur};
    wire [VLEN-1:0]  ld_beat = VLEN'(ld_cat >> (8 * s2_uoff));
    reg  [31:0]     s2_sc;
    // reductions: S2 adds beat after beat into NB lane accumulators (lane k: elements
    // i with i mod NB = k, in order; lane 0 starts from vs1[0]), then halves them in
    // log2(NB) tree steps, x[k] = x[k] + x[k + n/2]; a lane without an element (valid
    // bit clear) is no operand. The last step's lane 0 is vd[0].
    reg             s2_red, s2_first, s2_tree;
    reg             s2_ord, s2_oact;   // vfredosum: element bc (lane s2_olane of the beat) is active
    reg  [LNB-1:0]  s2_olane;
    reg  [VW-1:0]   s2_half;
    reg  [NB-1:0]   s2_act;
    reg  [31:0]     racc [0:NB-1];
    reg  [NB-1:0]   rval;
    reg  [4*NB-1:0] rvalE;
    reg  [VLEN-1:0] racc_v, sra_a, sra_b, srnext, sry;
    reg  [4*NB-1:0] sva, svb, srnval;
    integer sr, si;
    always @(*) begin
        si = 0;
        for (sr = 0; sr < NB; sr = sr + 1) racc_v[32*sr +: 32] = racc[sr];
        sra_a = s2_tree || !s2_first ? racc_v : s2_b;
        sra_b = s2_tree ? racc_v >> (32'(s2_half) * (s2_s16 ? 16 : 8)) : s2_a;
        sva = s2_tree || !s2_first ? rvalE : {{(4 * NB - 1){1'b0}}, 1'b1};
        svb = s2_tree ? rvalE >> s2_half : s2_actE;
        sry = {VLEN{1'b0}};
        srnext = racc_v;
        srnval = rvalE;
        if (s2_red && s2_sub) begin      // (so that the simulator skips this on other instructions)
            for (sr = 0; sr < NB; sr = sr + 1)
                sry[32*sr +: 32] = 32'(subalu(sra_a[32*sr +: 32], sra_b[32*sr +: 32], 32'd0, s2_lop, 3'd0, s2_isgn,
                                              1'b0, 4'd0, s2_s16, 1'b0, 1'b0));
            for (sr = 0; sr < 4 * NB; sr = sr + 1)
                if (!(s2_s16 && sr >= 2 * NB) && (!s2_tree || 32'(sr) < 32'(s2_half))) begin
                    if (s2_s16) begin            // (sr < 2 NB here; the modulo keeps the selects in range)
                        si = sr % (2 * NB);
                        srnext[16*si +: 16] = sva[sr] && svb[sr] ? sry[16*si +: 16] : sva[sr] ? sra_a[16*si +: 16] :
                                              sra_b[16*si +: 16];
                    end
                    else
                        srnext[8*sr +: 8] = sva[sr] && svb[sr] ? sry[8*sr +: 8] : sva[sr] ? sra_a[8*sr +: 8] :
                                            sra_b[8*sr +: 8];
                    srnval[sr] = sva[sr] || svb[sr];
                end
        end
    end
    reg  [31:0]     red_a [0:NB-1], red_b [0:NB-1], rnext [0:NB-1];
    reg  [NB-1:0]   ruse, rnval;
    integer r;
    always @(*)
        for (r = 0; r < NB; r = r + 1) begin
            if (!s2_tree) begin
                red_a[r] = s2_first ? s2_b[31:0] : racc[r];
                red_b[r] = s2_a[32*r +: 32];
                ruse[r] = s2_act[r] && (s2_first ? r == 0 : rval[r]);
                if (s2_ord) begin
                    red_b[r] = s2_a[32*s2_olane +: 32];
                    ruse[r] = r == 0 && s2_oact;
                end
            end else begin
                red_a[r] = racc[r];
                red_b[r] = racc[(r + 32'(s2_half)) % NB];
                ruse[r] = 32'(r) < 32'(s2_half) && rval[r] && rval[(r + 32'(s2_half)) % NB];
            end
        end
    wire [VLEN-1:0] old = vones[s2_reg] ? ONES : vrf[s2_reg];
    wire [31:0] lane_y [0:NB-1];
    wire [4:0]  lane_f [0:NB-1];
    // the lanes' fp and integer dividers run on gates of their own, open from a start until
    // they are done: while they idle, their steps and rounding do not toggle
    wire [NB-1:0] div_busy;
    wire [4*NB-1:0] idiv_busy;
    wire div_clk, idiv_clk;
    icg u_divgate (.clk(gclk), .en((s1_v && dstart) || div_busy != {NB{1'b0}}), .gclk(div_clk));
    icg u_idivgate (.clk(gclk), .en((s1_v && dstart && elop == LO_IDIV) || idiv_busy != {4*NB{1'b0}}), .gclk(idiv_clk));
    reg  [4:0]  flags_any;
    genvar g;
    generate
        for (g = 0; g < NB; g = g + 1) begin : g_lane
            wire [31:0] a = s2_red ? red_a[g] : s2_a[32*g +: 32], b = s2_red ? red_b[g] : s2_b[32*g +: 32];
            wire [31:0] c = s2_c[32*g +: 32];
            wire is_add = s2_lop == LO_ADD, is_fma = s2_lop == LO_FMA;
            wire [31:0] fy, my;
            wire [4:0]  ff;
            wire        mnv;
            fp32_fma u_fma (.a(is_add ? (s2_swap ? b : a) : is_fma ? b : a),
                            .b(is_add ? 32'h3F80_0000 : is_fma ? (s2_uvd ? c : a) : b),
                            .c(is_add ? (s2_swap ? a : b) : (s2_uvd ? a : c)),
                            .rm(s2_rm), .neg_prod(is_fma && s2_np), .neg_add((is_add || is_fma) && s2_na),
                            .mul_only(s2_lop == LO_MUL), .y(fy), .flags(ff));
            coral_fminmax u_mm (.a(a), .b(b), .max(s2_lop == LO_MAX), .y(my), .nv(mnv));
            // vfrsqrt7.v, vfrec7.v (LO_CLASS with the vs1 field's bit 2 set; bit 0: rec)
            wire [31:0] ey;
            wire [4:0]  ef;
            coral_frest u_est (.en(s2_lop == LO_CLASS && s2_cvt[2]), .a(a), .rec(s2_cvt[0]), .rm(s2_rm), .y(ey), .flags(ef));
            // conversions: vs1 field bit 0 signed, 1 from an integer, 2 rtz
            wire [31:0] cy;
            wire [4:0]  cf;
            coral_fcvt u_cvt (.a(a), .to_int(!s2_cvt[1] || s2_cvt[2]), .uns(!s2_cvt[0]),
                              .rm(s2_cvt[2] ? 3'd1 : s2_rm), .y(cy), .flags(cf));
            // the divider takes its operands from S1 in a beat's first cycle; its result
            // is held until the next start, when S2 writes the beat
            wire [31:0] da = op_a[32*g +: 32], db = op_bx[32*g +: 32], dy;
            wire [4:0]  df;
            wire        dbusy, ddone;
            fp32_divsqrt #(.STEPS(9)) u_div (.clk(div_clk), .start(s1_v && dstart), .sqrt(elop == LO_SQRT),
                                             .a(eswap ? db : da), .b(eswap ? da : db), .rm(e_frm),
                                             .busy(dbusy), .done(ddone), .y(dy), .flags(df));
            assign div_busy[g] = dbusy;
            wire _unused_div = ^{ddone};
            // vdiv, vdivu, vrem, vremu: started like the fp divider, 32 bits by the beat's last cycle;
            // at SEW 16 / 8 the lane's element 0 (extended to 32 bits) goes through the same
            // divider, its element 1 (SEW 8: 2) through a 16-bit one, at SEW 8 elements 1 and 3
            // through 8-bit ones, all done in the beat's DIVC cycles
            wire        i_go = s1_v && dstart && elop == LO_IDIV, i_s = e_ir[26];
            wire        i8 = e_sub && e_sew == 2'd0;
            wire [31:0] da0 = !e_sub ? da : i8 ? {{24{i_s && da[7]}}, da[7:0]} : {{16{i_s && da[15]}}, da[15:0]};
            wire [31:0] db0 = !e_sub ? db : i8 ? {{24{i_s && db[7]}}, db[7:0]} : {{16{i_s && db[15]}}, db[15:0]};
            wire [15:0] da1 = i8 ? {{8{i_s && da[23]}}, da[23:16]} : da[31:16];
            wire [15:0] db1 = i8 ? {{8{i_s && db[23]}}, db[23:16]} : db[31:16];
            wire [31:0] iq, irm;
            wire [15:0] iq1, irm1;
            wire [7:0]  iq2, irm2, iq3, irm3;
            coral_idiv #(.STEPS(32 / DIVC)) u_idiv (.clk(idiv_clk), .start(i_go), .sgn(i_s), .a(da0), .b(db0), .q(iq), .r(irm),
                                                        .busy(idiv_busy[4*g]));
            coral_idiv #(.W(16), .STEPS(16 / DIVC)) u_idiv1 (.clk(idiv_clk), .start(i_go && e_sub), .sgn(i_s), .a(da1), .b(db1),
                                                            .q(iq1), .r(irm1), .busy(idiv_busy[4*g+1]));
            coral_idiv #(.W(8), .STEPS(8 / DIVC)) u_idiv2 (.clk(idiv_clk), .start(i_go && i8), .sgn(i_s), .a(da[15:8]),
                                                          .b(db[15:8]), .q(iq2), .r(irm2), .busy(idiv_busy[4*g+2]));
            coral_idiv #(.W(8), .STEPS(8 / DIVC)) u_idiv3 (.clk(idiv_clk), .start(i_go && i8), .sgn(i_s), .a(da[31:24]),
                                                          .b(db[31:24]), .q(iq3), .r(irm3), .busy(idiv_busy[4*g+3]));
            wire [31:0] subq = s2_s16 ? (s2_cc[1] ? {irm1, irm[15:0]} : {iq1, iq[15:0]}) :
                               s2_cc[1] ? {irm3, irm1[7:0], irm2, irm[7:0]} : {iq3, iq1[7:0], iq2, iq[7:0]};
            // integer
            // vadc/vsbc/vmadc/vmsbc: the carry / borrow in, and out at bit 32
            wire        cin = s2_cin && s2_mb[g];
            wire [32:0] csum = {1'b0, a} + {1'b0, b} + {32'd0, cin}, cdif = {1'b0, a} - {1'b0, b} - {32'd0, cin};
            wire [31:0] iy = s2_lop == LO_IADD ? csum[31:0] : s2_lop == LO_ISUB ? (s2_swap ? b - a : cdif[31:0]) :
                             s2_lop == LO_IAND ? a & b : s2_lop == LO_IOR ? a | b : s2_lop == LO_IXOR ? a ^ b :
                             s2_lop == LO_ISLL ? a << b[4:0] : s2_lop == LO_ISRL ? a >> b[4:0] :
                             s2_lop == LO_ISRA ? 32'($signed(a) >>> b[4:0]) :
                             ((s2_isgn ? $signed(a) < $signed(b) : a < b) != (s2_lop == LO_IMAX)) ? a : b;
            wire is_int = s2_lop >= LO_IADD && s2_lop <= LO_IMAX;
            // vmul (s2_cc 101: the low half), vmulh (111), vmulhu (100), vmulhsu (110: vs2 signed)
            // one 32 x 32 unsigned product; a signed operand's sign bit subtracts the other
            // operand from the high word (a = a_u - 2^32 a[31])
            // the multiply-adds (s2_cc = funct6[2:0]: bit 2 vmacc/vnmsac, the product with vs2 and vd
            // the addend, else with vd and vs2 the addend; bit 1 the addend minus the product)
            // share the multiplier
            wire        mac = s2_lop == LO_IMAC;
            wire [31:0] mx = mac && !s2_cc[2] ? c : a, madd = mac && !s2_cc[2] ? a : c;
            wire [63:0] mp = {32'd0, mx} * {32'd0, b};
            wire [31:0] mhi = mp[63:32] - (s2_cc[1] && mx[31] ? b : 32'd0) - (s2_cc[1] && s2_cc[0] && b[31] ? mx : 32'd0);
            wire [31:0] muly = mac ? (s2_cc[1] ? madd - mp[31:0] : madd + mp[31:0]) :
                               s2_cc[1:0] == 2'b01 ? mp[31:0] : mhi;
            // compares (condition s2_cc = funct6[2:0]); fp as the F unit's feq/flt/fle
            wire a_nan = a[30:23] == 8'hFF && a[22:0] != 23'd0, b_nan = b[30:23] == 8'hFF && b[22:0] != 23'd0;
            wire f_eq = a == b || (a[30:0] == 31'd0 && b[30:0] == 31'd0);
            wire f_lt = !f_eq && (a[31] != b[31] ? a[31] : (a[31] ? a[30:0] > b[30:0] : a[30:0] < b[30:0]));
            wire f_gt = !f_eq && !f_lt;
            wire nan = a_nan || b_nan;
            wire fbit = s2_cc == 3'd4 ? (nan || !f_eq) :                      // ne
                        !nan && (s2_cc == 3'd0 ? f_eq : s2_cc == 3'd1 ? f_lt || f_eq : s2_cc == 3'd3 ? f_lt :
                                 s2_cc == 3'd5 ? f_gt : f_gt || f_eq);           // eq le lt gt ge
            wire fnv = s2_cc == 3'd0 || s2_cc == 3'd4 ? (a_nan && !a[22]) || (b_nan && !b[22]) : nan;
            wire i_lt = s2_cc[0] ? $signed(a) < $signed(b) : a < b;
            wire ibit = s2_cc[2:1] == 2'b00 ? (a == b) != s2_cc[0] : s2_cc[2:1] == 2'b01 ? i_lt :
                        s2_cc[2:1] == 2'b10 ? i_lt || a == b : !i_lt && a != b;
            assign cbit[g] = s2_lop != LO_ICMP ? fbit : !s2_carry ? ibit : s2_cc[1] ? cdif[32] : csum[32];
            // SEW 8 / 16
            wire [3:0]  lmb = s2_s16 ? {2'b00, s2_mbE[2*g +: 2]} : s2_mbE[4*g +: 4];
            // (in an always block under its condition, as fxalu below)
            reg  [35:0] sy;
            always @(*)
                if (s2_sub) sy = subalu(a, b, c, s2_lop, s2_cc, s2_isgn, s2_swap, lmb, s2_s16, s2_carry, s2_cin);
                else sy = 36'd0;
            assign cb4[g] = sy[35:32];
            // fixed point (vsmul at SEW 32: the multiplier's signed product, mhi at s2_cc 111)
            // (in an always block under its condition: the simulator skips it on other instructions)
            reg  [35:0] fxy;
            always @(*)
                if (s2_lop == LO_FXP) fxy = fxalu(a, b, {mhi, mp[31:0]}, s2_fxk, s2_fxsub, s2_isgn, s2_vxrm,
                                                  !s2_sub ? 2'd2 : s2_s16 ? 2'd1 : 2'd0, s2_nar);
                else fxy = 36'd0;
            assign fxs[g] = fxy[35:32];
            assign lane_y[g] = s2_lop == LO_FXP ? fxy[31:0] : s2_sub ? (s2_lop == LO_IDIV ? subq : sy[31:0]) : (is_add || is_fma || s2_lop == LO_MUL) ? fy :
                               (s2_lop == LO_MIN || s2_lop == LO_MAX) ? my :
                               (s2_lop == LO_DIV || s2_lop == LO_SQRT) ? dy : s2_lop == LO_CVT ? cy :
                               is_int ? iy : (s2_lop == LO_IMUL || mac) ? muly :
                               s2_lop == LO_IDIV ? (s2_cc[1] ? irm : iq) :
                               s2_lop == LO_SGNJ ? {b[31], a[30:0]} : s2_lop == LO_SGNJN ? {!b[31], a[30:0]} :
                               s2_lop == LO_SGNJX ? {a[31] ^ b[31], a[30:0]} :
                               s2_lop == LO_CLASS ? (s2_cvt[2] ? ey : fclass(a)) :
                               (s2_lop == LO_MERGE && !s2_mb[g]) ? a : b;
            assign lane_f[g] = (is_add || is_fma || s2_lop == LO_MUL) ? ff :
                               (s2_lop == LO_MIN || s2_lop == LO_MAX) ? {mnv, 4'd0} :
                               (s2_lop == LO_DIV || s2_lop == LO_SQRT) ? df : s2_lop == LO_CVT ? cf :
                               s2_lop == LO_FCMP ? {fnv, 4'd0} : (s2_lop == LO_CLASS && s2_cvt[2]) ? ef : 5'd0;
        end
    endgenerate
    // the accumulators after this S2 cycle: the sum where both operands are there, else the one that is
    always @(*)
        for (r = 0; r < NB; r = r + 1) begin
            if (s2_ord) begin
                rnext[r] = ruse[r] ? lane_y[r] : red_a[r];
                rnval[r] = r == 0;
            end else if (!s2_tree) begin
                rnext[r] = ruse[r] ? lane_y[r] : s2_act[r] ? red_b[r] : red_a[r];
                rnval[r] = s2_act[r] || (s2_first ? r == 0 : rval[r]);
            end else if (32'(r) < 32'(s2_half)) begin
                rnext[r] = ruse[r] ? lane_y[r] : rval[r] ? red_a[r] : red_b[r];
                rnval[r] = rval[r] || rval[(r + 32'(s2_half)) % NB];
            end else begin
                rnext[r] = racc[r];
                rnval[r] = rval[r];
            end
        end
    reg [31:0] nv;
    integer l;
    always @(*) begin
        flags_any = 5'd0;
        for (l = 0; l < NB; l = l + 1) begin
            case (s2_kind)
                K_LANES: nv = s2_red ? rnext[0] : lane_y[l];
                K_LOAD: nv = ld_beat[32*l +: 32];
                K_LOADS: nv = m_rdata[32 * s2_bank +: 32];
                default: nv = s2_sc;
            endcase
            if (s2_red ? ruse[l] : s2_kind == K_LANES && s2_sel[l] == S_NEW && s2_we) flags_any = flags_any | lane_f[l];
            wval[32*l +: 32] = s2_sel[l] == S_NEW ? nv : s2_sel[l] == S_ONES ? 32'hFFFF_FFFF : old[32*l +: 32];
        end
        // SEW 8 / 16: byte by byte, each as its element's choice
        if (s2_sub)
            for (l = 0; l < 4 * NB; l = l + 1)
                wval[8*l +: 8] = s2_selE[s2_s16 ? l >> 1 : l] == S_NEW ?
                                 (s2_kind == K_SCALAR ? s2_sc[8 * (l & 3) +: 8] : s2_red ? srnext[8*l +: 8] :
                                  s2_kind == K_LOAD ? ld_beat[8*l +: 8] :
                                  s2_kind == K_LOADS ? (s2_s16 ? ld_w[8 * (l & 1) +: 8] : ld_w[7:0]) :
                                  lane_y[l >> 2][8 * (l & 3) +: 8]) :
                                 s2_selE[s2_s16 ? l >> 1 : l] == S_ONES ? 8'hFF : old[8*l +: 8];
        // narrowing: NB 16-bit elements into one half of the register, the other kept (or, after
        // the last beat's lower half under ta, all ones)
        if (s2_nar && s2_sub) begin      // from SEW 8: 2 NB bytes, the low ones of the lanes' 16-bit elements
            wval = old;
            for (l = 0; l < 2 * NB; l = l + 1)
                wval[8 * (2 * NB * 32'(s2_part) + l) +: 8] = s2_selE[l] == S_NEW ? lane_y[l >> 1][16 * (l & 1) +: 8] :
                    s2_selE[l] == S_ONES ? 8'hFF : old[8 * (2 * NB * 32'(s2_part) + l) +: 8];
            if (s2_nhi) wval[VLEN-1:VLEN/2] = {(VLEN / 2){1'b1}};
        end else if (s2_nar) begin
            wval = old;
            for (l = 0; l < NB; l = l + 1)
                wval[16 * (NB * 32'(s2_part) + l) +: 16] = s2_sel[l] == S_NEW ? lane_y[l][15:0] :
                    s2_sel[l] == S_ONES ? 16'hFFFF : old[16 * (NB * 32'(s2_part) + l) +: 16];
            if (s2_nhi) wval[VLEN-1:VLEN/2] = {(VLEN / 2){1'b1}};
        end
        // a compare: the beat's bits (mask policy for inactive ones), bits from vl up set
        // (mask destinations are tail-agnostic)
        // (under s2_mk, the only reader of mval: the simulator skips it on other instructions)
        mval = {VLEN{1'b0}};
        if (s2_mk) begin
            mval = old;
            for (l = 0; l < NB; l = l + 1)
                if (s2_e0 + VW'(l) < s2_vl && s2_sel[l] != S_OLD)
                    mval[s2_e0[$clog2(VLEN)-1:0] + l[$clog2(VLEN)-1:0]] = s2_sel[l] == S_NEW ? cbit[l] : 1'b1;
            if (s2_sub) begin
                mval = old;
                for (l = 0; l < 4 * NB; l = l + 1)
                    if ((s2_s16 ? l < 2 * NB : 1'b1) && s2_e0 + VW'(l) < s2_vl && s2_selE[l] != S_OLD)
                        mval[s2_e0[$clog2(VLEN)-1:0] + l[$clog2(VLEN)-1:0]] = s2_selE[l] == S_NEW ?
                            (s2_s16 ? cb4[l >> 1][l & 1] : cb4[l >> 2][l & 3]) : 1'b1;
            end
            wval = mval | (ONES << s2_vl);         // bits from vl up set (ONES << VLEN is 0)
        end
        if (s2_mlog) begin
            case (s2_cc)
                3'd0: wval = s2_a & ~s2_b;
                3'd1: wval = s2_a & s2_b;
                3'd2: wval = s2_a | s2_b;
                3'd3: wval = s2_a ^ s2_b;
                3'd4: wval = s2_a | ~s2_b;
                3'd5: wval = ~(s2_a & s2_b);
                3'd6: wval = ~(s2_a | s2_b);
                default: wval = ~(s2_a ^ s2_b);
            endcase
            wval = wval | (ONES << s2_vl);
        end
        // vms*f: bits below the first active set bit of vs2 (below vl), up to it, or it alone;
        // inactive bits follow the mask policy, bits from vl up are set
        mfb = {VLEN{1'b0}};
        mres = {VLEN{1'b0}};
        if (s2_msf) begin
            mfb = s2_a & s2_b & ~(ONES << s2_vl);
            mres = s2_cvt[1:0] == 2'd1 ? ~mfb & (mfb - ONE) : s2_cvt[1:0] == 2'd3 ? mfb ^ (mfb - ONE) :
                   mfb & (~mfb + ONE);
            wval = (mres & s2_b) | (old & ~s2_b & {VLEN{!s2_vma}}) | ({VLEN{s2_vma}} & ~s2_b) | (ONES << s2_vl);
        end
    end
    assign vflags = s2_v ? flags_any : 5'd0;
    // vxsat: an active element (written with a new value) of a fixed-point instruction clamped
    reg sat_any;
    integer sl;
    always @(*) begin
        sat_any = 1'b0;
        if (s2_v && s2_we && s2_lop == LO_FXP && s2_kind == K_LANES)
            for (sl = 0; sl < NB; sl = sl + 1) begin
                if (!s2_sub) sat_any = sat_any | (fxs[sl][0] && s2_sel[sl] == S_NEW);
                else if (s2_s16) sat_any = sat_any | (fxs[sl][0] && s2_selE[2*sl] == S_NEW) |
                                                     (fxs[sl][1] && s2_selE[2*sl+1] == S_NEW);
                else sat_any = sat_any | (fxs[sl][0] && s2_selE[4*sl] == S_NEW) | (fxs[sl][1] && s2_selE[4*sl+1] == S_NEW) |
                                         (fxs[sl][2] && s2_selE[4*sl+2] == S_NEW) | (fxs[sl][3] && s2_selE[4*sl+3] == S_NEW);
            end
    end
    assign vsat = sat_any;
    assign tr_s1seq = e_seq;
    assign tr_s2seq = s2_seq;
    assign tr_we = s2_v && s2_we;
    assign tr_reg = s2_reg;
    assign tr_val = wval;
    assign tr_marks = s2_v ? s2_marks : 32'd0;

    assign q_full = qn == (QA + 1)'(DEPTH);
    assign st_pend = any_st || (s1_v && est);
    assign mem_pend = any_mem || (s1_v && (el || est));
    assign drained = qn == 0 && !s1_v;
    assign active = qn != 0 || s1_v || s2_v;

    wire push = d_valid && !(free && qn == 0);        // into the queue (else straight to S1)
    wire pop = free && qn != 0;
    wire [QW-1:0] nx = pop ? q[qh] : d_entry;
    wire _unused = ^{s_offq, g_rg, bci, eff, svE, sjW, dsa, dsb, bnar, eanysew, emeew, ewhole, dwmv, emskm, dsl, dsone, dmerge, dvid, dmq, dmsf, emq, dgat, dcomp, dei16, bce16, esl, dl, dst, dstr, dlanes, dtos, dfroms, dred, dord, ddiv, dmk, dswap, dnp, dna, dvd, dlop, dbsel, elegal, e_vt[5:3],
                      evs1, evs2, bc_reg, wk, dbg_addr};

    // an idle unit's registers do not toggle (and Verilator does not evaluate them)
    wire gclk;
    icg u_gate (.clk(clk), .en(rst || d_valid || active || dbg_we), .gclk(gclk));
    assign m_clk = gclk;              // (m_en needs s1_v: the gate is open whenever a port is used)

    always @(posedge gclk) begin
        if (rst) begin
            qh <= {QA{1'b0}};
            qt <= {QA{1'b0}};
            qn <= {(QA + 1){1'b0}};
            s1_v <= 1'b0;
            s2_v <= 1'b0;
            n_seq <= 32'd0;
            vones <= 32'd0;
            busy_cycles <= 64'd0;
        end else begin
            if (dbg_we) vrf[dbg_addr[LNB +: 5]][32 * dbg_addr[LNB-1:0] +: 32] <= dbg_wdata;
            // queue
            if (push) begin
                q[qt] <= d_entry;
                q_isst[qt] <= dst;
                q_ismem[qt] <= dl || dst;
                q_w[qt] <= d_wset;
                qt <= qt == QA'(DEPTH - 1) ? {QA{1'b0}} : qt + 1'b1;
            end
            if (pop) qh <= qh == QA'(DEPTH - 1) ? {QA{1'b0}} : qh + 1'b1;
            qn <= qn + (QA + 1)'(push) - (QA + 1)'(pop);
            // S1
            if (s1_v) busy_cycles <= busy_cycles + 64'd1;
            if (free) begin
                s1_v <= pop || d_valid;
                if (pop || d_valid) begin
                    e_seq <= n_seq;
                    n_seq <= n_seq + 32'd1;
                end
                {e_ir, e_vl, e_vt, e_frm, e_vxrm, e_xa, e_xb, e_fa} <= nx;
                s1_w <= pop ? q_w[qh] : d_wset;
                bc <= {VW{1'b0}};
                saddr <= nx[95:64];
                sf <= 3'd0;
                sgi <= {VW{1'b0}};
            end else begin
                bc <= bc + VW'(1);
                if (eseg && sf != e_ir[31:29])     // the segment's next field
                    sf <= sf + 3'd1;
                else begin                         // the next element (segment)
                    sf <= 3'd0;
                    sgi <= sgi + VW'(1);
                    saddr <= saddr + e_xb;
                end
            end
            // S2
            s2_v <= s1_v && wb;
            s2_we <= s1_v && wb && e_vl != 0 && (!ered || s1_last) && dlast && !s_none &&
                     (!ecomp || c_sel || s1_last) && !(u_span && bc == {VW{1'b0}});
            s2_red <= ered;
            s2_ord <= eord;
            s2_oact <= bc < e_vl && (e_vm || v0[bc[$clog2(VLEN)-1:0]]);
            s2_olane <= bc[LNB-1:0];
            s2_seq <= e_seq;
            s2_first <= bc == {VW{1'b0}};
            s2_tree <= rtree;
            s2_half <= rhalf;
            s2_act <= ract;
            if (s2_v && s2_red) begin
                for (j = 0; j < NB; j = j + 1) racc[j] <= s2_sub ? srnext[32*j +: 32] : rnext[j];
                rval <= rnval;
                rvalE <= srnval;
            end
            s2_reg <= r_c;
            s2_marks <= marks;
            s2_kind <= efroms ? K_SCALAR : el ? (estr ? K_LOADS : K_LOAD) : K_LANES;
            for (j = 0; j < NB; j = j + 1) s2_sel[j] <= sel[j];
            s2_lop <= elop;
            s2_cvt <= e_ir[17:15];
            s2_isgn <= e_ir[26];
            s2_mk <= emk;
            s2_mlog <= emlog;
            s2_msf <= emsf;
            s2_vma <= e_vma;
            s2_mb <= mbit;
            s2_carry <= ecarry;
            s2_cin <= ecarry && !e_vm;
            if (s1_v && eiota) icnt <= gcnt;
            if (s1_v && ecomp) ccnt <= c_pos + VW'(c_sel);
            // vwmul* take vmul's low word (cc 101), vwmacc* vmacc's add (cc 100)
            s2_cc <= !ewop || !e_ir[29] ? e_ir[28:26] : e_ir[28] ? 3'b100 : 3'b101;
            s2_nar <= enar;
            s2_sub <= e_sub;
            s2_s16 <= e_osew == 2'd1;
            for (j = 0; j < 4 * NB; j = j + 1) s2_selE[j] <= selE[j];
            s2_mbE <= mbE;
            s2_actE <= actE;
            s2_part <= bt[0];
            s2_nhi <= enar && s1_last && !bt[0] && e_vta;
            s2_e0 <= e0;
            s2_vl <= e_vl;
            s2_rm <= e_frm;
            s2_vxrm <= e_vxrm;
            // funct6: 1000xx vsadd(u)/vssub(u) (OPI), 0010xx vaadd(u)/vasub(u) (OPM), 100111 vsmul,
            // 10101x vssrl/vssra, 10111x vnclip(u)
            s2_fxk <= e_ir[31:29] == F6_VAADDU[5:3] ? FX_AVG : e_ir[31:26] == F6_VSMUL ? FX_MUL :
                      e_ir[31:28] == F6_VSADDU[5:2] ? FX_SAT : FX_SHIFT;
            s2_fxsub <= e_ir[27];
            s2_np <= enp;
            s2_na <= ena;
            s2_swap <= eswap;
            s2_uvd <= evd;
            s2_a <= op_ax;
            s2_b <= op_bx;
            s2_c <= op_c;
            s2_rot <= w_unit[LNB-1:0];
            s2_uoff <= el && !estr ? e_xa[1:0] : 2'd0;
            s2_span <= u_span;
            if (s2_v && s2_kind == K_LOAD) ld_prev <= ld_cur;
            s2_bank <= w_str[LNB-1:0];
            s2_boff <= eaddr[1:0];
            s2_sc <= efp ? e_fa : e_xa;
            if (s2_v && s2_we) vrf[s2_reg] <= wval;
            if (s2_v) vones <= (vones & ~((s2_we ? 32'd1 : 32'd0) << s2_reg)) | s2_marks;
        end
    end
endmodule
