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

    wire nan = (a[30:23] == 8'hFF) && (a[22:0] != 23'd0);

    wire [31:0] t;
    fp32_mul u_t (.a(a), .b(FP32_LOG2E), .y(t));

    // Range rules (infinities included): 128.0 = 0x43000000, 126.0 = 0x42FC0000.
    wire overflow  = !t[31] && (t[30:0] >= 31'h4300_0000);
    wire underflow =  t[31] && (t[30:0] >  31'h42FC_0000);

    // floor(t) for -126 <= t < 128: integer part of |t| and whether a fraction remains.
    wire [7:0]  te = t[30:23];
    wire [23:0] tm = {te != 8'd0, t[22:0]};
    wire ge1 = (te >= 8'd127) && (te <= 8'd133);           // 1 <= |t| < 128
    wire [7:0]  rsh = 8'd150 - te;                        // 23 - (te - 127)
    wire [7:0]  ipart = ge1 ? (tm[23:16] >> (rsh - 8'd16)) : 8'd0;   // rsh is 17..23
    wire [23:0] fmask = ge1 ? ~(24'hFF_FFFF << rsh) : 24'hFF_FFFF;
    wire fracnz = |(tm & fmask);
    // |n|: a negative t with a fraction rounds away from zero.
    wire [7:0] nmag = ipart + {7'd0, t[31] & fracnz};

    // n as an fp32 value (exact; |n| <= 127), sign of t so floor(-0) = -0.
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
                frac = {v, 15'd0} << (8 - p);               // drop the leading one
                int_to_fp32_mag = {8'd127 + p[7:0], frac};
            end
        end
    endfunction

    wire [31:0] n_f = {t[31], int_to_fp32_mag(nmag)};

    // Two-part reduction: r = (x - n*LN2_HI) - n*LN2_LO, then f = r * LOG2E.
    wire [31:0] n_hi, n_lo, r_hi, r, f;
    fp32_mul u_n_hi (.a(n_f), .b(FP32_LN2_HI), .y(n_hi));
    fp32_add u_r_hi (.a(a), .b(n_hi), .sub(1'b1), .y(r_hi));
    fp32_mul u_n_lo (.a(n_f), .b(FP32_LN2_LO), .y(n_lo));
    fp32_add u_r    (.a(r_hi), .b(n_lo), .sub(1'b1), .y(r));
    fp32_mul u_f    (.a(r), .b(FP32_LOG2E), .y(f));

    // Horner, highest coefficient first: step k computes p = p * f + c_(DEGREE-1-k),
    // the multiply and the add each rounded in fp32. Each step has its own wires (one
    // shared vector would look like a combinational loop).
    genvar k;
    generate
        for (k = 0; k < EXP2_DEGREE; k = k + 1) begin : g_horner
            wire [31:0] p_in, prod, p_out;
            if (k == 0) begin : g_first
                assign p_in = EXP2_COEFFS[32*EXP2_DEGREE +: 32];
            end else begin : g_next
                assign p_in = g_horner[k-1].p_out;
            end
            fp32_mul u_mul (.a(p_in), .b(f), .y(prod));
            fp32_add u_add (.a(prod), .b(EXP2_COEFFS[32*(EXP2_DEGREE-1-k) +: 32]), .sub(1'b0),
                            .y(p_out));
        end
    endgenerate
    wire [31:0] p = g_horner[EXP2_DEGREE-1].p_out;

    // 2^n as an fp32 value: n is in [-126, 127] whenever neither range rule applies.
    wire [7:0] n_field = t[31] ? 8'd127 - nmag : 8'd127 + nmag;
    wire [31:0] scale = {1'b0, n_field, 23'd0};
    wire [31:0] scaled;
    fp32_mul u_scale (.a(p), .b(scale), .y(scaled));

    assign y = nan ? FP32_CANON_NAN
             : overflow ? 32'h7F80_0000
             : underflow ? 32'h0000_0000
             : scaled;
endmodule
