// Rounds a normalised significand to IEEE binary32 and packs it: round to nearest,
// ties to even; gradual underflow (subnormal results are shifted, then rounded once);
// overflow gives infinity. Shared by every fp32 unit so all round the same way.
//
// Value in: (-1)^sign * sig * 2^(exp - 127 - 26), with sig[26] the leading one
// (1.xxx at biased exponent `exp`), sig[2:0] three bits below the fp32 fraction and
// `sticky` the OR of everything further below. sig == 0 with sticky == 0 is a zero.
// exp may lie outside 1..254: below 1 the result is subnormal or zero, above 254 it
// is infinity.
module fp32_round_pack (
    input  wire               sign,
    input  wire signed [11:0] exp,
    input  wire [26:0]        sig,
    input  wire               sticky,
    output wire [31:0]        y
);
    wire tiny = (exp < 12'sd1);
    // Right shift that turns a tiny value into subnormal form; 27 or more moves every
    // bit of sig into the sticky half, so the amount saturates there.
    wire signed [11:0] under = 12'sd1 - exp;
    wire [4:0] shamt = !tiny ? 5'd0 : (under > 12'sd27 ? 5'd27 : under[4:0]);
    wire [53:0] wide = {sig, 27'd0} >> shamt;
    wire [26:0] sh = wide[53:27];
    wire lost = |wide[26:0];

    // The hidden bit sh[26] is 1 for normal results and 0 for tiny ones (shifted at
    // least once), so it selects the exponent field. A rounding carry out of the
    // fraction lands in the exponent field (subnormal -> smallest normal, largest
    // finite -> infinity) by plain addition.
    wire [7:0]  efield = sh[26] ? exp[7:0] : 8'd0;
    wire [30:0] word = {efield, sh[25:3]};
    wire guard = sh[2];
    wire rest  = |sh[1:0] | lost | sticky;
    wire inc   = guard & (rest | sh[3]);
    wire [30:0] rounded = word + {30'd0, inc};
    wire huge  = !tiny && (exp > 12'sd254);
    wire zero  = (sig == 27'd0) && !sticky;

    assign y = zero ? {sign, 31'd0}
             : huge ? {sign, 8'hFF, 23'd0}
             : {sign, rounded};
endmodule
