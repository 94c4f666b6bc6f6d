// fp32 reciprocal 1/a, correctly rounded (IEEE division, nearest even), by restoring
// digit recurrence: one quotient bit per step, 28 steps unrolled into combinational
// logic (no handshake; a core may register around it). 1/+-0 = +-inf, 1/+-inf = +-0,
// subnormal operands and subnormal results kept, NaN canonical.
module fp32_recip (
    input  wire [31:0] a,
    output wire [31:0] y
);
    `include "fp_constants.vh"

    wire        s  = a[31];
    wire [7:0]  ex = a[30:23];
    wire nan  = (ex == 8'hFF) && (a[22:0] != 23'd0);
    wire inf  = (ex == 8'hFF) && (a[22:0] == 23'd0);
    wire zero = (a[30:0] == 31'd0);

    // The normalised operand, then quotient bits 27..0 of 1.0 / (m / 2^23) by restoring
    // division; the remainder is 0 only for an exact quotient.
    wire [23:0] m;
    wire signed [11:0] e;        // biased exponent of m (below 1 for subnormals)
    fp32_normalize u_norm (.a(a[30:0]), .m(m), .e(e));
    wire [24:0] rem;
    wire [27:0] q;
    fp32_recip_steps #(.TOP(27), .N(28)) u_div (.r_in(25'h080_0000), .q_in(28'd0), .m(m),
                                                .r_out(rem), .q_out(q));
    // q[27] is set only for m = 1.0 exactly (quotient 1.0, remainder 0).
    wire [26:0] sig = q[27] ? q[27:1] : q[26:0];
    wire sticky = (rem != 25'd0) | (q[27] & q[0]);
    wire signed [11:0] exp = (q[27] ? 12'sd254 : 12'sd253) - e;

    wire [31:0] rounded;
    fp32_round_pack u_round (.sign(s), .exp(exp), .sig(sig), .sticky(sticky), .y(rounded));

    assign y = nan ? FP32_CANON_NAN
             : zero ? {s, 8'hFF, 23'd0}
             : inf ? {s, 31'd0}
             : rounded;
endmodule
