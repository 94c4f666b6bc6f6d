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

    // Leading zeros of a 24-bit significand (subnormal operands).
    function automatic [4:0] clz24(input [23:0] v);
        integer i;
        begin
            clz24 = 5'd24;
            for (i = 0; i < 24; i = i + 1)
                if (v[i]) clz24 = 5'd23 - i[4:0];
        end
    endfunction

    // {remainder != 0, floor(2^50 / m)} for m in [2^23, 2^24): quotient bits 27..0 of
    // 1.0 / (m / 2^23), by restoring division.
    function automatic [28:0] divide(input [23:0] m);
        reg [24:0] r;
        reg [27:0] q;
        integer i;
        begin
            r = 25'h080_0000;            // 1.0 in m's scale
            q = 28'd0;
            for (i = 27; i >= 0; i = i - 1) begin
                if (r >= {1'b0, m}) begin
                    q[i] = 1'b1;
                    r = r - {1'b0, m};
                end
                r = r << 1;
            end
            divide = {r != 25'd0, q};
        end
    endfunction

    wire [23:0] m_raw = {ex != 8'd0, a[22:0]};
    wire [4:0]  lz = clz24(m_raw);
    wire [23:0] m = m_raw << lz;
    // Biased exponent of the normalised operand (may be below 1 for subnormals).
    wire signed [11:0] e = $signed({4'd0, (ex == 8'd0) ? 8'd1 : ex}) - $signed({7'd0, lz});

    wire [28:0] qr = divide(m);
    wire [27:0] q = qr[27:0];
    // q[27] is set only for m = 1.0 exactly (quotient 1.0, remainder 0).
    wire [26:0] sig = q[27] ? q[27:1] : q[26:0];
    wire sticky = qr[28] | (q[27] & q[0]);
    wire signed [11:0] exp = (q[27] ? 12'sd254 : 12'sd253) - e;

    wire [31:0] rounded;
    fp32_round_pack u_round (.sign(s), .exp(exp), .sig(sig), .sticky(sticky), .y(rounded));

    assign y = nan ? FP32_CANON_NAN
             : zero ? {s, 8'hFF, 23'd0}
             : inf ? {s, 31'd0}
             : rounded;
endmodule
