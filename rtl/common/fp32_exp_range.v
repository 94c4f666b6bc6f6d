// fp32_exp's first step, shared with pipelined forms of it: t = a * LOG2E, the range
// rules, and n = floor(t) as an exact fp32 value and as the biased exponent of 2^n.
//   special: 0 none, 1 NaN, 2 +inf (t >= 128, infinities included), 3 +0 (t < -126)
// Combinational.
module fp32_exp_range (
    input  wire [31:0] a,
    output wire [1:0]  special,
    output wire [31:0] n_f,
    output wire [7:0]  n_field
);
    `include "fp_constants.vh"

    wire nan = (a[30:23] == 8'hFF) && (a[22:0] != 23'd0);

    wire [31:0] t;
    fp32_mul u_t (.a(a), .b(FP32_LOG2E), .y(t));

    // Range rules (infinities included): 128.0 = 0x43000000, 126.0 = 0x42FC0000.
    wire overflow  = !t[31] && (t[30:0] >= 31'h4300_0000);
    wire underflow =  t[31] && (t[30:0] >  31'h42FC_0000);
    assign special = nan ? 2'd1 : overflow ? 2'd2 : underflow ? 2'd3 : 2'd0;

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
    assign n_f = {t[31], int_to_fp32_mag(nmag)};

    // 2^n's exponent: n is in [-126, 127] whenever neither range rule applies.
    assign n_field = t[31] ? 8'd127 - nmag : 8'd127 + nmag;
endmodule
