// The four-stage pipeline of fp32 exp, bit for bit rtl/common's fp32_exp (the same
// operations in the same order, with registers between them; one of the scalar unit's
// long functions, also streamed by vector groups and V_TOPK). Registers load on rising
// edges of gated clocks: stage 1 works on `a` in the instruction's issue cycle, stages 2
// and 3 in the next two, and stage 4's output `y` is valid in the fourth cycle, whose
// closing edge commits it (timing class S_FP_EXP: 4). The scalar unit gives `a` from
// its isolation latch (plena_sfpu), held at zero while another function is selected, so
// an idle pipeline's logic is still.
// The registers in front of stages 2, 3 and 4 have a clock each
// (clk2..clk4): a caller that streams operands (a vector group) gates each with its own
// stage's valid bit, so each stage's logic switches once per operand, not in every
// cycle the pipeline is busy; a caller that gates the whole pipeline passes one clock
// to all three.

// exp: 1) t = a*LOG2E, range rules, n = floor(t), n*LN2_HI and n*LN2_LO;
//      2) r = (a - n*LN2_HI) - n*LN2_LO, f = r*LOG2E, Horner step 0;
//      3) Horner steps 1-3;  4) Horner steps 4-5 and the scaling by 2^n.
module plena_exp_pipe (
    input  wire        clk2,         // loads stage 2's registers (stage 1 holds an operand)
    input  wire        clk3,         // ... stage 3's (stage 2 holds one)
    input  wire        clk4,         // ... stage 4's (stage 3 holds one)
    input  wire [31:0] a,
    output wire [31:0] y
);
    `include "fp_constants.vh"
    initial if (EXP2_DEGREE != 6) $fatal(1, "plena_exp_pipe: stages are laid out for 6 Horner steps");

    // --- stage 1 (as fp32_exp: its range step, then n*LN2_HI and n*LN2_LO) ---
    wire [1:0]  sel1;                // the result's special case and 2^n travel with the data
    wire [31:0] n_f;
    wire [7:0]  nfield1;
    fp32_exp_range u_range (.a(a), .special(sel1), .n_f(n_f), .n_field(nfield1));
    wire [31:0] n_hi, n_lo;
    fp32_mul u_n_hi (.a(n_f), .b(FP32_LN2_HI), .y(n_hi));
    fp32_mul u_n_lo (.a(n_f), .b(FP32_LN2_LO), .y(n_lo));
    reg [31:0] a2, nhi2, nlo2;
    reg [1:0]  sel2, sel3, sel4;
    reg [7:0]  nf2, nf3, nf4;
    always @(posedge clk2) begin
        a2 <= a;
        nhi2 <= n_hi;
        nlo2 <= n_lo;
        sel2 <= sel1;
        nf2 <= nfield1;
    end

    // --- stage 2 ---
    wire [31:0] r_hi, r, f, p0;
    fp32_add u_r_hi (.a(a2), .b(nhi2), .sub(1'b1), .y(r_hi));
    fp32_add u_r    (.a(r_hi), .b(nlo2), .sub(1'b1), .y(r));
    fp32_mul u_f    (.a(r), .b(FP32_LOG2E), .y(f));
    fp32_horner_step u_h0 (.p(EXP2_COEFFS[32*6 +: 32]), .f(f), .c(EXP2_COEFFS[32*5 +: 32]), .y(p0));
    reg [31:0] f3, p3;
    always @(posedge clk3) begin
        f3 <= f;
        p3 <= p0;
        sel3 <= sel2;
        nf3 <= nf2;
    end

    // --- stage 3: Horner steps 1-3 ---
    wire [31:0] q1, q2, q3;
    fp32_horner_step u_h1 (.p(p3), .f(f3), .c(EXP2_COEFFS[32*4 +: 32]), .y(q1));
    fp32_horner_step u_h2 (.p(q1), .f(f3), .c(EXP2_COEFFS[32*3 +: 32]), .y(q2));
    fp32_horner_step u_h3 (.p(q2), .f(f3), .c(EXP2_COEFFS[32*2 +: 32]), .y(q3));
    reg [31:0] f4, p4;
    always @(posedge clk4) begin
        f4 <= f3;
        p4 <= q3;
        sel4 <= sel3;
        nf4 <= nf3;
    end

    // --- stage 4: Horner steps 4-5, then p * 2^n ---
    wire [31:0] q4, q5;
    fp32_horner_step u_h4 (.p(p4), .f(f4), .c(EXP2_COEFFS[32*1 +: 32]), .y(q4));
    fp32_horner_step u_h5 (.p(q4), .f(f4), .c(EXP2_COEFFS[32*0 +: 32]), .y(q5));
    fp32_exp_scale u_scale (.p(q5), .n_field(nf4), .special(sel4), .y(y));
endmodule
