// One lane of plena's BLEN x MLEN MAC array: the bf16 products of a length-MLEN dot
// product and their fp32 sum, pipelined over three registered stages (the accumulation
// is plena_matrix's fourth stage). Numerics of simulators/numerics.py: exact products
// (bf16_mul), then the halving tree (level l adds x[i] + x[i + HALF], HALF = MLEN >> (l+1)),
// one fp32 RNE addition per node.
//
// The tree first sums over the high index bits, so after log2(HLEN) levels entry g holds
// the sum of elements g, g + HEADS, g + 2*HEADS, ...: with the operands head-interleaved
// by the caller (head g's element k at g + k*HEADS), head g's HLEN-long dot product in
// its own halving order. In head mode the later levels pass those HEADS sums through;
// otherwise they go on to the MLEN-long sum in entry 0.
//
// Stages, each a register on its own gated clock (plena_matrix's stage clocks):
//   P  (clk_p):  products and tree levels [0, B1)
//   T2 (clk_t2): levels [B1, B2)
//   T3 (clk_t3): levels [B2, LV)          LV = log2(MLEN), B1 = LV/3, B2 = B1 + (LV-B1+1)/2
// At the default MLEN = 64: a multiplier and 2 adders, 2 adders, 2 adders per stage.
module plena_mac_lane #(
    parameter integer MLEN = 64,
    parameter integer HLEN = 16
) (
    input  wire                      clk_p,
    input  wire                      clk_t2,
    input  wire                      clk_t3,
    input  wire [MLEN*16-1:0]        a,        // operand registers (plena_matrix's R stage)
    input  wire [MLEN*16-1:0]        b,
    // Waiver: head mode of the step entering P, T2, T3; a stage whose tree levels are all
    // below log2(HLEN) (the per-head sums) does not need it.
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire                      hm_r,
    input  wire                      hm_p,
    input  wire                      hm_2,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire [(MLEN/HLEN)*32-1:0] y         // T3's register: per-head sums (entry 0: the full sum)
);
    localparam integer HEADS = MLEN / HLEN;
    localparam integer LV = $clog2(MLEN);
    localparam integer LH = $clog2(HLEN);
    localparam integer B1 = LV / 3;
    localparam integer B2 = B1 + (LV - B1 + 1) / 2;

    wire [MLEN*32-1:0] prod;
    genvar k, l, i;
    generate
        for (k = 0; k < MLEN; k = k + 1) begin : g_mul
            bf16_mul u_mul (.a(a[16*k +: 16]), .b(b[16*k +: 16]), .y(prod[32*k +: 32]));
        end
        for (l = 0; l < LV; l = l + 1) begin : g_lv
            localparam integer HALF = MLEN >> (l + 1);
            localparam integer WI = (l == 0) ? MLEN : (((MLEN >> l) > HEADS) ? (MLEN >> l) : HEADS);
            localparam integer WO = (HALF > HEADS) ? HALF : HEADS;
            wire [32*WI-1:0] x;
            wire [32*WO-1:0] s;     // this level's results
            wire [32*WO-1:0] q;     // what the next level sees: s, or s registered
            if (l == 0) begin : g_first
                assign x = prod;
            end else begin : g_next
                assign x = g_lv[l-1].q;
            end
            for (i = 0; i < WO; i = i + 1) begin : g_node
                if (i < HALF) begin : g_add
                    wire [31:0] sum;
                    fp32_add u_add (.a(x[32*i +: 32]), .b(x[32*(i + HALF) +: 32]), .sub(1'b0),
                                    .y(sum));
                    if (l >= LH) begin : g_pass
                        wire hm = (l < B1) ? hm_r : (l < B2) ? hm_p : hm_2;
                        assign s[32*i +: 32] = hm ? x[32*i +: 32] : sum;
                    end else begin : g_sum
                        assign s[32*i +: 32] = sum;
                    end
                end else begin : g_keep    // head mode only: a head's finished sum
                    assign s[32*i +: 32] = x[32*i +: 32];
                end
            end
            if (l == B1 - 1) begin : g_reg_p
                reg [32*WO-1:0] r;
                always @(posedge clk_p) r <= s;
                assign q = r;
            end else if (l == B2 - 1) begin : g_reg_t2
                reg [32*WO-1:0] r;
                always @(posedge clk_t2) r <= s;
                assign q = r;
            end else if (l == LV - 1) begin : g_reg_t3
                reg [32*WO-1:0] r;
                always @(posedge clk_t3) r <= s;
                assign q = r;
            end else begin : g_wire
                assign q = s;
            end
        end
    endgenerate
    assign y = g_lv[LV-1].q;
endmodule
