// coral_core: coral's in-order RV32IMF + Zicsr scalar core (after Coral NPU's scalar
// core), three stages:
//
//   IF  the ITCM read: the address presented in one cycle is the word on i_rdata in
//       the next;
//   ID  that word: predecoded for the next fetch address (jal: its target; a branch
//       backward or to itself: taken; anything else: pc + 4);
//   EX  register read, execute, memory access, write-back; multi-cycle instructions
//       hold EX (and so the front end): loads 2 cycles (synchronous DTCM read), mul 2
//       (a registered 33x33 product), div/rem 33 (1 set-up + 32 restoring steps), and
//       the F instructions as coral_fpu says (1, 2, 3 or 12).
//
// A branch resolves in EX; when the prediction made in ID was wrong (and always for
// jalr, whose target only EX knows) the word in ID is dropped and EX is empty for one
// cycle: the branch penalty. Results are written at the end of EX, so the next
// instruction reads them from the register file: no forwarding, no hazards.
//
// Vector instructions: vsetvli/vsetivli/vsetvl execute here (1 cycle; vl and vtype are
// registers of this core); the rest are checked and dispatched in 1 cycle to coral_vec,
// the decoupled vector unit (its queue full: EX waits). EX also waits before a scalar
// load while vector stores are pending, before a scalar store while vector loads or
// stores are, before fence and fflags/fcsr/vxsat/vcsr accesses until the vector unit
// has issued everything, and after vfmv.f.s/vmv.x.s until the unit issues it (timing
// model rule 4). When the scalar side stops, the run goes on until the vector unit is
// idle (`ending`).
//
// Cycle count: while idle the core prefetches address 0, so the first instruction
// enters EX on the edge that samples `start`; `cycles` counts every edge after that
// up to and including the one that raises `done`. The run ends when the instruction
// to enter EX would be the one at end_pc (the program's end), after ecall/ebreak, or
// on an error (a faulting instruction does not retire or write anything).
module coral_core #(
    parameter integer ITCM_WORDS = 2048,
    parameter integer DTCM_WORDS = 4096,
    parameter [31:0]  DTCM_BASE  = 32'h0001_0000,
    parameter integer DTCM_SIZE  = 16384,
    parameter integer VLEN       = 128,
    parameter integer VQ_DEPTH   = 8
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        start,        // pulse, accepted while `ready`
    input  wire [31:0] end_pc,       // byte address one past the program
    input  wire [63:0] max_retire,   // instruction budget
    input  wire [63:0] max_cycles,   // cycle budget
    input  wire        halt,         // stop before the next instruction
    output wire        ready,
    output reg         running,
    output reg         done,
    output reg  [1:0]  stop,         // 0 end, 1 ecall/ebreak, 2 error
    output reg  [3:0]  err_code,
    output reg  [31:0] err_pc,
    output reg  [31:0] err_addr,
    output reg  [63:0] err_cycle,
    output reg  [63:0] cycles,
    output reg  [63:0] retired,
    output wire [12*64-1:0] unit_busy, // alu, branch, lsu, mul, div, csr, system, fpu, fdiv,
                                       // vcfg, vdispatch, vector
    output reg  [63:0] stall_full,   // cycles waiting for a vector queue slot
    output reg  [63:0] stall_sync,   // cycles waiting for the vector unit
    output wire [$clog2(VLEN):0] vl_o,
    output wire [31:0] vtype_o,
    output reg  [4:0]  fflags,
    output reg  [2:0]  frm,
    output reg  [1:0]  vxrm,
    output reg         vxsat,
    // instruction memory (read only for the core)
    input  wire        host_itcm,    // the host uses the ITCM port this cycle
    output wire        i_en,
    output wire [$clog2(ITCM_WORDS)-1:0] i_addr,
    input  wire [31:0] i_rdata,
    // data memory
    output wire        d_en,
    output wire [3:0]  d_we,
    output wire [$clog2(DTCM_WORDS)-1:0] d_addr,
    output wire [31:0] d_wdata,
    input  wire [31:0] d_rdata,
    // the vector unit's ports of the DTCM banks (one bank per 32 bits of VLEN), on its gated clock
    output wire                   v_clk,
    output wire [VLEN/32-1:0]     v_en,
    output wire [VLEN/8-1:0]      v_we,
    output wire [($clog2(DTCM_WORDS)-$clog2(VLEN/32))*(VLEN/32)-1:0] v_addr,
    output wire [VLEN-1:0]        v_wdata,
    input  wire [VLEN-1:0]        v_rdata,
    // ... and its extra word of an unaligned unit-stride store's beat, for port A
    output wire [3:0]             vx_we,
    output wire [$clog2(DTCM_WORDS)-1:0] vx_word,
    output wire [31:0]            vx_wdata,
    // register file access for the host (while not running): x, or f with dbg_f
    input  wire        dbg_f,
    input  wire        dbg_we,
    input  wire [16:0] dbg_addr,     // x/f: 0..31; vector register words: 0x10000 + reg * VLEN/32 + word
    input  wire [31:0] dbg_wdata,
    output wire [31:0] dbg_rdata,
    // retirement port: what the instruction leaving EX on this edge did
    output wire        rt_valid,
    output wire [31:0] rt_pc,
    output wire [63:0] rt_cycle,
    output wire        rt_rd_we,
    output wire        rt_fd_we,
    output wire [4:0]  rt_rd,
    output wire [31:0] rt_rd_val,
    output wire        rt_st,
    output wire [31:0] rt_st_addr,
    output wire [2:0]  rt_st_size,
    output wire [31:0] rt_st_data,
    output wire        rt_csr,       // a CSR instruction (fflags, frm, vxrm, vxsat as they are now)
    output wire [4:0]  rt_fpf,       // the flags a scalar F instruction raised
    output wire        rt_vset,      // vsetvl*: vl and vtype as they are now
    // the vector unit's trace port (coral_vec)
    output wire [31:0] vt_s1seq,
    output wire [31:0] vt_s2seq,
    output wire        vt_we,
    output wire [4:0]  vt_reg,
    output wire [VLEN-1:0] vt_val,
    output wire [31:0] vt_marks,
    output wire [5:0]  vt_flags
);
    localparam integer IA = $clog2(ITCM_WORDS);
    localparam integer DA = $clog2(DTCM_WORDS);
    localparam integer VW = $clog2(VLEN) + 1;
    `include "coral_isa.vh"

    // A vector instruction the unit may take: OP-V but the configuration group, and the
    // loads and stores of LOAD-FP / STORE-FP with a vector width (flw/fsw have 32-bit 3'b010).
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic isa_vop(input [31:0] word);
        isa_vop = (word[6:0] == OPC_OP_V && word[14:12] != OPCFG) ||
                  ((word[6:0] == OPC_LOAD_FP || word[6:0] == OPC_STORE_FP) && (word[14:12] == VW_E8 || word[14:12] >= VW_E16));
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    // An instruction of the F unit: OP-FP or a fused multiply-add's major opcode.
    function automatic isa_fpu_opc(input [6:0] opc);
        isa_fpu_opc = opc == OPC_OP_FP || isa_fma_opc(opc);
    endfunction
    localparam [3:0] E_MEM = 4'd1, E_JUMP = 4'd2, E_CSR = 4'd3, E_ILLEGAL = 4'd4,
                     E_BUDGET = 4'd5, E_CYCLES = 4'd6, E_HALT = 4'd7, E_FRM = 4'd8,
                     E_VEC = 4'd9, E_VUNSUP = 4'd10, E_VPEND = 4'd11;
    localparam [3:0] U_ALU = 4'd0, U_BRANCH = 4'd1, U_LSU = 4'd2, U_MUL = 4'd3, U_DIV = 4'd4,
                     U_CSR = 4'd5, U_SYS = 4'd6, U_FPU = 4'd7, U_FDIV = 4'd8, U_VCFG = 4'd9,
                     U_VDISP = 4'd10;
    localparam integer NU = 11;
    localparam [3:0] K_ADD = 4'd0, K_SUB = 4'd1, K_MUL = 4'd2, K_FMA = 4'd3, K_DIV = 4'd4,
                     K_SQRT = 4'd5, K_SGNJ = 4'd6, K_MINMAX = 4'd7, K_CVT_WS = 4'd8,
                     K_CVT_SW = 4'd9, K_MVXW = 4'd10, K_MVWX = 4'd11, K_CMP = 4'd12,
                     K_CLASS = 4'd13;

    // ------------------------------------------------------------------ ID (predecode)
    reg         id_ok;           // i_rdata holds the word at id_pc
    reg  [31:0] id_pc;
    wire [31:0] w = i_rdata;
    wire [31:0] w_imm_j = {{12{w[31]}}, w[19:12], w[20], w[30:21], 1'b0};
    wire [31:0] w_imm_b = {{20{w[31]}}, w[7], w[30:25], w[11:8], 1'b0};
    wire        w_back = w[31] || w_imm_b == 32'd0;     // backward or to itself
    wire [31:0] id_pred = (w[6:0] == OPC_JAL) ? id_pc + w_imm_j :
                          (w[6:0] == OPC_BRANCH && w_back) ? id_pc + w_imm_b : id_pc + 32'd4;
    wire        id_end = id_pc == end_pc;

    // ------------------------------------------------------------------ EX
    reg         ex_valid;
    reg         ending;          // stopped; waiting for the vector unit to finish
    reg  [31:0] ex_pc, ex_ir, ex_pred;
    reg  [63:0] ex_issue;
    reg  [5:0]  ex_cnt;          // cycles this instruction has spent in EX
    reg  [31:0] x [1:31];
    reg  [31:0] fr [0:31];

    wire [6:0] op = ex_ir[6:0];
    wire [4:0] rd = ex_ir[11:7], rs1 = ex_ir[19:15], rs2 = ex_ir[24:20];
    wire [2:0] f3 = ex_ir[14:12];
    wire [6:0] f7 = ex_ir[31:25];
    wire [31:0] a = rs1 == 5'd0 ? 32'd0 : x[rs1];
    wire [31:0] b = rs2 == 5'd0 ? 32'd0 : x[rs2];
    wire [31:0] imm_i = {{20{ex_ir[31]}}, ex_ir[31:20]};
    wire [31:0] imm_s = {{20{ex_ir[31]}}, ex_ir[31:25], ex_ir[11:7]};
    wire [31:0] imm_b = {{20{ex_ir[31]}}, ex_ir[7], ex_ir[30:25], ex_ir[11:8], 1'b0};
    wire [31:0] imm_u = {ex_ir[31:12], 12'd0};
    wire [31:0] imm_j = {{12{ex_ir[31]}}, ex_ir[19:12], ex_ir[20], ex_ir[30:21], 1'b0};

    wire is_lui = op == OPC_LUI, is_auipc = op == OPC_AUIPC, is_jal = op == OPC_JAL;
    wire is_jalr = op == OPC_JALR && f3 == F3_JALR;
    wire is_br = op == OPC_BRANCH && (f3 == F3_BEQ || f3 == F3_BNE || f3 == F3_BLT || f3 == F3_BGE ||
                                      f3 == F3_BLTU || f3 == F3_BGEU);
    wire is_load = op == OPC_LOAD && (f3 == F3_LB || f3 == F3_LH || f3 == F3_LW || f3 == F3_LBU || f3 == F3_LHU);
    wire is_store = op == OPC_STORE && f3 <= F3_SW;                    // sb, sh, sw
    wire is_opimm = op == OPC_OP_IMM && (f3 == F3_SLLI ? f7 == F7_SLLI :
                                        f3 == F3_SRLI ? (f7 == F7_SRLI || f7 == F7_SRAI) : 1'b1);
    wire is_op = op == OPC_OP && (f7 == F7_ADD || (f7 == F7_SUB && (f3 == F3_SUB || f3 == F3_SRA)));
    wire is_mul = op == OPC_OP && f7 == F7_MUL && !f3[2];
    wire is_div = op == OPC_OP && f7 == F7_DIV && f3[2];
    wire is_fence = op == OPC_MISC_MEM && f3 == F3_FENCE;
    wire is_ecall = ex_ir == INSN_ECALL, is_ebreak = ex_ir == INSN_EBREAK;
    wire is_csr = op == OPC_SYSTEM && (f3 == F3_CSRRW || f3 == F3_CSRRS || f3 == F3_CSRRC || f3 == F3_CSRRWI ||
                                      f3 == F3_CSRRSI || f3 == F3_CSRRCI);

    // --- V: vsetvli/vsetivli/vsetvl here (class VSET), the rest dispatched to coral_vec
    wire is_vset = op == OPC_OP_V && f3 == OPCFG &&
                   (ex_ir[31] == TOP_VSETVLI || ex_ir[31:30] == TOP_VSETIVLI || ex_ir[31:25] == F7_VSETVL);
    wire is_vop = isa_vop(ex_ir);
    reg  [VW-1:0] vl;
    reg  [8:0]  vt;                  // {vill, vma, vta, vsew, vlmul}
    wire [VW-1:0] v_ffvl;
    wire        v_legal, v_fault, v_unsup, v_pend, v_drain, v_ffl, v_to_scalar, v_full, v_st_pend, v_mem_pend, v_drained,
                v_active, v_sval_ok;
    wire [31:0] v_sval, v_dbg_rdata;
    wire [4:0]  v_flags;
    wire        v_sat;          // a fixed-point element saturated in S2 (vxsat)
    wire [63:0] v_busy;
    wire is_vec = is_vop && v_legal;

    // --- F: loads, stores, and the coral_fpu operations (kind, latency, destination)
    wire is_flw = op == OPC_LOAD_FP && f3 == F3_FLW, is_fsw = op == OPC_STORE_FP && f3 == F3_FSW;
    wire is_fma = isa_fma(ex_ir);
    wire is_opfp = op == OPC_OP_FP;
    // decoded from the F register (below), which holds EX's instruction whenever it is one
    // of these (is_fp says so): the decode and the unit's operand logic switch only when an
    // F instruction enters EX
    reg  [31:0] fd_ir;
    wire [2:0] fd_f3 = fd_ir[14:12];
    wire [4:0] fd_rs2 = fd_ir[24:20];
    wire       fd_fma = isa_fma(fd_ir);
    wire       fd_opfp = fd_ir[6:0] == OPC_OP_FP;
    reg        fp_ok, fp_to_x, fp_rm;
    reg [3:0]  kind;
    always @(*) begin
        fp_ok = fd_opfp;
        fp_to_x = 1'b0;
        fp_rm = 1'b0;                                  // takes a rounding mode
        kind = K_SGNJ;
        if (fd_fma) begin kind = K_FMA; fp_ok = 1'b1; fp_rm = 1'b1; end
        else case (fd_ir[31:25])
            F7_FADD_S: begin kind = K_ADD; fp_rm = 1'b1; end
            F7_FSUB_S: begin kind = K_SUB; fp_rm = 1'b1; end
            F7_FMUL_S: begin kind = K_MUL; fp_rm = 1'b1; end
            F7_FDIV_S: begin kind = K_DIV; fp_rm = 1'b1; end
            F7_FSQRT_S: begin kind = K_SQRT; fp_rm = 1'b1; fp_ok = fd_opfp && fd_rs2 == SEL_FSQRT_S; end
            F7_FSGNJ_S: begin kind = K_SGNJ; fp_ok = fd_opfp && fd_f3 <= F3_FSGNJX_S; end
            F7_FMIN_S: begin kind = K_MINMAX; fp_ok = fd_opfp && fd_f3 <= F3_FMAX_S; end
            F7_FCVT_W_S: begin kind = K_CVT_WS; fp_rm = 1'b1; fp_to_x = 1'b1;
                fp_ok = fd_opfp && fd_rs2 <= SEL_FCVT_WU_S; end
            F7_FCVT_S_W: begin kind = K_CVT_SW; fp_rm = 1'b1;
                fp_ok = fd_opfp && fd_rs2 <= SEL_FCVT_S_WU; end
            F7_FMV_X_W: begin
                kind = fd_f3 == F3_FMV_X_W ? K_MVXW : K_CLASS;
                fp_to_x = 1'b1;
                fp_ok = fd_opfp && fd_rs2 == SEL_FMV_X_W && fd_f3 <= F3_FCLASS_S;
            end
            F7_FEQ_S: begin kind = K_CMP; fp_to_x = 1'b1; fp_ok = fd_opfp && fd_f3 <= F3_FEQ_S; end
            F7_FMV_W_X: begin kind = K_MVWX; fp_ok = fd_opfp && fd_rs2 == SEL_FMV_W_X && fd_f3 == F3_FMV_W_X; end
            default: fp_ok = 1'b0;
        endcase
    end
    wire is_fp = fp_ok && (is_fma || is_opfp);
    wire rm_reserved = fp_rm && f3 > RM_RMM && f3 != RM_DYN;      // the encodings no mode names
    wire frm_bad = is_fp && fp_rm && f3 == RM_DYN && frm > RM_RMM;
    wire [5:0] fp_last = (kind == K_DIV || kind == K_SQRT) ? 6'd11 : kind == K_FMA ? 6'd2 :
                         (kind == K_ADD || kind == K_SUB || kind == K_MUL || kind == K_CVT_WS ||
                          kind == K_CVT_SW) ? 6'd1 : 6'd0;
    wire [31:0] fp_y;
    wire [4:0]  fp_flags;
    wire legal = is_lui | is_auipc | is_jal | is_jalr | is_br | is_load | is_store | is_opimm |
                 is_op | is_mul | is_div | is_fence | is_ecall | is_ebreak | is_csr |
                 is_flw | is_fsw | (is_fp && !rm_reserved) | is_vset | is_vec;
    wire [3:0] unit = is_vset ? U_VCFG : is_vec ? U_VDISP : (is_jal | is_jalr | is_br) ? U_BRANCH :
                      (is_load | is_store | is_flw | is_fsw) ? U_LSU :
                      is_mul ? U_MUL : is_div ? U_DIV : is_csr ? U_CSR :
                      (is_fence | is_ecall | is_ebreak) ? U_SYS :
                      (is_fp && (kind == K_DIV || kind == K_SQRT)) ? U_FDIV : is_fp ? U_FPU : U_ALU;

    // --- vset*: the requested vtype, its VLMAX, the new vl
    wire [31:0] vt_req = !ex_ir[31] ? {21'd0, ex_ir[30:20]} : ex_ir[30] ? {22'd0, ex_ir[29:20]} : b;
    wire [2:0]  rq_lmul = vt_req[2:0], rq_sew = vt_req[5:3];
    wire        vt_bad = vt_req[31:8] != 24'd0 || rq_sew > 3'd2 || rq_lmul == 3'd4 || rq_lmul == 3'd5 ||
                         (rq_lmul == 3'd6 && rq_sew > 3'd0) || (rq_lmul == 3'd7 && rq_sew > 3'd1);
    wire [VW+3:0] vlmax_w = rq_lmul[2] ? ({4'd0, VW'(VLEN)} >> (4'd8 - {1'b0, rq_lmul})) >> (3 + rq_sew) :
                                         ({4'd0, VW'(VLEN)} << rq_lmul[1:0]) >> (3 + rq_sew);
    wire [VW-1:0] vlmax = vlmax_w[VW-1:0];
    wire        avl_x = !(ex_ir[31:30] == TOP_VSETIVLI) && rs1 != 5'd0;           // AVL from x[rs1]
    wire        avl_max = !(ex_ir[31:30] == TOP_VSETIVLI) && rs1 == 5'd0 && rd != 5'd0;
    wire        avl_keep = !(ex_ir[31:30] == TOP_VSETIVLI) && rs1 == 5'd0 && rd == 5'd0;
    wire [31:0] avl = ex_ir[31:30] == TOP_VSETIVLI ? {27'd0, rs1} : a;
    wire        vs_vill = vt_bad || (avl_keep && vl > vlmax);
    wire [VW-1:0] vl_new = vs_vill ? {VW{1'b0}} : avl_max ? vlmax : avl_keep ? vl :
                           (avl < {{(32 - VW){1'b0}}, vlmax}) ? avl[VW-1:0] : vlmax;
    wire _unused_vs = ^{avl_x, vlmax_w, dbg_addr[15:13], mul_p[65:64], dv_diff[32]};

    // --- ALU
    wire [31:0] alu_b = is_op ? b : imm_i;
    wire        alt = ex_ir[30] && (is_op || f3 == 3'd5);     // sub, sra, srai
    wire [4:0]  sh = alu_b[4:0];
    reg  [31:0] alu;
    always @(*)
        case (f3)
            3'd0: alu = alt ? a - alu_b : a + alu_b;
            3'd1: alu = a << sh;
            3'd2: alu = {31'd0, $signed(a) < $signed(alu_b)};
            3'd3: alu = {31'd0, a < alu_b};
            3'd4: alu = a ^ alu_b;
            3'd5: alu = alt ? $unsigned($signed(a) >>> sh) : a >> sh;
            3'd6: alu = a | alu_b;
            default: alu = a & alu_b;
        endcase

    // --- branches and jumps
    reg taken;
    always @(*)
        case (f3)
            3'd0: taken = a == b;
            3'd1: taken = a != b;
            3'd4: taken = $signed(a) < $signed(b);
            3'd5: taken = $signed(a) >= $signed(b);
            3'd6: taken = a < b;
            default: taken = a >= b;
        endcase
    wire [31:0] jalr_t = (a + imm_i) & ~32'd1;
    wire        jalr_bad = jalr_t[1] || jalr_t > end_pc;
    wire [31:0] link = ex_pc + 32'd4;
    wire [31:0] ex_next = is_jal ? ex_pc + imm_j : is_jalr ? jalr_t :
                          (is_br && taken) ? ex_pc + imm_b : link;

    // --- loads and stores: one DTCM port, checked address
    wire        mem_ld = is_load | is_flw, mem_st = is_store | is_fsw;
    wire [31:0] st_src = is_fsw ? fr[rs2] : b;
    wire [31:0] maddr = a + (mem_st ? imm_s : imm_i);
    wire [2:0]  msize = f3[1:0] == 2'd0 ? 3'd1 : f3[1:0] == 2'd1 ? 3'd2 : 3'd4;
    wire [32:0] moff = {1'b0, maddr} - {1'b0, DTCM_BASE};
    wire        mis = (msize == 3'd4 && maddr[1:0] != 2'd0) || (msize == 3'd2 && maddr[0]);
    localparam [32:0] DSIZE = 33'(DTCM_SIZE);
    wire        mbad = mis || moff[32] || moff > DSIZE - {30'd0, msize};
    wire [1:0]  mb = moff[1:0];
    wire [31:0] ld_word = d_rdata >> {mb, 3'b000};
    wire [31:0] ld_val = is_flw ? d_rdata : f3 == 3'd0 ? {{24{ld_word[7]}}, ld_word[7:0]} :
                         f3 == 3'd1 ? {{16{ld_word[15]}}, ld_word[15:0]} :
                         f3 == 3'd4 ? {24'd0, ld_word[7:0]} :
                         f3 == 3'd5 ? {16'd0, ld_word[15:0]} : ld_word;
    wire [3:0]  st_mask = (msize == 3'd1 ? 4'b0001 : msize == 3'd2 ? 4'b0011 : 4'b1111) << mb;

    // --- multiplier: the 33x33 product registered in the first cycle, selected in the second
    reg  [65:0] mul_p;
    wire [32:0] mul_a = {f3 != 3'd3 && f3 != 3'd0 && a[31], a};      // mulh, mulhsu: signed a
    wire [32:0] mul_b = {f3 == 3'd1 && b[31], b};                    // mulh: signed b
    wire [31:0] mul_val = f3 == 3'd0 ? mul_p[31:0] : mul_p[63:32];

    // --- divider: set-up, then one restoring step per cycle
    reg  [31:0] dv_rem, dv_quo, dv_dvs;
    reg         dv_negq, dv_negr;
    wire        dv_signed = !f3[0];
    wire [32:0] dv_sh = {dv_rem, dv_quo[31]};
    wire [33:0] dv_diff = {1'b0, dv_sh} - {2'b0, dv_dvs};
    wire        dv_fit = !dv_diff[33];
    wire [31:0] dv_rem_n = dv_fit ? dv_diff[31:0] : dv_sh[31:0];
    wire [31:0] dv_quo_n = {dv_quo[30:0], dv_fit};
    wire [31:0] div_val = f3[1] ? (dv_negr ? -dv_rem_n : dv_rem_n) : (dv_negq ? -dv_quo_n : dv_quo_n);

    // --- CSRs
    wire [11:0] csr = ex_ir[31:20];
    wire [31:0] csr_src = f3[2] ? {27'd0, rs1} : a;
    wire        csr_wr = f3[1:0] == 2'd1 || rs1 != 5'd0;
    reg  [31:0] csr_old;
    reg         csr_exists, csr_ro;
    always @(*) begin
        csr_exists = 1'b1;
        csr_ro = 1'b0;
        case (csr)
            CSR_FFLAGS: csr_old = {27'd0, fflags | v_flags};
            CSR_FRM: csr_old = {29'd0, frm};
            CSR_FCSR: csr_old = {24'd0, frm, fflags | v_flags};
            CSR_VSTART: csr_old = 32'd0;                          // vstart
            CSR_VXSAT: csr_old = {31'd0, vxsat | v_sat};
            CSR_VXRM: csr_old = {30'd0, vxrm};
            CSR_VCSR: csr_old = {29'd0, vxrm, vxsat | v_sat};
            CSR_CYCLE, CSR_TIME: begin csr_old = ex_issue[31:0]; csr_ro = 1'b1; end
            CSR_CYCLEH, CSR_TIMEH: begin csr_old = ex_issue[63:32]; csr_ro = 1'b1; end
            CSR_INSTRET: begin csr_old = retired[31:0]; csr_ro = 1'b1; end
            CSR_INSTRETH: begin csr_old = retired[63:32]; csr_ro = 1'b1; end
            CSR_VL: begin csr_old = {{(32 - VW){1'b0}}, vl}; csr_ro = 1'b1; end
            CSR_VTYPE: begin csr_old = vtype_o; csr_ro = 1'b1; end
            CSR_VLENB: begin csr_old = VLEN / 8; csr_ro = 1'b1; end
            CSR_MHARTID: begin csr_old = 32'd0; csr_ro = 1'b1; end
            default: begin csr_old = 32'd0; csr_exists = 1'b0; end
        endcase
    end
    wire [31:0] csr_new = f3[1:0] == 2'd1 ? csr_src : f3[1:0] == 2'd2 ? (csr_old | csr_src) :
                          (csr_old & ~csr_src);
    wire csr_bad = !csr_exists || (csr_wr && csr_ro && (csr_new != csr_old || f3[1:0] == 2'd1)) ||
                   (csr_wr && csr == CSR_VSTART && csr_new != 32'd0);

    // --- the instruction in EX: its last cycle, fault, result
    wire first = ex_cnt == 6'd0;
    // waits for the vector unit before the instruction starts (timing model rule 4):
    // a scalar load for vector stores, a scalar store for vector loads and stores,
    // fence and fflags/fcsr/vxsat/vcsr accesses for everything, an indexed vector access (whose
    // dispatch checks read the offsets) for the writers of its offsets and v0 (v_drain); a
    // dispatch for a slot
    wire drains = is_fence || (is_csr && (csr == CSR_FFLAGS || csr == CSR_FCSR || csr == CSR_VXSAT || csr == CSR_VCSR));
    wire w_sync = first && ((mem_ld && v_st_pend) || (mem_st && v_mem_pend) || (drains && !v_drained) ||
                            (is_vec && v_drain));
    wire w_full = first && is_vec && v_full && !w_sync;   // (an indexed access waits first: a sync stall)
    wire hold = w_sync || w_full;
    wire ex_last = hold ? 1'b0 : is_vec ? (v_to_scalar ? !first && v_sval_ok : 1'b1) :
                   (mem_ld | is_mul) ? ex_cnt == 6'd1 : is_div ? ex_cnt == 6'd32 :
                   is_fp ? ex_cnt == fp_last : 1'b1;
    wire v_ok = !(first && (v_fault || v_unsup || v_pend));
    wire [3:0] fault = !legal ? E_ILLEGAL : (is_vec && first && v_fault) ? E_VEC :
                       (is_vec && first && v_unsup) ? E_VUNSUP : (is_vec && first && v_pend) ? E_VPEND : ((mem_ld | mem_st) && mbad && first) ? E_MEM :
                       (is_jalr && jalr_bad) ? E_JUMP : (is_csr && csr_bad) ? E_CSR :
                       frm_bad ? E_FRM : 4'd0;
    // what the host needs to name the fault: the address, the CSR's source operand, frm
    wire [31:0] fault_addr = (mem_ld | mem_st) ? maddr : is_csr ? csr_src : frm_bad ? {29'd0, frm} :
                             jalr_t;
    wire v_fd = is_vec && v_to_scalar && f3 == 3'd1;                    // vfmv.f.s
    wire writes_fd = is_flw || (is_fp && !fp_to_x) || v_fd;
    wire writes_rd = rd != 5'd0 && !(is_br | is_store | is_fence | is_ecall | is_ebreak | (is_vec && !v_to_scalar) |
                                     is_fsw | writes_fd);
    wire [31:0] result = is_lui ? imm_u : is_auipc ? ex_pc + imm_u : (is_jal | is_jalr) ? link :
                         mem_ld ? ld_val : is_mul ? mul_val : is_div ? div_val :
                         is_csr ? csr_old : is_fp ? fp_y : is_vset ? {{(32 - VW){1'b0}}, vl_new} :
                         is_vec ? v_sval : alu;

    // ------------------------------------------------------------------ control
    wire ex_busy = running && ex_valid;
    wire retire = ex_busy && ex_last && fault == 4'd0;
    reg  [31:0] fd_a, fd_b, fd_c, fd_x;
    reg  [2:0]  fd_frm;
    coral_fpu u_fpu (.clk(clk), .start(ex_busy && first && is_fp), .kind(kind),
                     .fma_stage2(ex_busy && is_fp && kind == K_FMA && ex_cnt == 6'd1),
                     .neg({fd_ir[6:0] == OPC_NMSUB || fd_ir[6:0] == OPC_NMADD, fd_ir[6:0] == OPC_MSUB || fd_ir[6:0] == OPC_NMADD}),
                     .f3(fd_f3), .unsigned_int(fd_rs2[0]), .rm(fd_f3 == RM_DYN ? fd_frm : fd_f3),
                     .a(fd_a), .b(fd_b), .c(fd_c), .x(fd_x), .result(fp_y), .flags(fp_flags));
    wire faulted = ex_busy && fault != 4'd0;
    wire brk = retire && (is_ecall | is_ebreak);
    wire redirect = retire && (is_jalr || ex_next != ex_pred);
    wire [63:0] retired_n = retired + {63'd0, retire};
    // on an edge while running: EX takes the word in ID
    wire take = running && !ending && !faulted && !brk && !redirect && (!ex_valid || ex_last);
    wire over_cycles = running && cycles >= max_cycles;

    assign ready = !running && id_ok;
    assign i_en = running ? (redirect || take) : 1'b1;
    // idle: prefetch address 0; the start edge and every `take` fetch ID's successor
    assign i_addr = redirect ? ex_next[IA+1:2] : (running || (start && id_ok)) ? id_pred[IA+1:2] :
                    {IA{1'b0}};
    assign d_en = ex_busy && first && (mem_ld || mem_st) && !mbad && !hold;
    assign d_we = (ex_busy && mem_st) ? st_mask : 4'd0;
    assign d_addr = moff[DA+1:2];
    assign d_wdata = st_src << {mb, 3'b000};
    assign dbg_rdata = dbg_addr[16] ? v_dbg_rdata : dbg_f ? fr[dbg_addr[4:0]] :
                       dbg_addr[4:0] == 5'd0 ? 32'd0 : x[dbg_addr[4:0]];
    assign vl_o = vl;
    assign vtype_o = vt[8] ? 32'h8000_0000 : {24'd0, vt[7:0]};

    // --- the vector dispatch register: a vector instruction entering EX and what the unit's
    // dispatch checks read (x[rs1], x[rs2], f[rs1], vl, vtype, frm, vxrm) as they are in its
    // EX cycles, i.e. after this edge's writes (the retiring instruction's, the host's). It is
    // loaded on its own gated clock, at every edge where a vector word enters EX (and maybe
    // others where nothing enters), so the checks do not switch while EX holds scalar code.
    // Nothing else writes those registers while the instruction is in EX.
    wire [4:0]  w_rs1 = w[19:15], w_rs2 = w[24:20], w_rs3 = w[31:27];
    wire        w_vop = isa_vop(w);
    wire        w_enter = take || (!running && start && id_ok);
    wire        vd_clk;
    icg u_vdgate (.clk(clk), .en(w_vop && w_enter), .gclk(vd_clk));
    reg  [31:0] vd_ir, vd_xa, vd_xb, vd_fa;
    reg  [VW-1:0] vd_vl;
    reg  [8:0]  vd_vt;
    reg  [2:0]  vd_frm;
    reg  [1:0]  vd_vxrm;
    // x[r], f[r] and frm as they are after this edge (read only in the gated registers' blocks)
    wire        wb_x = retire && writes_rd, wb_f = retire && writes_fd;
    wire        host_x = !running && dbg_we && !dbg_addr[16] && !dbg_f && dbg_addr[4:0] != 5'd0;
    wire        host_f = !running && dbg_we && !dbg_addr[16] && dbg_f;
    wire        csr_w = retire && is_csr && csr_wr;
    function automatic [31:0] x_after(input [4:0] r);
        x_after = r == 5'd0 ? 32'd0 : (wb_x && rd == r) ? result : (host_x && dbg_addr[4:0] == r) ? dbg_wdata : x[r];
    endfunction
    function automatic [31:0] f_after(input [4:0] r);
        f_after = (wb_f && rd == r) ? result : (host_f && dbg_addr[4:0] == r) ? dbg_wdata : fr[r];
    endfunction
    wire [2:0]  frm_after = (csr_w && csr == CSR_FRM) ? csr_new[2:0] : (csr_w && csr == CSR_FCSR) ? csr_new[7:5] : frm;
    always @(posedge vd_clk) begin
        vd_ir <= w;
        vd_xa <= x_after(w_rs1);
        vd_xb <= x_after(w_rs2);
        vd_fa <= f_after(w_rs1);
        vd_vl <= (retire && is_vset) ? vl_new : (retire && is_vec && v_ffl) ? v_ffvl : vl;
        vd_vt <= (retire && is_vset) ? (vs_vill ? 9'h100 : {1'b0, vt_req[7:0]}) : vt;
        vd_frm <= frm_after;
        vd_vxrm <= (csr_w && csr == CSR_VXRM) ? csr_new[1:0] : (csr_w && csr == CSR_VCSR) ? csr_new[2:1] : vxrm;
    end
    // --- the F register: likewise for an F unit instruction (OP-FP, the fused multiply-adds)
    // entering EX: the instruction, f[rs1], f[rs2], f[rs3], x[rs1] and frm, from which coral_fpu
    // works (its single-cycle operations combinationally, in the first EX cycle, as before)
    wire        w_fop = isa_fpu_opc(w[6:0]);
    wire        fd_clk;
    icg u_fdgate (.clk(clk), .en(w_fop && w_enter), .gclk(fd_clk));
    wire _unused_fd = ^{fd_ir[19:15], fd_ir[11:7]};     // (the register numbers: read at entry)
    always @(posedge fd_clk) begin
        fd_ir <= w;
        fd_a <= f_after(w_rs1);
        fd_b <= f_after(w_rs2);
        fd_c <= f_after(w_rs3);
        fd_x <= x_after(w_rs1);
        fd_frm <= frm_after;
    end

    coral_vec #(.VLEN(VLEN), .DEPTH(VQ_DEPTH), .DTCM_WORDS(DTCM_WORDS), .DTCM_BASE(DTCM_BASE),
                .DTCM_SIZE(DTCM_SIZE)) u_vec (
        .clk(clk), .rst(rst || (start && !running)), .d_valid(ex_busy && is_vec && first && !hold && v_ok && !faulted),
        .d_ir(vd_ir), .d_vl(vd_vl), .d_vt(vd_vt), .d_frm(vd_frm), .d_vxrm(vd_vxrm), .d_xa(vd_xa), .d_xb(vd_xb),
        .d_fa(vd_fa),
        .d_legal(v_legal), .d_fault(v_fault), .d_unsup(v_unsup), .d_pend(v_pend), .d_drain(v_drain), .d_ffl(v_ffl), .d_ffvl(v_ffvl), .d_to_scalar(v_to_scalar),
        .q_full(v_full), .st_pend(v_st_pend), .mem_pend(v_mem_pend), .drained(v_drained),
        .active(v_active), .sval_ok(v_sval_ok), .sval(v_sval), .vflags(v_flags), .vsat(v_sat), .busy_cycles(v_busy),
        .tr_s1seq(vt_s1seq), .tr_s2seq(vt_s2seq), .tr_we(vt_we), .tr_reg(vt_reg), .tr_val(vt_val),
        .tr_marks(vt_marks),
        .dbg_we(!running && dbg_we && dbg_addr[16]), .dbg_addr(dbg_addr[12:0]), .dbg_wdata(dbg_wdata),
        .dbg_rdata(v_dbg_rdata),
        .m_clk(v_clk), .m_en(v_en), .m_we(v_we), .m_addr(v_addr), .m_wdata(v_wdata), .m_rdata(v_rdata),
        .x_we(vx_we), .x_word(vx_word), .x_wdata(vx_wdata));

    assign rt_valid = retire;
    assign rt_pc = ex_pc;
    assign rt_cycle = ex_issue;
    assign rt_rd_we = writes_rd;
    assign rt_fd_we = writes_fd;
    assign rt_rd = rd;
    assign rt_rd_val = result;
    assign rt_st = mem_st;
    assign rt_st_addr = maddr;
    assign rt_st_size = msize;
    assign rt_st_data = st_src;
    assign rt_csr = is_csr;
    assign rt_fpf = is_fp ? fp_flags : 5'd0;
    assign rt_vset = is_vset || (is_vec && v_ffl);   // (a fault-only-first load sets vl)
    assign vt_flags = {v_sat, v_flags};
    wire _unused_v = ^{v_active};

    reg [63:0] busy [0:NU-1];
    genvar gu;
    generate
        for (gu = 0; gu < NU; gu = gu + 1) begin : g_busy
            assign unit_busy[64*gu +: 64] = busy[gu];
        end
    endgenerate
    assign unit_busy[64*NU +: 64] = v_busy;

    task automatic finish(input [1:0] how, input [3:0] code, input [31:0] pc, input [31:0] adr,
                          input [63:0] at);
        begin
            ending <= 1'b1;               // done once the vector unit has finished
            stop <= how;
            err_code <= code;
            err_pc <= pc;
            err_addr <= adr;
            err_cycle <= at;
            ex_valid <= 1'b0;
        end
    endtask

    // EX takes the word in ID (or the run ends there): on `start` and on `take` edges
    task automatic enter(input [63:0] at, input [63:0] done_count);
        begin
            if (id_end) finish(2'd0, 4'd0, id_pc, 32'd0, at);
            else if (done_count >= max_retire) finish(2'd2, E_BUDGET, id_pc, 32'd0, at);
            else if (halt) finish(2'd2, E_HALT, id_pc, 32'd0, at);
            else begin
                ex_valid <= 1'b1;
                ex_pc <= id_pc;
                ex_ir <= i_rdata;
                ex_pred <= id_pred;
                ex_issue <= at;
                id_pc <= id_pred;
            end
        end
    endtask

    integer k;
    always @(posedge clk) begin
        if (rst) begin
            running <= 1'b0;
            ending <= 1'b0;
            vl <= {VW{1'b0}};
            vt <= 9'h100;
            stall_full <= 64'd0;
            stall_sync <= 64'd0;
            done <= 1'b0;
            id_ok <= 1'b0;
            ex_valid <= 1'b0;
            stop <= 2'd0;
            err_code <= 4'd0;
            cycles <= 64'd0;
            retired <= 64'd0;
            fflags <= 5'd0;
            frm <= 3'd0;
            vxrm <= 2'd0;
            vxsat <= 1'b0;
            for (k = 0; k < NU; k = k + 1) busy[k] <= 64'd0;
        end else if (!running) begin
            if (dbg_we && !dbg_addr[16] && dbg_f) fr[dbg_addr[4:0]] <= dbg_wdata;
            else if (dbg_we && !dbg_addr[16] && dbg_addr[4:0] != 5'd0) x[dbg_addr[4:0]] <= dbg_wdata;
            id_ok <= !host_itcm;
            id_pc <= 32'd0;
            if (start && id_ok) begin
                running <= 1'b1;
                done <= 1'b0;
                cycles <= 64'd0;
                retired <= 64'd0;
                ex_cnt <= 6'd0;
                for (k = 0; k < NU; k = k + 1) busy[k] <= 64'd0;
                stall_full <= 64'd0;
                stall_sync <= 64'd0;
                enter(64'd0, 64'd0);
            end
        end else if (ending) begin
            // the scalar side has stopped: the run's cycles go on while the vector unit
            // works (the model's total: the later of the two)
            fflags <= fflags | v_flags;
            vxsat <= vxsat | v_sat;
            if (v_active) cycles <= cycles + 64'd1;
            else begin
                running <= 1'b0;
                done <= 1'b1;
                ending <= 1'b0;
            end
        end else begin
            cycles <= cycles + 64'd1;
            // (an instruction that faults on its first cycle does not wait: no stall)
            if (ex_busy && !faulted && w_full) stall_full <= stall_full + 64'd1;
            if (ex_busy && !faulted && (w_sync || (is_vec && v_to_scalar && !first))) stall_sync <= stall_sync + 64'd1;
            fflags <= fflags | v_flags | ((retire && is_fp) ? fp_flags : 5'd0);
            vxsat <= vxsat | v_sat;
            retired <= retired_n;
            // (a move to a scalar register waits any time after its dispatch: cnt stays 1)
            ex_cnt <= (ex_valid && !ex_last) ? ((hold || (is_vec && !first)) ? ex_cnt : ex_cnt + 6'd1) : 6'd0;
            if (!ex_valid) busy[U_BRANCH] <= busy[U_BRANCH] + 64'd1;    // the mispredict bubble
            if (retire) begin
                busy[unit] <= busy[unit] + (is_vec ? 64'd1 : {58'd0, ex_cnt} + 64'd1);
                if (writes_rd) x[rd] <= result;
                if (writes_fd) fr[rd] <= result;
                if (is_vec && v_ffl) vl <= v_ffvl;
                if (is_vset) begin
                    vl <= vl_new;
                    vt <= vs_vill ? 9'h100 : {1'b0, vt_req[7:0]};
                end
                if (is_csr && csr_wr)
                    case (csr)
                        CSR_FFLAGS: fflags <= csr_new[4:0];
                        CSR_FRM: frm <= csr_new[2:0];
                        CSR_FCSR: begin fflags <= csr_new[4:0]; frm <= csr_new[7:5]; end
                        CSR_VXSAT: vxsat <= csr_new[0];
                        CSR_VXRM: vxrm <= csr_new[1:0];
                        CSR_VCSR: begin vxsat <= csr_new[0]; vxrm <= csr_new[2:1]; end
                        default: ;
                    endcase
            end
            if (ex_busy && is_mul && first) mul_p <= $signed(mul_a) * $signed(mul_b);
            if (ex_busy && is_div) begin
                if (first) begin
                    dv_rem <= 32'd0;
                    dv_quo <= (dv_signed && a[31]) ? -a : a;
                    dv_dvs <= (dv_signed && b[31]) ? -b : b;
                    dv_negq <= dv_signed && (a[31] ^ b[31]) && b != 32'd0;
                    dv_negr <= dv_signed && a[31];
                end else begin
                    dv_rem <= dv_rem_n;
                    dv_quo <= dv_quo_n;
                end
            end
            if (faulted) begin
                // timed to this cycle: the instruction's issue cycle (every fault is found in its
                // first EX cycle, before any wait) or, for an indexed vector access, the cycle its
                // checks ran, after the vector unit drained
                finish(2'd2, fault, ex_pc, fault_addr, cycles);
                // the run's cycles: the fault's cycle, or later the vector unit's end
                cycles <= v_active ? cycles + 64'd1 : cycles;
            end
            else if (over_cycles) finish(2'd2, E_CYCLES, ex_valid ? ex_pc : id_pc, 32'd0, cycles);
            else if (brk) finish(2'd1, 4'd0, ex_pc, 32'd0, cycles + 64'd1);
            else if (redirect) begin
                ex_valid <= 1'b0;
                id_pc <= ex_next;
            end else if (take) enter(cycles + 64'd1, retired_n);
        end
    end
endmodule
