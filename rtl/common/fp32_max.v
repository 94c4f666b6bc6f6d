// fp32 max with NaN propagation and max(-0, +0) = +0 (see fp32_minmax).
module fp32_max (
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    fp32_minmax #(.MIN(0)) u_max (.a(a), .b(b), .y(y));
endmodule
