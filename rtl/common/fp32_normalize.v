// The significand of an fp32 operand normalised to [2^23, 2^24) (subnormals shifted up
// by their leading zeros) and its biased exponent (below 1 for subnormals): the first
// step of fp32_recip and fp32_sqrt and of their pipelined forms. Combinational.
module fp32_normalize (
    input  wire [30:0]        a,      // the operand without its sign
    output wire [23:0]        m,
    output wire signed [11:0] e
);
    wire [7:0]  ex = a[30:23];
    wire [23:0] m_raw = {ex != 8'd0, a[22:0]};
    reg  [4:0]  lz;                      // leading zeros of m_raw
    integer i;
    always @* begin
        lz = 5'd24;
        for (i = 0; i < 24; i = i + 1)
            if (m_raw[i]) lz = 5'd23 - i[4:0];
    end
    assign m = m_raw << lz;
    assign e = $signed({4'd0, (ex == 8'd0) ? 8'd1 : ex}) - $signed({7'd0, lz});
endmodule
