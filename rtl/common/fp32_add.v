// fp32 addition and subtraction (y = a + b, or a - b when sub = 1), IEEE binary32 with
// round-to-nearest-even, subnormals kept, canonical NaN. Combinational.
//
// Classic guard/round/sticky datapath: the smaller magnitude is aligned to the larger
// with three extra bits, the last of them collecting every bit shifted further out;
// the sum is normalised and handed to fp32_round_pack. An exact zero sum is +0, except
// (-0) + (-0) = -0.
module fp32_add (
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire        sub,
    output wire [31:0] y
);
    `include "fp_constants.vh"

    wire sa = a[31];
    wire sb = b[31] ^ sub;
    wire a_nan = (a[30:23] == 8'hFF) && (a[22:0] != 23'd0);
    wire b_nan = (b[30:23] == 8'hFF) && (b[22:0] != 23'd0);
    wire a_inf = (a[30:23] == 8'hFF) && (a[22:0] == 23'd0);
    wire b_inf = (b[30:23] == 8'hFF) && (b[22:0] == 23'd0);

    // Order by magnitude: `hi` has the larger (or equal) exponent-and-fraction.
    wire swap = b[30:0] > a[30:0];
    wire [30:0] hi   = swap ? b[30:0] : a[30:0];
    wire [30:0] lo = swap ? a[30:0] : b[30:0];
    wire s_hi   = swap ? sb : sa;
    wire s_lo = swap ? sa : sb;

    // Subnormals: exponent field 0 means exponent 1 without the hidden bit.
    wire [7:0] e_hi   = (hi[30:23]   == 8'd0) ? 8'd1 : hi[30:23];
    wire [7:0] e_lo = (lo[30:23] == 8'd0) ? 8'd1 : lo[30:23];
    wire [26:0] m_hi   = {hi[30:23]   != 8'd0, hi[22:0],   3'b000};
    wire [26:0] m_lo = {lo[30:23] != 8'd0, lo[22:0], 3'b000};

    wire [7:0] diff = e_hi - e_lo;
    wire [4:0] shamt = (diff > 8'd27) ? 5'd27 : diff[4:0];
    wire [53:0] aligned = {m_lo, 27'd0} >> shamt;
    wire [26:0] m_lo_al = {aligned[53:28], aligned[27] | (|aligned[26:0])};

    wire eff_sub = s_hi ^ s_lo;
    wire [27:0] sum = eff_sub ? {1'b0, m_hi} - {1'b0, m_lo_al}
                              : {1'b0, m_hi} + {1'b0, m_lo_al};

    // Leading zeros of a 27-bit value (27 for zero): the highest set bit wins.
    function automatic [4:0] clz27(input [26:0] v);
        integer i;
        begin
            clz27 = 5'd27;
            for (i = 0; i <= 26; i = i + 1)
                if (v[i]) clz27 = 5'd26 - i[4:0];
        end
    endfunction

    // Normalise: a carry shifts right by one (its lost bit joins sticky); otherwise
    // shift left until the leading one reaches bit 26.
    wire [4:0] lz = clz27(sum[26:0]);
    wire [26:0] norm_sig = sum[27] ? sum[27:1] : (sum[26:0] << lz);
    wire norm_sticky = sum[27] & sum[0];
    wire signed [11:0] norm_exp = sum[27] ? $signed({4'd0, e_hi}) + 12'sd1
                                          : $signed({4'd0, e_hi}) - $signed({7'd0, lz});
    // Exact zero: +0 under round-to-nearest unless both operands were -0.
    wire zero_sign = eff_sub ? 1'b0 : s_hi;
    wire res_sign = (sum == 28'd0) ? zero_sign : s_hi;

    wire [31:0] rounded;
    fp32_round_pack u_round (.sign(res_sign), .exp(norm_exp), .sig(norm_sig),
                             .sticky(norm_sticky), .y(rounded));

    assign y = (a_nan || b_nan || (a_inf && b_inf && (sa != sb))) ? FP32_CANON_NAN
             : a_inf ? {sa, 8'hFF, 23'd0}
             : b_inf ? {sb, 8'hFF, 23'd0}
             : rounded;
endmodule
