// plena_msram: plena's Matrix SRAM, MLEN plena_sram banks. Bank r holds row r of every
// tile (MSRAM_TILES words of MLEN elements), one read and one write port each:
//   - a step of the MAC array reads one word per bank at its tile: every bank
//     (non-transposed: BLEN columns of all MLEN rows) or banks j0 .. j0+BLEN-1
//     (transposed: BLEN whole rows), so no two reads meet on a port. The banks' read
//     registers are the array's R stage; `b`, the next cycle, is each lane's column (row)
//     selected from them, head-interleaved in head mode (the P stage's first logic);
//   - a write (a prefetch beat, or a host row while the core is idle) goes to one bank,
//     elements masked;
//   - the host reads a row through its bank's read port while the core is idle (the
//     array does not read then), presented the cycle after its address.
// A beat landing in a word at the edge a step reads it leaves the step the old word, as
// a combinational read of a flip-flop array at that edge did (the stall rule keeps the
// DMA off the tile in use anyway).
module plena_msram #(
    parameter integer MLEN = 64,
    parameter integer BLEN = 4,
    parameter integer HLEN = 16,
    parameter integer MSRAM_TILES = 4,
    parameter integer MTW = (MSRAM_TILES > 1) ? $clog2(MSRAM_TILES) : 1,
    parameter integer MLW = $clog2(MLEN),
    parameter integer TRW = $clog2(MSRAM_TILES * MLEN)
) (
    input  wire                    clk,
    // A step's read, at the edge that ends its cycle ...
    input  wire                    rd_en,
    input  wire [MTW-1:0]          rd_tile,
    input  wire [MLW-1:0]          rd_j0,      // first output column (row, transposed)
    input  wire                    rd_tr,      // transposed
    input  wire                    rd_hm,      // head mode: operands head-interleaved
    // ... and its B operand the cycle after: lane l's MLEN elements at [l*MLEN*16 +: ..]
    output wire [BLEN*MLEN*16-1:0] b,
    input  wire                    we,
    input  wire                    w_open,     // the host may write (the core is idle)
    input  wire [TRW-1:0]          w_row,      // tile t, row r at t*MLEN + r
    input  wire [MLEN*16-1:0]      w_data,
    input  wire [MLEN-1:0]         w_mask,
    input  wire                    h_re,       // only while rd_en is low
    input  wire [TRW-1:0]          h_row,
    output wire [MLEN*16-1:0]      h_data
);
    localparam integer HEADS = MLEN / HLEN;

    wire [MLEN*MLEN*16-1:0] q;              // bank r's read register at [r*MLEN*16 +: ..]
    wire [MTW-1:0] w_tile = MTW'(w_row >> MLW);
    wire [MTW-1:0] h_tile = MTW'(h_row >> MLW);
    // The banks' read clock ticks only in a cycle that reads (a step or the host): the
    // read registers, the column selection and the array's multipliers after them stay
    // still while the array is idle. Their write clock ticks with a prefetch beat, and
    // throughout while the core is idle (w_open: the host's writes come from outside,
    // and the gate's enable must not wait on them).
    wire rclk, wclk;
    icg u_rgate (.clk(clk), .en(rd_en || h_re), .gclk(rclk));
    icg u_wgate (.clk(clk), .en(we || w_open), .gclk(wclk));
    genvar gb;
    generate
        for (gb = 0; gb < MLEN; gb = gb + 1) begin : g_bank
            wire used = !rd_tr || 32'(gb) - 32'(rd_j0) < 32'(BLEN);   // j0 <= gb < j0 + BLEN
            wire h_here = h_re && h_row[MLW-1:0] == MLW'(gb);
            plena_sram #(.DEPTH(MSRAM_TILES), .N(MLEN), .AW(MTW)) u_bank (
                .rclk(rclk), .wclk(wclk),
                .re((rd_en && used) || h_here), .raddr(rd_en ? rd_tile : h_tile),
                .rdata(q[gb*MLEN*16 +: MLEN*16]),
                .we(we && w_row[MLW-1:0] == MLW'(gb)), .wmask(w_mask),
                .waddr(w_tile), .wdata(w_data));
        end
    endgenerate

    // What the read registers hold: the step's first column, transposition, head mode;
    // the host's bank.
    reg [MLW-1:0] j_q, h_q;
    reg tr_q, hm_q;
    always @(posedge rclk) begin
        if (rd_en) begin
            j_q <= rd_j0;
            tr_q <= rd_tr;
            hm_q <= rd_hm;
        end
        if (h_re) h_q <= MLW'(h_row);
    end
    assign h_data = q[32'(h_q)*MLEN*16 +: MLEN*16];

    // Column selection. B[k, j] is tile row k, column j; transposed, tile row j, column
    // k. Operand position p holds k = p, or in head mode (p % HEADS)*HLEN + p / HEADS
    // (head g's element k at g + k*HEADS). Per position the k-th row (non-transposed) or
    // the k-th element of every row (transposed) is gathered once; lane l picks j_q + l.
    wire [BLEN*MLW-1:0] jl;
    genvar gs, gp, gr;
    generate
        for (gs = 0; gs < BLEN; gs = gs + 1) begin : g_j
            assign jl[MLW*gs +: MLW] = MLW'(32'(j_q) + gs);
        end
        for (gp = 0; gp < MLEN; gp = gp + 1) begin : g_pos
            localparam integer SN = gp;
            localparam integer SH = (gp % HEADS) * HLEN + gp / HEADS;
            wire [MLEN*16-1:0] nrow = hm_q ? q[SH*MLEN*16 +: MLEN*16] : q[SN*MLEN*16 +: MLEN*16];
            wire [MLEN*16-1:0] tcol;
            for (gr = 0; gr < MLEN; gr = gr + 1) begin : g_row
                assign tcol[16*gr +: 16] = hm_q ? q[(gr*MLEN + SH)*16 +: 16]
                                                : q[(gr*MLEN + SN)*16 +: 16];
            end
            wire [MLEN*16-1:0] pick = tr_q ? tcol : nrow;
            for (gs = 0; gs < BLEN; gs = gs + 1) begin : g_lane
                assign b[16*(gs*MLEN + gp) +: 16] = pick[16*32'(jl[MLW*gs +: MLW]) +: 16];
            end
        end
    endgenerate
endmodule
