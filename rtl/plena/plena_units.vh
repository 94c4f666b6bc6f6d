// Function codes between plena's core and its units (micro-operations; the ISA's own
// constants are generated into plena_isa.vh). Included inside module bodies.
/* verilator lint_off UNUSEDPARAM */

// Scalar fp unit (plena_sfpu): functions, and the operand groups that share a gate.
// DMA descriptor kinds (plena_dma).
localparam [1:0] K_PV = 2'd0, K_PM = 2'd1, K_ST = 2'd2;
localparam [2:0] SFN_ADD  = 3'd0;
localparam [2:0] SFN_SUB  = 3'd1;
localparam [2:0] SFN_MUL  = 3'd2;
localparam [2:0] SFN_MAX  = 3'd3;
localparam [2:0] SFN_EXP  = 3'd4;
localparam [2:0] SFN_RECI = 3'd5;
localparam [2:0] SFN_SQRT = 3'd6;
localparam integer SFG_ADD = 0, SFG_MUL = 1, SFG_MAX = 2, SFG_EXP = 3, SFG_RECI = 4,
                   SFG_SQRT = 5, SFG_COUNT = 6;

// Vector unit (plena_vector).
localparam [3:0] VOP_ADD  = 4'd0;    // a + b
localparam [3:0] VOP_SUB  = 4'd1;    // a - b
localparam [3:0] VOP_RSUB = 4'd2;    // b - a (V_SUB_VF with rorder = 1)
localparam [3:0] VOP_MUL  = 4'd3;
localparam [3:0] VOP_MAX  = 4'd4;
localparam [3:0] VOP_MIN  = 4'd5;
localparam [3:0] VOP_EXP  = 4'd6;
localparam [3:0] VOP_RECI = 4'd7;
localparam [3:0] VOP_MAP  = 4'd8;    // S_MAP_V_FP: fp32 values to a bf16 row
localparam [3:0] VOP_RSUM = 4'd9;    // f + tree sum of the row
localparam [3:0] VOP_RMAX = 4'd10;   // max(f, max of the row)

// The units' structure: how long each takes is decided here and by the units' own
// pipelines (each signals its last cycle), never by hardware.toml's timing table, which
// the RTL does not read. simulators/plena_rtl/timing.py reads these numbers back and
// holds hardware.toml's classes to them, so the functional model counts what the RTL does.
//
// Pipeline depth of each lane kind after its chunk is read (plena_vgroup): the operand
// register and a single-cycle function, or the operand register and a four-stage
// pipeline; and the chunks a row is read in (VLEN / chunks lanes per function). An
// element-wise instruction takes chunks + depth cycles.
localparam integer VDEPTH_1 = 1;     // add, subtract, multiply, max, min, S_MAP_V_FP
localparam integer VDEPTH_4 = 4;     // exp, reciprocal
localparam integer VCHUNKS_1 = 2;    // chunks of the depth-1 kinds
localparam integer VCHUNKS_4 = 4;    // chunks of exp and reciprocal
// The reductions: the row captured, the registered tree (one level per cycle, log2(VLEN)
// of them), the final combine with f; they end when the result is there:
// log2(VLEN) + RED_EXTRA cycles.
localparam integer RED_EXTRA = 2;
// V_SHFT_V: the source row read into the shifter's register, then VSHIFT_DEPTH cycle to
// shift it and write the destination.
localparam integer VSHIFT_DEPTH = 1;
// Scalar exp, reciprocal and square root: four-stage pipelines (plena_sfpu).
localparam integer SFP_DEPTH = 4;
// The MAC array: a step's sums reach the accumulators MAC_DEPTH cycles after its own
// cycle; a write-out rounds its last row WO_DEPTH cycle after reading it (plena_matrix).
localparam integer MAC_DEPTH = 4;
localparam integer WO_DEPTH = 1;
// V_TOPK's engine (plena_topk): capture, k selections (4 of 32, 8 of 128), then the exp
// pipeline (4), the sum, the reciprocal pipeline (4) and the products: k + TOPK_EXTRA
// cycles, ending when the weights are there.
localparam integer TOPK_EXTRA = 11;

// Matrix unit (plena_matrix): what the array computes, and the write-outs.
localparam [3:0] MOP_MM     = 4'd0;
localparam [3:0] MOP_TMM    = 4'd1;
localparam [3:0] MOP_BMM    = 4'd2;
localparam [3:0] MOP_BTMM   = 4'd3;
localparam [3:0] MOP_MV     = 4'd4;
localparam [3:0] MOP_TMV    = 4'd5;
localparam [3:0] MOP_BMV    = 4'd6;
localparam [3:0] MOP_BTMV   = 4'd7;
localparam [3:0] MOP_MM_WO  = 4'd8;
localparam [3:0] MOP_MV_WO  = 4'd9;
localparam [3:0] MOP_BMM_WO = 4'd10;
localparam [3:0] MOP_BMV_WO = 4'd11;

// Host port spaces (plena_core's host_sel): what host_addr indexes. Writes only to the
// first eight (memories and registers), only while the core is not running. Reads of the
// first five (the memories: SRAM read ports) only while the core is idle or done, the
// data the cycle after the address; of the rest any time, combinationally.
localparam [3:0] HS_IMEM   = 4'd0;   // program words
localparam [3:0] HS_VSRAM  = 4'd1;   // Vector SRAM rows
localparam [3:0] HS_MSRAM  = 4'd2;   // Matrix SRAM rows (tile t, row r at t*MLEN + r)
localparam [3:0] HS_FPMEM  = 4'd3;
localparam [3:0] HS_INTMEM = 4'd4;
localparam [3:0] HS_GP     = 4'd5;   // gp registers (gp0 reads 0, ignores writes)
localparam [3:0] HS_F      = 4'd6;   // f registers
localparam [3:0] HS_A      = 4'd7;   // a registers (64 bits)
localparam [3:0] HS_CSR    = 4'd8;   // 0 stride, 1 scale, 2 V_MASK, 3 loop depth
localparam [3:0] HS_LOOP   = 4'd9;   // loop stack: body pcs
localparam [3:0] HS_MM     = 4'd10;  // accumulators, one fp32 entry per address
localparam [3:0] HS_MV     = 4'd11;
localparam [3:0] HS_BMM    = 4'd12;
localparam [3:0] HS_BMV    = 4'd13;
localparam [3:0] HS_STAT   = 4'd14;  // 0 error cycle, 1 DMA wait, 2 channel busy, 3+u unit u busy

// Run-time errors the core reports (simulators/plena_rtl maps them to SimError kinds).
localparam [3:0] ERR_NONE     = 4'd0;
localparam [3:0] ERR_RANGE    = 4'd1;   // address outside its memory (err_mem, err_addr)
localparam [3:0] ERR_ALIGN    = 4'd2;   // address breaks an alignment rule
localparam [3:0] ERR_SHIFT    = 4'd3;   // V_SHFT_V amount outside 0..VLEN
localparam [3:0] ERR_NAN      = 4'd4;   // V_TOPK logit is NaN (err_addr: its address)
localparam [3:0] ERR_LOOP_DEEP = 4'd5;  // C_LOOP_START beyond LOOP_DEPTH
localparam [3:0] ERR_LOOP_NONE = 4'd6;  // C_LOOP_END without an open loop
localparam [3:0] ERR_ILLEGAL  = 4'd7;   // not a legal instruction word
localparam [3:0] ERR_BUDGET   = 4'd8;   // instruction budget reached
localparam [3:0] ERR_CYCLES   = 4'd9;   // cycle budget reached
localparam [3:0] ERR_HALT     = 4'd10;  // stopped from outside (wall-clock limit)

// How a run ended.
localparam [1:0] STOP_END = 2'd0, STOP_BREAK = 2'd1, STOP_ERROR = 2'd2;

/* verilator lint_on UNUSEDPARAM */
