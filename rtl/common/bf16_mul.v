// bf16 x bf16 product in fp32: exact whenever it lies in fp32's normal range, else
// rounded like the fp32 product of the widened operands (see fp_mul). The product
// step of every dot product.
module bf16_mul (
    input  wire [15:0] a,
    input  wire [15:0] b,
    output wire [31:0] y
);
    fp_mul #(.FI(7)) u_mul (.a(a), .b(b), .y(y));
endmodule
