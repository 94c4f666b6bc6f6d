// One lane of plena's BLEN x MLEN systolic array: a length-MLEN dot product of bf16
// operands accumulated in fp32, by the numerics of simulators/numerics.py.
//
// Products are exact fp32 (bf16_mul). The halving tree over L = HEADS * HLEN elements
// first sums over the high index bits, so it splits into HEADS trees of HLEN (group g
// takes elements g, g + HEADS, g + 2*HEADS, ...) followed by a tree of HEADS: with the
// operands in natural order `full` is the MLEN-long dot product, and with head h's
// elements placed at h + k*HEADS (the caller's interleaving) group h is head h's
// HLEN-long dot product, each in exactly its own halving order. Then one fp32 addition
// per accumulator: acc[0] += full (heads = 0), or acc[h] += group h (heads = 1).
module plena_mlane #(
    parameter integer MLEN = 64,
    parameter integer HLEN = 16
) (
    input  wire [MLEN*16-1:0]         a,
    input  wire [MLEN*16-1:0]         b,
    input  wire [(MLEN/HLEN)*32-1:0]  acc,
    input  wire                       heads,
    output wire [(MLEN/HLEN)*32-1:0]  y
);
    localparam integer HEADS = MLEN / HLEN;

    wire [MLEN*32-1:0] prod;
    wire [HEADS*32-1:0] group;
    wire [31:0] full;
    genvar k, g;
    generate
        for (k = 0; k < MLEN; k = k + 1) begin : g_mul
            bf16_mul u_mul (.a(a[16*k +: 16]), .b(b[16*k +: 16]), .y(prod[32*k +: 32]));
        end
        for (g = 0; g < HEADS; g = g + 1) begin : g_group
            wire [HLEN*32-1:0] x;
            for (k = 0; k < HLEN; k = k + 1) begin : g_pick
                assign x[32*k +: 32] = prod[32*(g + k*HEADS) +: 32];
            end
            fp32_tree_sum #(.L(HLEN)) u_sum (.x(x), .y(group[32*g +: 32]));
            fp32_add u_acc (.a(acc[32*g +: 32]),
                            .b(g == 0 ? (heads ? group[31:0] : full) : group[32*g +: 32]),
                            .sub(1'b0), .y(y[32*g +: 32]));
        end
    endgenerate
    fp32_tree_sum #(.L(HEADS)) u_full (.x(group), .y(full));
endmodule
