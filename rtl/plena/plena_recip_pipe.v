// The four-stage pipeline of fp32 reciprocal, bit for bit rtl/common's fp32_recip (the
// same operations in the same order, with registers between them; one of the scalar
// unit's long functions, also streamed by vector groups). Registers load on rising edges
// of gated clocks: stage 1 works on `a` in the instruction's issue cycle, stages 2 and 3
// in the next two, and stage 4's output `y` is valid in the fourth cycle, whose closing
// edge commits it (timing class S_FP_RECI: 4). The scalar unit gives `a` from its
// isolation latch (plena_sfpu), held at zero while another function is selected, so an
// idle pipeline's logic is still.
// The registers in front of stages 2, 3 and 4 have a clock each (clk2..clk4), as in
// plena_exp_pipe: a caller that streams operands (a vector group) gates each with its
// own stage's valid bit, so each stage's logic switches once per operand; a caller that
// gates the whole pipeline passes one clock to all three.

// reciprocal: fp32_recip's 28 restoring-division steps, 7 per stage (bits 27-21, 20-14,
// 13-7, 6-0), operand normalisation in stage 1 and rounding in stage 4.
module plena_recip_pipe (
    input  wire        clk2,         // loads stage 2's registers (stage 1 holds an operand)
    input  wire        clk3,         // ... stage 3's (stage 2 holds one)
    input  wire        clk4,         // ... stage 4's (stage 3 holds one)
    input  wire [31:0] a,
    output wire [31:0] y
);
    `include "fp_constants.vh"

    wire        s  = a[31];
    wire [7:0]  ex = a[30:23];
    wire [23:0] m1;
    wire signed [11:0] e1;
    fp32_normalize u_norm (.a(a[30:0]), .m(m1), .e(e1));
    // Special cases: 1 NaN, 2 zero (-> inf), 3 inf (-> zero).
    wire [1:0] k1 = ((ex == 8'hFF) && (a[22:0] != 23'd0)) ? 2'd1 : (a[30:0] == 31'd0) ? 2'd2
                  : (ex == 8'hFF) ? 2'd3 : 2'd0;
    // {remainder, quotient} after each stage's seven steps (fp32_recip_steps)
    wire [52:0] o1, o2n, o3n, o4n;
    fp32_recip_steps #(.TOP(27), .N(7)) u_d1 (.r_in(25'h080_0000), .q_in(28'd0), .m(m1),
                                              .r_out(o1[52:28]), .q_out(o1[27:0]));

    reg [52:0] o2, o3, o4;
    reg [23:0] m2, m3, m4;
    reg signed [11:0] e2, e3, e4;
    reg [1:0]  k2, k3, k4;
    reg        s2, s3, s4;
    fp32_recip_steps #(.TOP(20), .N(7)) u_d2 (.r_in(o2[52:28]), .q_in(o2[27:0]), .m(m2),
                                              .r_out(o2n[52:28]), .q_out(o2n[27:0]));
    fp32_recip_steps #(.TOP(13), .N(7)) u_d3 (.r_in(o3[52:28]), .q_in(o3[27:0]), .m(m3),
                                              .r_out(o3n[52:28]), .q_out(o3n[27:0]));
    always @(posedge clk2) begin o2 <= o1;  m2 <= m1;  e2 <= e1;  k2 <= k1;  s2 <= s;  end
    always @(posedge clk3) begin o3 <= o2n; m3 <= m2;  e3 <= e2;  k3 <= k2;  s3 <= s2; end
    always @(posedge clk4) begin o4 <= o3n; m4 <= m3;  e4 <= e3;  k4 <= k3;  s4 <= s3; end

    fp32_recip_steps #(.TOP(6), .N(7)) u_d4 (.r_in(o4[52:28]), .q_in(o4[27:0]), .m(m4),
                                             .r_out(o4n[52:28]), .q_out(o4n[27:0]));
    wire [27:0] q = o4n[27:0];
    wire [26:0] sig = q[27] ? q[27:1] : q[26:0];
    wire sticky = (o4n[52:28] != 25'd0) | (q[27] & q[0]);
    wire signed [11:0] exp = (q[27] ? 12'sd254 : 12'sd253) - e4;
    wire [31:0] rounded;
    fp32_round_pack u_round (.sign(s4), .exp(exp), .sig(sig), .sticky(sticky), .y(rounded));
    assign y = k4 == 2'd1 ? FP32_CANON_NAN
             : k4 == 2'd2 ? {s4, 8'hFF, 23'd0}
             : k4 == 2'd3 ? {s4, 31'd0}
             : rounded;
endmodule
