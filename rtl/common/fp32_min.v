// fp32 min with NaN propagation and min(-0, +0) = -0 (see fp32_minmax).
module fp32_min (
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    fp32_minmax #(.MIN(1)) u_min (.a(a), .b(b), .y(y));
endmodule
