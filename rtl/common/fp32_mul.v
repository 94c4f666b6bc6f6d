// fp32 multiply, IEEE binary32 round-to-nearest-even (see fp_mul).
module fp32_mul (
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    fp_mul #(.FI(23)) u_mul (.a(a), .b(b), .y(y));
endmodule
