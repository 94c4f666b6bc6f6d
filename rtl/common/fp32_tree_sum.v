// Sum of L fp32 values (L a power of two) in the numerics' tree order: each level
// halves the list, x[i] + x[i + n/2], one fp32 RNE addition each, until one value is
// left. Combinational: L - 1 fp32_add units in log2(L) levels.
// MAX = 1: the same tree of fp32_minmax maxima instead (NaN wins, +0 above -0: max is
// then associative and commutative, so this tree gives any order's bits).
module fp32_tree_sum #(
    parameter integer L = 8,
    parameter integer MAX = 0
) (
    input  wire [32*L-1:0] x,
    output wire [31:0]     y
);
    localparam integer LEVELS = $clog2(L);

    genvar lvl, i;
    generate
        // Level lvl adds its 2*HALF inputs pairwise into HALF outputs; each level has
        // its own vectors (one shared vector would look like a combinational loop).
        for (lvl = 0; lvl < LEVELS; lvl = lvl + 1) begin : g_level
            localparam integer HALF = L >> (lvl + 1);
            wire [64*HALF-1:0] lvl_in;
            wire [32*HALF-1:0] lvl_out;
            if (lvl == 0) begin : g_first
                assign lvl_in = x;
            end else begin : g_next
                assign lvl_in = g_level[lvl-1].lvl_out;
            end
            for (i = 0; i < HALF; i = i + 1) begin : g_add
                if (MAX != 0) begin : g_max
                    fp32_minmax #(.MIN(0)) u_max (.a(lvl_in[32*i +: 32]), .b(lvl_in[32*(i + HALF) +: 32]),
                                                  .y(lvl_out[32*i +: 32]));
                end else begin : g_sum
                    fp32_add u_add (.a(lvl_in[32*i +: 32]), .b(lvl_in[32*(i + HALF) +: 32]),
                                    .sub(1'b0), .y(lvl_out[32*i +: 32]));
                end
            end
        end
        if (LEVELS == 0) begin : g_single
            assign y = x;
        end else begin : g_root
            assign y = g_level[LEVELS-1].lvl_out;
        end
    endgenerate
endmodule
