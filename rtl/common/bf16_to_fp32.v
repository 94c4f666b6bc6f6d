// bf16 -> fp32, exact: the bf16 pattern is the top half of the fp32 pattern.
module bf16_to_fp32 (
    input  wire [15:0] a,
    output wire [31:0] y
);
    assign y = {a, 16'd0};
endmodule
