// V_RED_SUM (KIND 0) or V_RED_MAX (KIND 1): a row of VLEN bf16 values reduced into an
// f register, y = f + tree sum (the numerics' halving order: level l adds x[i] + x[i + HALF])
// or y = max(f, tree max) (any order: fp32_max's NaN and signed-zero rules make it
// associative).
//
// A pipeline on one clock edge, each stage a rising-edge register behind its own
// integrated clock gate (icg), open only while a row is in the stage before:
//   R          (issue cycle)   the row read (Vector SRAM port A's register, behind the
//                              operand isolation's AND gates), f captured
//   levels     (one register after every tree level, cycles 1 .. log2(VLEN))
//   the last   f combined with the tree's result: combinational from the last register
// The result is valid in cycle 1 + log2(VLEN) and holds (the gates stay shut) until the
// next reduction. `done` is the start's valid bit as it leaves the last level's register:
// the reduction ends when its result is there, after RED_EXTRA + log2(VLEN) cycles
// (plena_units.vh: the capture and the combine), whose last edge commits y.
module plena_vreduce #(
    parameter integer VLEN = 64,
    parameter integer KIND = 0       // 0 sum, 1 max
) (
    input  wire               clk,
    input  wire               rst,
    input  wire               gate,      // the reduction is at issue (R's clock enable)
    input  wire               valid,     // ... and starts now
    input  wire [VLEN*16-1:0] row,
    input  wire [31:0]        f,
    output wire [31:0]        y,
    output wire               done
);
    localparam integer LV = $clog2(VLEN);
    initial if (VLEN < 2 || (1 << LV) != VLEN)
        $fatal(1, "plena_vreduce: VLEN = %0d is not a power of two of at least 2", VLEN);

    wire rclk;
    icg u_rgate (.clk(clk), .en(gate), .gclk(rclk));
    // R: the row is the Vector SRAM's port A read register (read in the issue cycle),
    // passed by the operand isolation's AND gates (plena_opiso) in cycle 1 (the cycle
    // rclk pulses; zero otherwise): the register changes with every vector instruction's
    // reads, and the first level would switch with it. The first level's register takes
    // its sums only after cycles with v_q (valid registered; valid implies gate).
    wire [VLEN*16-1:0] x_q;
    plena_opiso #(.W(VLEN*16)) u_opiso (.clk(clk), .en(gate), .gclk(rclk), .d(row), .q(x_q));
    reg  [31:0]        f_q;
    reg                v_q;
    always @(posedge rclk) f_q <= f;
    always @(posedge clk) v_q <= !rst && valid;

    wire [VLEN*32-1:0] x32;
    genvar e, lv, j;
    generate
        // bf16 widens exactly to fp32 (the bf16 pattern is the top half).
        for (e = 0; e < VLEN; e = e + 1) begin : g_widen
            assign x32[32*e +: 32] = {x_q[16*e +: 16], 16'h0000};
        end
        for (lv = 0; lv < LV; lv = lv + 1) begin : g_lv
            localparam integer HALF = VLEN >> (lv + 1);
            wire [64*HALF-1:0] in_v;
            wire               in_ok;        // a row is in this level's inputs
            wire [32*HALF-1:0] s;
            reg  [32*HALF-1:0] q;            // s registered
            reg                q_ok;         // ... and a row's result is in q
            if (lv == 0) begin : g_first
                assign in_v = x32;
                assign in_ok = v_q;
            end else begin : g_next
                assign in_v = g_lv[lv-1].q;
                assign in_ok = g_lv[lv-1].q_ok;
            end
            for (j = 0; j < HALF; j = j + 1) begin : g_node
                if (KIND == 0) begin : g_add
                    fp32_add u_n (.a(in_v[32*j +: 32]), .b(in_v[32*(j + HALF) +: 32]), .sub(1'b0),
                                  .y(s[32*j +: 32]));
                end else begin : g_max
                    fp32_max u_n (.a(in_v[32*j +: 32]), .b(in_v[32*(j + HALF) +: 32]),
                                  .y(s[32*j +: 32]));
                end
            end
            wire sclk;
            icg u_gate (.clk(clk), .en(in_ok), .gclk(sclk));
            always @(posedge sclk) q <= s;
            always @(posedge clk) q_ok <= !rst && in_ok;
        end
        assign done = g_lv[LV-1].q_ok;
        if (KIND == 0) begin : g_sum
            fp32_add u_last (.a(f_q), .b(g_lv[LV-1].q), .sub(1'b0), .y(y));
        end else begin : g_max
            fp32_max u_last (.a(f_q), .b(g_lv[LV-1].q), .y(y));
        end
    endgenerate
endmodule
