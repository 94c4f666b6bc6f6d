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

    function automatic [4:0] clz24(input [23:0] v);
        integer i;
        begin
            clz24 = 5'd24;
            for (i = 0; i < 24; i = i + 1)
                if (v[i]) clz24 = 5'd23 - i[4:0];
        end
    endfunction

    // {remainder != 0, floor(sqrt(x))} for x in [2^52, 2^54): 27 root bits.
    function automatic [27:0] isqrt(input [53:0] x);
        reg [28:0] rem;
        reg [28:0] trial;
        reg [26:0] root;
        integer i;
        begin
            rem = 29'd0;
            root = 27'd0;
            for (i = 26; i >= 0; i = i - 1) begin
                rem = {rem[26:0], x[2*i+1 -: 2]};
                trial = {root, 2'b01};
                if (rem >= trial) begin
                    rem = rem - trial;
                    root = {root[25:0], 1'b1};
                end else begin
                    root = {root[25:0], 1'b0};
                end
            end
            isqrt = {rem != 29'd0, root};
        end
    endfunction

    wire [23:0] m_raw = {ex != 8'd0, a[22:0]};
    wire [4:0]  lz = clz24(m_raw);
    wire [23:0] m = m_raw << lz;
    wire signed [11:0] e = $signed({4'd0, (ex == 8'd0) ? 8'd1 : ex}) - $signed({7'd0, lz});

    // a = m * 2^(e - 150). Shift m so the radicand lies in [2^52, 2^54) with an even
    // power of two left over: 29 places when e is odd, 30 when even.
    wire        odd = e[0];
    wire [53:0] radicand = odd ? {1'b0, m, 29'd0} : {m, 30'd0};
    wire [27:0] rr = isqrt(radicand);
    // Root r in [2^26, 2^27) stands for r * 2^((e - 150 - shift) / 2): biased
    // exponent 153 + (e - 150 - shift) / 2.
    wire signed [11:0] half = (e - (odd ? 12'sd179 : 12'sd180)) >>> 1;
    wire signed [11:0] exp = 12'sd153 + half;

    wire [31:0] rounded;
    fp32_round_pack u_round (.sign(1'b0), .exp(exp), .sig(rr[26:0]), .sticky(rr[27]),
                             .y(rounded));

    assign y = nan ? FP32_CANON_NAN
             : zero ? a
             : s ? FP32_CANON_NAN
             : inf ? a
             : rounded;
endmodule
