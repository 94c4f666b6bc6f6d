// The four-stage pipeline of fp32 square root, bit for bit rtl/common's fp32_sqrt (the
// same operations in the same order, with registers between them; one of the scalar
// unit's long functions). Registers load on rising edges of a gated clock: stage 1 works
// on `a` in the instruction's issue cycle, stages 2 and 3 in the next two, and stage 4's
// output `y` is valid in the fourth cycle, whose closing edge commits it (timing class
// S_FP_SQRT: 4). The scalar unit gives `a` from its isolation latch (plena_sfpu), held
// at zero while another function is selected, so an idle pipeline's logic is still.

// square root: fp32_sqrt's 27 restoring root steps (bits 26-20, 19-13, 12-6, 5-0), the
// radicand formed in stage 1 and rounding in stage 4.
module plena_sqrt_pipe (
    input  wire        clk,
    input  wire [31:0] a,
    output wire [31:0] y
);
    `include "fp_constants.vh"

    wire [7:0]  ex = a[30:23];
    wire [23:0] m;
    wire signed [11:0] e;
    fp32_normalize u_norm (.a(a[30:0]), .m(m), .e(e));
    wire        odd = e[0];
    wire [53:0] x1 = odd ? {1'b0, m, 29'd0} : {m, 30'd0};
    wire signed [11:0] half = (e - (odd ? 12'sd179 : 12'sd180)) >>> 1;
    wire signed [11:0] exp1 = 12'sd153 + half;
    // Special cases: 1 NaN, 2 the operand itself (+-0, +inf).
    wire nan = (ex == 8'hFF) && (a[22:0] != 23'd0);
    wire zero = (a[30:0] == 31'd0);
    wire [1:0] k1 = nan ? 2'd1 : zero ? 2'd2 : a[31] ? 2'd1 : (ex == 8'hFF) ? 2'd2 : 2'd0;
    // {remainder, root} after each stage's steps (fp32_sqrt_steps)
    wire [55:0] o1, o2n, o3n, o4n;
    fp32_sqrt_steps #(.TOP(26), .BOT(20)) u_r1 (.rem_in(29'd0), .root_in(27'd0), .x(x1),
                                                .rem_out(o1[55:27]), .root_out(o1[26:0]));

    reg [55:0] o2, o3, o4;
    reg [53:0] x2, x3, x4;
    reg signed [11:0] p2, p3, p4;
    reg [1:0]  k2, k3, k4;
    reg [31:0] a2, a3, a4;
    fp32_sqrt_steps #(.TOP(19), .BOT(13)) u_r2 (.rem_in(o2[55:27]), .root_in(o2[26:0]), .x(x2),
                                                .rem_out(o2n[55:27]), .root_out(o2n[26:0]));
    fp32_sqrt_steps #(.TOP(12), .BOT(6)) u_r3 (.rem_in(o3[55:27]), .root_in(o3[26:0]), .x(x3),
                                               .rem_out(o3n[55:27]), .root_out(o3n[26:0]));
    always @(posedge clk) begin
        o2 <= o1;  x2 <= x1;  p2 <= exp1;  k2 <= k1;  a2 <= a;
        o3 <= o2n; x3 <= x2;  p3 <= p2;    k3 <= k2;  a3 <= a2;
        o4 <= o3n; x4 <= x3;  p4 <= p3;    k4 <= k3;  a4 <= a3;
    end

    fp32_sqrt_steps #(.TOP(5), .BOT(0)) u_r4 (.rem_in(o4[55:27]), .root_in(o4[26:0]), .x(x4),
                                              .rem_out(o4n[55:27]), .root_out(o4n[26:0]));
    wire [31:0] rounded;
    fp32_round_pack u_round (.sign(1'b0), .exp(p4), .sig(o4n[26:0]),
                             .sticky(o4n[55:27] != 29'd0), .y(rounded));
    assign y = k4 == 2'd1 ? FP32_CANON_NAN : k4 == 2'd2 ? a4 : rounded;
endmodule
