// Four-stage pipelines of the scalar unit's long functions: fp32 exp, reciprocal and
// square root, bit for bit rtl/common's fp32_exp, fp32_recip and fp32_sqrt (the same
// operations in the same order, with registers between them). Every register is
// clocked on the rising edge and loads every cycle: stage 1 works on `a` in the
// instruction's issue cycle, stages 2 and 3 in the next two, and stage 4's output `y`
// is valid in the fourth cycle, whose closing edge commits it (timing classes S_FP_EXP,
// S_FP_RECI, S_FP_SQRT: 4). The core holds `a` at zero while no such instruction is at
// issue, so an idle pipeline's registers stop changing.

// exp: 1) t = a*LOG2E, range rules, n = floor(t), n*LN2_HI and n*LN2_LO;
//      2) r = (a - n*LN2_HI) - n*LN2_LO, f = r*LOG2E, Horner step 0;
//      3) Horner steps 1-3;  4) Horner steps 4-5 and the scaling by 2^n.
module plena_exp_pipe (
    input  wire        clk,
    input  wire [31:0] a,
    output wire [31:0] y
);
    `include "fp_constants.vh"
    initial if (EXP2_DEGREE != 6) $fatal(1, "plena_exp_pipe: stages are laid out for 6 Horner steps");

    // --- stage 1 (as fp32_exp) ---
    wire nan = (a[30:23] == 8'hFF) && (a[22:0] != 23'd0);
    wire [31:0] t;
    fp32_mul u_t (.a(a), .b(FP32_LOG2E), .y(t));
    wire overflow  = !t[31] && (t[30:0] >= 31'h4300_0000);
    wire underflow =  t[31] && (t[30:0] >  31'h42FC_0000);
    wire [7:0]  te = t[30:23];
    wire [23:0] tm = {te != 8'd0, t[22:0]};
    wire ge1 = (te >= 8'd127) && (te <= 8'd133);
    wire [7:0]  rsh = 8'd150 - te;
    wire [7:0]  ipart = ge1 ? (tm[23:16] >> (rsh - 8'd16)) : 8'd0;
    wire [23:0] fmask = ge1 ? ~(24'hFF_FFFF << rsh) : 24'hFF_FFFF;
    wire fracnz = |(tm & fmask);
    wire [7:0] nmag = ipart + {7'd0, t[31] & fracnz};
    function automatic [30:0] int_to_fp32_mag(input [7:0] v);
        integer i, p;
        reg [22:0] frac;
        begin
            p = -1;
            for (i = 0; i < 8; i = i + 1)
                if (v[i]) p = i;
            if (p < 0) begin
                int_to_fp32_mag = 31'd0;
            end else begin
                frac = {v, 15'd0} << (8 - p);
                int_to_fp32_mag = {8'd127 + p[7:0], frac};
            end
        end
    endfunction
    wire [31:0] n_f = {t[31], int_to_fp32_mag(nmag)};
    wire [31:0] n_hi, n_lo;
    fp32_mul u_n_hi (.a(n_f), .b(FP32_LN2_HI), .y(n_hi));
    fp32_mul u_n_lo (.a(n_f), .b(FP32_LN2_LO), .y(n_lo));
    // The result's special cases and 2^n travel with the data.
    wire [1:0] sel1 = nan ? 2'd1 : overflow ? 2'd2 : underflow ? 2'd3 : 2'd0;
    wire [7:0] nfield1 = t[31] ? 8'd127 - nmag : 8'd127 + nmag;
    reg [31:0] a2, nhi2, nlo2;
    reg [1:0]  sel2, sel3, sel4;
    reg [7:0]  nf2, nf3, nf4;
    always @(posedge clk) begin
        a2 <= a;
        nhi2 <= n_hi;
        nlo2 <= n_lo;
        sel2 <= sel1;
        nf2 <= nfield1;
    end

    // --- stage 2 ---
    wire [31:0] r_hi, r, f, prod0, p0;
    fp32_add u_r_hi (.a(a2), .b(nhi2), .sub(1'b1), .y(r_hi));
    fp32_add u_r    (.a(r_hi), .b(nlo2), .sub(1'b1), .y(r));
    fp32_mul u_f    (.a(r), .b(FP32_LOG2E), .y(f));
    fp32_mul u_m0 (.a(EXP2_COEFFS[32*6 +: 32]), .b(f), .y(prod0));
    fp32_add u_a0 (.a(prod0), .b(EXP2_COEFFS[32*5 +: 32]), .sub(1'b0), .y(p0));
    reg [31:0] f3, p3;
    always @(posedge clk) begin
        f3 <= f;
        p3 <= p0;
        sel3 <= sel2;
        nf3 <= nf2;
    end

    // --- stage 3: Horner steps 1-3 ---
    wire [31:0] m1, q1, m2, q2, m3, q3;
    fp32_mul u_m1 (.a(p3), .b(f3), .y(m1));
    fp32_add u_a1 (.a(m1), .b(EXP2_COEFFS[32*4 +: 32]), .sub(1'b0), .y(q1));
    fp32_mul u_m2 (.a(q1), .b(f3), .y(m2));
    fp32_add u_a2 (.a(m2), .b(EXP2_COEFFS[32*3 +: 32]), .sub(1'b0), .y(q2));
    fp32_mul u_m3 (.a(q2), .b(f3), .y(m3));
    fp32_add u_a3 (.a(m3), .b(EXP2_COEFFS[32*2 +: 32]), .sub(1'b0), .y(q3));
    reg [31:0] f4, p4;
    always @(posedge clk) begin
        f4 <= f3;
        p4 <= q3;
        sel4 <= sel3;
        nf4 <= nf3;
    end

    // --- stage 4: Horner steps 4-5, then p * 2^n ---
    wire [31:0] m4, q4, m5, q5, scaled;
    fp32_mul u_m4 (.a(p4), .b(f4), .y(m4));
    fp32_add u_a4 (.a(m4), .b(EXP2_COEFFS[32*1 +: 32]), .sub(1'b0), .y(q4));
    fp32_mul u_m5 (.a(q4), .b(f4), .y(m5));
    fp32_add u_a5 (.a(m5), .b(EXP2_COEFFS[32*0 +: 32]), .sub(1'b0), .y(q5));
    fp32_mul u_scale (.a(q5), .b({1'b0, nf4, 23'd0}), .y(scaled));
    assign y = sel4 == 2'd1 ? FP32_CANON_NAN
             : sel4 == 2'd2 ? 32'h7F80_0000
             : sel4 == 2'd3 ? 32'h0000_0000
             : scaled;
endmodule
