// The dot-product step of the matrix unit and V_RED_SUM-style reductions:
// y = acc + tree_sum(a[i] * b[i]) for L bf16 pairs (L a power of two): products in
// fp32 (exact for bf16 in range), summed in the numerics' tree order, then added to
// the fp32 accumulator, each addition fp32 RNE. Combinational.
module bf16_dot_acc #(
    parameter integer L = 4
) (
    input  wire [16*L-1:0] a,
    input  wire [16*L-1:0] b,
    input  wire [31:0]     acc,
    output wire [31:0]     y
);
    wire [32*L-1:0] prod;
    genvar i;
    generate
        for (i = 0; i < L; i = i + 1) begin : g_mul
            bf16_mul u_mul (.a(a[16*i +: 16]), .b(b[16*i +: 16]), .y(prod[32*i +: 32]));
        end
    endgenerate

    wire [31:0] s;
    fp32_tree_sum #(.L(L)) u_sum (.x(prod), .y(s));
    fp32_add u_acc (.a(acc), .b(s), .sub(1'b0), .y(y));
endmodule
