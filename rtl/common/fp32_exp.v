// fp32 exp by the manual's algorithm, step for step as simulators/numerics.py:
//   t = x * LOG2E;  t >= 128 -> +inf;  t < -126 -> +0;  NaN -> NaN
//   n = floor(t);  r = (x - n * LN2_HI) - n * LN2_LO;  f = r * LOG2E
//   p = Horner in f over EXP2_COEFFS (an fp32 multiply, then an fp32 add, per step)
//   result p * 2^n, one fp32 multiplication (so a p just below 1 at n = -126 rounds
//   into the subnormals exactly as the model does).
// Every step is one fp32 operation with round-to-nearest-even. The constants come
// from fp_constants.vh, generated from numerics. Combinational.
module fp32_exp (
    input  wire [31:0] a,
    output wire [31:0] y
);
    `include "fp_constants.vh"

    wire [1:0]  special;
    wire [31:0] n_f;
    wire [7:0]  n_field;
    fp32_exp_range u_range (.a(a), .special(special), .n_f(n_f), .n_field(n_field));

    // Two-part reduction: r = (x - n*LN2_HI) - n*LN2_LO, then f = r * LOG2E.
    wire [31:0] n_hi, n_lo, r_hi, r, f;
    fp32_mul u_n_hi (.a(n_f), .b(FP32_LN2_HI), .y(n_hi));
    fp32_add u_r_hi (.a(a), .b(n_hi), .sub(1'b1), .y(r_hi));
    fp32_mul u_n_lo (.a(n_f), .b(FP32_LN2_LO), .y(n_lo));
    fp32_add u_r    (.a(r_hi), .b(n_lo), .sub(1'b1), .y(r));
    fp32_mul u_f    (.a(r), .b(FP32_LOG2E), .y(f));

    // Horner, highest coefficient first: step k computes p = p * f + c_(DEGREE-1-k).
    // Each step has its own wires (one shared vector would look like a combinational loop).
    genvar k;
    generate
        for (k = 0; k < EXP2_DEGREE; k = k + 1) begin : g_horner
            wire [31:0] p_in, p_out;
            if (k == 0) begin : g_first
                assign p_in = EXP2_COEFFS[32*EXP2_DEGREE +: 32];
            end else begin : g_next
                assign p_in = g_horner[k-1].p_out;
            end
            fp32_horner_step u_step (.p(p_in), .f(f), .c(EXP2_COEFFS[32*(EXP2_DEGREE-1-k) +: 32]),
                                     .y(p_out));
        end
    endgenerate

    fp32_exp_scale u_scale (.p(g_horner[EXP2_DEGREE-1].p_out), .n_field(n_field),
                            .special(special), .y(y));
endmodule
