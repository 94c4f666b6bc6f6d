// aie_reduce: the lane reductions (AREDADD.F32, AREDADD.I32 over the 32 accumulator
// lanes, VREDMAX.BF16 over the 32 bf16 lanes of an x register), the result broadcast
// to every lane of d, pipelined over REDUCE_LATENCY (LAT) cycles like aie_mac.
//
// Cycle t (issue): the operation and its operand are latched at the issue edge (a
// gated clock that ticks only then). Cycle t+1: the reduction: fp32 sums in the
// numerics' halving order (fp32_tree_sum, one RNE addition each, so the model's
// tree_sum bit for bit), the int32 sum modulo 2^32, or the fp32_minmax tree of the bf16
// lanes widened exactly (fp32_tree_sum's max tree: max's rules make every tree give
// the model's max_reduce).
// Then LAT-3 cycles of delay; the last stage is written at the edge ending cycle
// t+LAT-1, so the result is readable at t+LAT.
//
// kill_acc[k] / kill_x[k]: a younger load writes that register in this cycle; it
// lands before an in-flight result for it, which is dropped (the load's value is the
// one the model leaves). Younger writes of other units land at or after this unit's
// (the scoreboard makes them ready later, and they write at or near their issue), and
// the core lets a write at the same edge win over this unit's.
module aie_reduce #(
    parameter integer LAT = 6
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          issue,
    input  wire [1:0]    kind,        // 0 AREDADD.F32, 1 AREDADD.I32, 2 VREDMAX.BF16
    input  wire [3:0]    d,           // acc (kind 0, 1) or x (kind 2) register
    input  wire [1023:0] a,           // the accumulator, or the x register in the low half
    input  wire [7:0]    kill_acc,
    input  wire [15:0]   kill_x,
    output wire          out_v,       // a register is written at this edge
    output wire          out_x,       // ... an x register (else an accumulator)
    output wire [3:0]    out_d,
    output wire [31:0]   out_s,       // the value every lane gets (bf16 in the low half)
    output wire          busy
);
    localparam integer NQ = LAT - 1;                  // stages 1 .. LAT-1; stage NQ writes

    wire         gclk;
    icg u_gate (.clk(clk), .en(issue), .gclk(gclk));
    reg          s1_v;
    reg  [1:0]   s1_kind;
    reg  [3:0]   s1_d;
    reg  [1023:0] s1_a;
    always @(posedge gclk) begin s1_kind <= kind; s1_d <= d; s1_a <= a; end

    // the three reductions of the latched operand
    wire [31:0] f_sum, b_max;
    fp32_tree_sum #(.L(32)) u_sum (.x(s1_a), .y(f_sum));
    wire [1023:0] wide;
    genvar gi;
    generate
        for (gi = 0; gi < 32; gi = gi + 1) begin : g_wide
            assign wide[32*gi +: 32] = {s1_a[16*gi +: 16], 16'd0};
        end
    endgenerate
    fp32_tree_sum #(.L(32), .MAX(1)) u_max (.x(wide), .y(b_max));
    reg [31:0] i_sum;
    integer il;
    always @* begin
        i_sum = 32'd0;
        for (il = 0; il < 32; il = il + 1) i_sum = i_sum + s1_a[32*il +: 32];
    end
    wire [31:0] s1_s = (s1_kind == 2'd0) ? f_sum : (s1_kind == 2'd1) ? i_sum : {16'd0, b_max[31:16]};
    wire        s1_x = (s1_kind == 2'd2);
    always @(posedge clk) s1_v <= rst ? 1'b0 : issue;

    // the delay; an x register's kill is kill_x[d], an accumulator's kill_acc[d[2:0]]
    wire [NQ:2] q_v;
    wire [4:0]  q_t;
    delay_line #(.N(NQ - 1), .TW(5), .W(32)) u_line (
        .clk(clk), .rst(rst), .in_v(s1_v), .in_t({s1_x, s1_d}), .in_p(s1_s),
        .kill({kill_x, kill_acc, kill_acc}), .v(q_v), .out_t(q_t), .out_p(out_s),
        .pre_v(), .pre_t(), .pre_p());
    assign out_v = q_v[NQ];
    assign out_x = q_t[4];
    assign out_d = q_t[3:0];
    assign busy = s1_v || (|q_v);
endmodule
