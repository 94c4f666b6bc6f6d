// plena_msram: plena's Matrix SRAM, MLEN plena_sram banks. Bank r holds row r of every
// tile (MSRAM_TILES words of MLEN elements), one read and one write port each:
//   - a step of the MAC array reads one word per bank at its tile: every bank
//     (non-transposed: BLEN columns of all MLEN rows) or banks j0 .. j0+BLEN-1
//     (transposed: BLEN whole rows), so no two reads meet on a port. The banks' read
//     registers are the array's R stage; `b`, the next cycle, is each lane's column (row)
//     selected from them, head-interleaved in head mode (the P stage's first logic),
//     through a network whose selects are registered at the read edge (below);
//   - a write (a prefetch beat, or a host row while the core is idle) goes to one bank,
//     elements masked;
//   - the host reads a row through its bank's read port while the core is idle (the
//     array does not read then), presented the cycle after its address through the
//     transposed selection of lane 0 (a host read loads its selects; the array's operand
//     latch is closed then, so `b` in that cycle is seen by nothing).
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
    localparam integer NG = MLEN / BLEN;                    // members of a group (below)
    localparam integer LB = $clog2(BLEN);
    localparam integer NGW = NG > 1 ? $clog2(NG) : 1;
    localparam integer GW = BLEN > 1 ? LB : 1;
    initial if (NG * BLEN != MLEN || (1 << MLW) != MLEN)
        $fatal(1, "plena_msram: MLEN must be a power of two and a multiple of BLEN");

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

    // Column selection. B[k, j] is tile row k, column j; transposed, tile row j, column
    // k. Operand position p holds k = p, or in head mode (p % HEADS)*HLEN + p / HEADS
    // (head g's element k at g + k*HEADS). Lane l reads column (row) x = j0 + l (mod
    // MLEN). The columns (banks) fall into BLEN groups by x % BLEN, NG members each
    // (member i of group g is g + i*BLEN); the BLEN lanes' x are consecutive, so each
    // group holds exactly one lane's, at a member index fixed by j0. The read edge
    // registers, from j0 (the step's, or the host's bank), each group's member index
    // (gi_q) and each lane's group (lg_q): the cycle after, a group's NG-to-1 choice
    // (per bank, of an element; transposed, of a bank's word) and a lane's BLEN-to-1
    // choice of group follow from registers, with no arithmetic on the data's way.
    wire [MLW-1:0] j_in = rd_en ? rd_j0 : MLW'(h_row);
    wire [BLEN*NGW-1:0] gi_d;
    wire [BLEN*GW-1:0] lg_d;
    reg [BLEN*NGW-1:0] gi_q;
    reg [BLEN*GW-1:0] lg_q;
    reg tr_q, hm_q;
    genvar gg, gl, gp, gr, gi;
    generate
        for (gg = 0; gg < BLEN; gg = gg + 1) begin : g_sel
            // the lane whose x falls in group gg, its x, and lane gg's x
            wire [MLW-1:0] lane = MLW'(MLW'(gg) - j_in) & MLW'(BLEN - 1);
            wire [MLW-1:0] x = MLW'(j_in + lane);
            wire [MLW-1:0] xl = MLW'(j_in + MLW'(gg));
            assign gi_d[NGW*gg +: NGW] = NGW'(x >> LB);
            assign lg_d[GW*gg +: GW] = GW'(xl & MLW'(BLEN - 1));
        end
    endgenerate
    always @(posedge rclk) begin
        gi_q <= gi_d;
        lg_q <= lg_d;
        if (rd_en) begin
            tr_q <= rd_tr;
            hm_q <= rd_hm;
        end
    end

    // Every choice is a binary mux tree (rtl/common/mux_tree.v, level k halving the entries
    // by select bit k, entry e chosen by select e), not a variable part-select (a $shiftx
    // that Yosys expands to a log shifter of its whole input width before `opt` trims it)
    // nor a tree of continuous assignments (which made Icarus re-evaluate every node at
    // each bank's read): rtl/plena/README.md, "Synthesis", "Simulators".
    // Non-transposed: in each bank, each group's chosen element (ne), then per lane its
    // group's (ns: lane l's column of every bank, bank r at [16*r]).
    localparam integer GLV = NG > 1 ? $clog2(NG) : 0;       // a group's tree levels
    localparam integer LLV = BLEN > 1 ? LB : 0;             // a lane's
    wire [BLEN*MLEN*16-1:0] ns;
    // Transposed: each group's chosen bank (tw), then per lane its group's (tl); the
    // host's row is lane 0's.
    wire [BLEN*MLEN*16-1:0] tw, tl;
    generate
        for (gr = 0; gr < MLEN; gr = gr + 1) begin : g_nrow
            wire [BLEN*16-1:0] ne;
            for (gg = 0; gg < BLEN; gg = gg + 1) begin : g_grp
                wire [NG*16-1:0] m;
                for (gi = 0; gi < NG; gi = gi + 1) begin : g_mem
                    assign m[16*gi +: 16] = q[(gr*MLEN + gg + gi*BLEN)*16 +: 16];
                end
                mux_tree #(.WIDTH(16), .N(NG), .LEVELS(GLV), .SW(NGW)) u_mux (
                    .in(m), .sel(gi_q[NGW*gg +: NGW]), .out(ne[16*gg +: 16]));
            end
            for (gl = 0; gl < BLEN; gl = gl + 1) begin : g_lane
                mux_tree #(.WIDTH(16), .N(BLEN), .LEVELS(LLV), .SW(GW)) u_mux (
                    .in(ne), .sel(lg_q[GW*gl +: GW]), .out(ns[16*(gl*MLEN + gr) +: 16]));
            end
        end
        for (gg = 0; gg < BLEN; gg = gg + 1) begin : g_tgrp
            localparam integer RW = MLEN*16;
            wire [NG*RW-1:0] m;
            for (gi = 0; gi < NG; gi = gi + 1) begin : g_mem
                assign m[RW*gi +: RW] = q[(gg + gi*BLEN)*RW +: RW];
            end
            mux_tree #(.WIDTH(RW), .N(NG), .LEVELS(GLV), .SW(NGW)) u_mux (
                .in(m), .sel(gi_q[NGW*gg +: NGW]), .out(tw[RW*gg +: RW]));
        end
        for (gl = 0; gl < BLEN; gl = gl + 1) begin : g_tlane
            localparam integer RW = MLEN*16;
            mux_tree #(.WIDTH(RW), .N(BLEN), .LEVELS(LLV), .SW(GW)) u_mux (
                .in(tw), .sel(lg_q[GW*gl +: GW]), .out(tl[RW*gl +: RW]));
        end
    endgenerate
    assign h_data = tl[0 +: MLEN*16];

    // Positions: k = p, or head-interleaved; then the step's transposition.
    generate
        for (gl = 0; gl < BLEN; gl = gl + 1) begin : g_out
            for (gp = 0; gp < MLEN; gp = gp + 1) begin : g_pos
                localparam integer SN = gp;
                localparam integer SH = (gp % HEADS) * HLEN + gp / HEADS;
                wire [15:0] n = hm_q ? ns[16*(gl*MLEN + SH) +: 16] : ns[16*(gl*MLEN + SN) +: 16];
                wire [15:0] t = hm_q ? tl[16*(gl*MLEN + SH) +: 16] : tl[16*(gl*MLEN + SN) +: 16];
                assign b[16*(gl*MLEN + gp) +: 16] = tr_q ? t : n;
            end
        end
    endgenerate
endmodule
