// aie_mac: the vector multiply-accumulate unit (VMUL, VMAC, VMSC, VMMAC on int8, int16
// and bf16 lanes into 32 int32/fp32 accumulator lanes), pipelined over MAC_LATENCY (LAT) cycles.
//
// Cycle t (issue): the core hands over the operation and its vector operands, latched
// at the issue edge. Cycle t+1: the products and their sums per accumulator lane. The
// sums then travel LAT-3 cycles of delay. Cycle t+LAT-1: the accumulator, taken from
// the core's register file at the edge before (or forwarded from the result landing
// at that edge), is added (VMUL: replaced) and written at the edge ending the cycle, so
// it is readable at t+LAT, the timing class MAC's latency. Taking the accumulator that
// late is what lets a multiply accumulate onto the result of the one issued the cycle
// before (ACC_FORWARD = 1).
//
// bf16: every lane is one 8-term dot product of rtl/common's bf16_mul products summed
// by fp32_tree_sum (the numerics' halving order), then one fp32 add: VMMAC's products
// are its 4x8 by 8x8 tile; VMUL/VMAC/VMSC use the first term and give the other seven
// a product of -0, which leaves every sum exact (x + -0 = x for every x, -0 included).
// Integer lanes wrap modulo 2^32, as the model.
//
// kill[k]: a younger operation writes accumulator k in this cycle; in-flight results
// for k are dropped (the younger write lands first but is the later one).
//
// The stage-1 operand registers are clocked by a gated clock that ticks only at the
// edge of an issue (rtl/common's icg: the enable held by a latch while the clock is
// low, so the gated clock cannot glitch). Beyond power, that is what keeps simulation
// fast: Verilator evaluates the 256 products and their sums only when they change.
module aie_mac #(
`include "aie_params.vh"
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          issue,
    input  wire [6:0]    op,
    input  wire [2:0]    d,
    input  wire [511:0]  a,           // xa, or for int8 lanes the x holding wa
    input  wire [1023:0] b,           // xb (low half), or the pair yb
    input  wire          a_hi,        // int8 VMUL/VMAC: wa, wb are the high halves
    input  wire          b_hi,
    input  wire [7:0]    kill,
    output wire          out_v,       // an accumulator is written at this edge
    output wire [2:0]    out_d,
    output wire [2:0]    in_d,        // the accumulator of the result entering the last stage
    input  wire [1023:0] in_acc,      // the core's acc[in_d]
    output reg  [1023:0] out_y,
    output wire          busy
);
`include "aie_isa.vh"
    localparam integer NQ = MAC_LATENCY - 1;          // stages 1 .. LAT-1; stage NQ writes

    // --- stage 1: operands --------------------------------------------------------
    wire         gclk;
    icg u_gate (.clk(clk), .en(issue), .gclk(gclk));
    reg          s1_v;
    reg  [6:0]   s1_op;
    reg  [2:0]   s1_d;
    reg  [511:0] s1_a;
    reg  [1023:0] s1_b;
    reg          s1_ahi, s1_bhi;

    wire s1_mm = (s1_op == OP_VMMAC_BF16);
    wire s1_bf = s1_mm || s1_op == OP_VMUL_BF16 || s1_op == OP_VMAC_BF16 || s1_op == OP_VMSC_BF16;

    // bf16: lane i = 8m + n, term k
    wire [1023:0] bf_sum;
    genvar gi, gk;
    generate
        for (gi = 0; gi < 32; gi = gi + 1) begin : g_lane
            wire [255:0] prod;
            for (gk = 0; gk < 8; gk = gk + 1) begin : g_term
                wire [15:0] ma = s1_mm ? s1_a[16*(8*(gi/8) + gk) +: 16]
                               : (gk == 0) ? s1_a[16*gi +: 16] : 16'h0000;
                wire [15:0] mb = s1_mm ? s1_b[16*(8*gk + gi%8) +: 16]
                               : (gk == 0) ? s1_b[16*gi +: 16] : 16'h8000;
                bf16_mul u_mul (.a(ma), .b(mb), .y(prod[32*gk +: 32]));
            end
            fp32_tree_sum #(.L(8)) u_sum (.x(prod), .y(bf_sum[32*gi +: 32]));
        end
    endgenerate

    // integer lanes (zero unless an integer operation is in stage 1): one aie_mac_ilane
    // per lane (below), its operands wired here by constant indices. A module, not a
    // generate block, so that synthesis maps one lane and counts it 32 times (the 32
    // inline copies were most of aie_mac's cells and Yosys time; rtl/aie/README.md,
    // Synthesis). (As a single always block over 32 lanes, Yosys's proc_dlatch did not
    // finish in 5 CPU minutes.)
    wire [1023:0] int_sum;
    wire i_en = s1_v && !s1_bf;
    wire i_m8 = (s1_op == OP_VMUL_I8 || s1_op == OP_VMAC_I8);
    wire i_m16 = (s1_op == OP_VMUL_I16 || s1_op == OP_VMAC_I16);
    wire i_mm8 = (s1_op == OP_VMMAC_I8);
    generate
        for (gi = 0; gi < 32; gi = gi + 1) begin : g_int
            wire [127:0] a8v, b8v, a16v, b16v;
            for (gk = 0; gk < 16; gk = gk + 1) begin : g_k8
                assign a8v[8*gk +: 8] = s1_a[8*(16*(gi/8) + gk) +: 8];
                assign b8v[8*gk +: 8] = s1_b[8*(8*gk + gi%8) +: 8];
            end
            for (gk = 0; gk < 8; gk = gk + 1) begin : g_k16
                assign a16v[16*gk +: 16] = s1_a[16*(8*(gi/8) + gk) +: 16];
                assign b16v[16*gk +: 16] = s1_b[16*(8*gk + gi%8) +: 16];
            end
            aie_mac_ilane u_lane (
                .a8(s1_ahi ? s1_a[8*(32 + gi) +: 8] : s1_a[8*gi +: 8]),
                .b8(s1_bhi ? s1_b[8*(32 + gi) +: 8] : s1_b[8*gi +: 8]),
                .a16(s1_a[16*gi +: 16]), .b16(s1_b[16*gi +: 16]),
                .a8v(a8v), .b8v(b8v), .a16v(a16v), .b16v(b16v),
                .en(i_en), .m8(i_m8), .m16(i_m16), .mm8(i_mm8), .y(int_sum[32*gi +: 32]));
        end
    endgenerate

    // --- stages 2 .. NQ: the sums (stage NQ only marks the write; f_ holds its operands)
    wire [NQ:2]  q_v;
    wire         f_in;                                  // an entry enters stage NQ
    wire [6:0]   f_in_op;
    wire [2:0]   f_in_d;
    wire [1023:0] f_in_s;
    wire [1030:0] q_out_p;                              // (unused: f_s holds it)
    delay_line #(.N(NQ - 1), .TW(3), .W(1031)) u_line (
        .clk(clk), .rst(rst), .in_v(s1_v), .in_t(s1_d), .in_p({s1_op, s1_bf ? bf_sum : int_sum}),
        .kill(kill), .v(q_v), .out_t(out_d), .out_p(q_out_p),
        .pre_v(f_in), .pre_t(f_in_d), .pre_p({f_in_op, f_in_s}));
    always @(posedge clk) s1_v <= rst ? 1'b0 : issue;
    always @(posedge gclk) begin
        s1_op <= op; s1_d <= d; s1_a <= a; s1_b <= b; s1_ahi <= a_hi; s1_bhi <= b_hi;
    end

    // --- the last stage: accumulate ----------------------------------------------------
    // Its operands (sums and accumulator) are latched on a gated clock too, at the edge
    // a result enters it; the accumulator is forwarded from the result landing then.
    assign in_d = f_in_d;
    wire        gclk_f;
    icg u_gate_f (.clk(clk), .en(f_in), .gclk(gclk_f));
    reg  [6:0]  f_op;
    reg  [1023:0] f_s, f_acc;
    always @(posedge gclk_f) begin
        f_op <= f_in_op;
        f_s <= f_in_s;
        f_acc <= (out_v && out_d == f_in_d) ? out_y : in_acc;
    end
    wire [1023:0] f_add;
    generate
        for (gi = 0; gi < 32; gi = gi + 1) begin : g_acc
            fp32_add u_add (.a(f_acc[32*gi +: 32]), .b(f_s[32*gi +: 32]),
                            .sub(f_op == OP_VMSC_BF16), .y(f_add[32*gi +: 32]));
        end
    endgenerate
    wire [1023:0] int_add;
    generate
        for (gi = 0; gi < 32; gi = gi + 1) begin : g_iadd
            assign int_add[32*gi +: 32] = f_acc[32*gi +: 32] + f_s[32*gi +: 32];
        end
    endgenerate
    always @* begin
        case (f_op)
            OP_VMUL_I8, OP_VMUL_I16, OP_VMUL_BF16: out_y = f_s;
            OP_VMAC_BF16, OP_VMSC_BF16, OP_VMMAC_BF16: out_y = f_add;
            default: out_y = int_add;
        endcase
    end
    assign out_v = q_v[NQ];
    assign busy = s1_v || (|q_v);
endmodule
