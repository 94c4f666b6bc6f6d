// One Horner step of fp32_exp's polynomial: y = p * f + c, the multiply and the add
// each rounded in fp32 (RNE), as simulators/numerics.py. Combinational.
module fp32_horner_step (
    input  wire [31:0] p,
    input  wire [31:0] f,
    input  wire [31:0] c,
    output wire [31:0] y
);
    wire [31:0] prod;
    fp32_mul u_mul (.a(p), .b(f), .y(prod));
    fp32_add u_add (.a(prod), .b(c), .sub(1'b0), .y(y));
endmodule
