// fp32 square root, correctly rounded (nearest even), by restoring digit recurrence:
// one root bit per step, 27 steps unrolled into combinational logic (no handshake; a
// core may register around it). sqrt(+-0) = +-0, sqrt(+inf) = +inf, negative -> NaN,
// subnormal operands kept (every root is normal), NaN canonical.
module fp32_sqrt (
    input  wire [31:0] a,
    output wire [31:0] y
);
    `include "fp_constants.vh"

    wire        s  = a[31];
    wire [7:0]  ex = a[30:23];
    wire nan  = (ex == 8'hFF) && (a[22:0] != 23'd0);
    wire inf  = (ex == 8'hFF) && (a[22:0] == 23'd0);
    wire zero = (a[30:0] == 31'd0);

    wire [23:0] m;
    wire signed [11:0] e;        // biased exponent of m (below 1 for subnormals)
    fp32_normalize u_norm (.a(a[30:0]), .m(m), .e(e));

    // a = m * 2^(e - 150). Shift m so the radicand lies in [2^52, 2^54) with an even
    // power of two left over: 29 places when e is odd, 30 when even.
    wire        odd = e[0];
    wire [53:0] radicand = odd ? {1'b0, m, 29'd0} : {m, 30'd0};
    // 27 root bits, floor(sqrt(radicand)), and the remainder (0 only for an exact root).
    wire [28:0] rem;
    wire [26:0] root;
    fp32_sqrt_steps #(.TOP(26), .BOT(0)) u_root (.rem_in(29'd0), .root_in(27'd0), .x(radicand),
                                                .rem_out(rem), .root_out(root));
    // Root r in [2^26, 2^27) stands for r * 2^((e - 150 - shift) / 2): biased
    // exponent 153 + (e - 150 - shift) / 2.
    wire signed [11:0] half = (e - (odd ? 12'sd179 : 12'sd180)) >>> 1;
    wire signed [11:0] exp = 12'sd153 + half;

    wire [31:0] rounded;
    fp32_round_pack u_round (.sign(1'b0), .exp(exp), .sig(root), .sticky(rem != 29'd0),
                             .y(rounded));

    assign y = nan ? FP32_CANON_NAN
             : zero ? a
             : s ? FP32_CANON_NAN
             : inf ? a
             : rounded;
endmodule
