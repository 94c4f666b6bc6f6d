// aie_dm: the tile's data memory, DM_SIZE bytes in DM_BANKS banks (bank b holds bytes
// b*BANK .. (b+1)*BANK-1). A bank is four aie_sram macros of 32-byte rows, row r in
// macro r mod 4, so an access of up to 128 bytes (four consecutive rows, 32-byte
// aligned) reads or writes each of its rows in its own macro in one cycle.
//
// Requesters: the core's three memory units (ld0, ld1, st), the host, and the DMA's
// four channels (in0, in1, out0, out1). The core presents in one cycle at most one
// access per start bank (it serialises accesses that start in one bank: the
// bank-conflict rule), so a macro sees at most the access that starts in its bank
// (port A) and the tail of one access that starts in the bank below and straddles into
// it (port B). The host uses port A while the core is idle. A DMA beat (one to four
// consecutive rows) takes port B of each of its rows' macros, or port A when an
// earlier channel's beat (in0, in1, out0, out1) has B. Arbitration, as in the AI
// Engine's memory module (one requester per port per cycle, the others stall and
// retry), with the DMA always first: the core presents the accesses it would make this
// cycle (`core_cand`) and waits (`core_wait`) while beats hold a port one of them
// needs, so the DMA's timing never depends on the core. A third beat on one macro is
// reported (`collide`), not arbitrated (the model's DMA timing has no such stall).
//
// An access names its first row and row count, and brings a 128-byte window (its first
// row's first byte is window byte 0) of write data and byte enables; reads return the
// window the next cycle.
//
// The routing is written in fixed lanes: lane l of a requester is the part of its
// window bound for macro position l of a bank (window slot (l - first row) mod 4), a
// 4:1 choice by constant indices, and each macro port picks among the requesters' lane
// l by constant indices too. Variable window slices (slot k of requester i into macro
// m) had made Yosys's `share` pass enumerate every earlier requester's conditions for
// each slice and run out of memory. Only WRITERS have write-data lanes and only READERS
// read-data ones (aie_top: the load units and the output channels never write, the
// store unit and the input channels never read).
module aie_dm #(
    parameter integer DM_SIZE = 65536,
    parameter integer DM_BANKS = 8,
    parameter integer RW = 11,                      // row address bits: log2(DM_SIZE/32)
    parameter integer NREQ = 8,
    // requesters that write and that read (bit i: requester i); the others have no
    // write-data or read-data path (their write enable is ignored, their read data zero)
    parameter [NREQ-1:0] WRITERS = '1,
    parameter [NREQ-1:0] READERS = '1
) (
    input  wire               clk,
    input  wire [NREQ-1:0]    req_v,                // ld0, ld1, st, host, in0, in1, out0, out1
    input  wire [NREQ*RW-1:0] req_row,
    input  wire [NREQ*3-1:0]  req_nrows,            // 3 bits each: 1..4
    input  wire [NREQ-1:0]    req_we,
    // Waiver: the bits of requesters outside WRITERS are not read.
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [NREQ*128-1:0] req_be,              // 128 bits each
    input  wire [NREQ*1024-1:0] req_wdata,          // 1024 bits each
    /* verilator lint_on UNUSEDSIGNAL */
    output wire [NREQ*1024-1:0] rsp_rdata,          // 1024 bits each, the cycle after
    output wire               collide,              // two accesses met on one macro port
    input  wire [2:0]         core_cand,            // ld0, ld1, st would go this cycle
    input  wire [3:0]         dma_v,                // in0, in1, out0, out1 (= req_v[7:4])
    output wire               core_wait             // a DMA beat holds a port one of them needs
);
    localparam integer ROWS_PER_BANK = DM_SIZE / 32 / DM_BANKS;
    localparam integer RB = $clog2(ROWS_PER_BANK);  // row bits within a bank
    localparam integer MD = ROWS_PER_BANK / 4;      // depth of one macro
    localparam integer MAW = (MD > 1) ? $clog2(MD) : 1;
    localparam integer BW = (DM_BANKS > 1) ? $clog2(DM_BANKS) : 1;
    localparam integer NM = DM_BANKS * 4;
    localparam integer NL = NREQ * 4;               // requester lanes: lane l of requester i is 4*i + l
    localparam integer JW = (NREQ > 1) ? $clog2(NREQ) : 1;

    // Per requester lane: the bank of the row it touches, its macro address there, whether
    // the access reaches it (its slot is below the row count), whether that row is in a
    // bank above the first row's, and its slot's byte enables and write data.
    wire [NL*BW-1:0]  ln_bank;
    wire [NL*MAW-1:0] ln_ad;
    wire [NL-1:0]     ln_in, ln_up;
    wire [NL*32-1:0]  ln_be;
    wire [NL*256-1:0] ln_wd;
    wire [NL-1:0]     ln_b;                         // it goes through port B
    wire [NL-1:0]     dport;                        // (a DMA beat's lane: port B is free for it)

    genvar gi, gl, g;
    generate
        for (gi = 0; gi < NREQ; gi = gi + 1) begin : g_req
            wire [RW-1:0] r0 = req_row[RW*gi +: RW];
            for (gl = 0; gl < 4; gl = gl + 1) begin : g_lane
                localparam integer N = 4 * gi + gl;
                wire [1:0] k = 2'(gl) - r0[1:0];
                wire [RW-1:0] row = r0 + RW'(k);
                assign ln_bank[BW*N +: BW] = BW'(row >> RB);
                assign ln_ad[MAW*N +: MAW] = MAW'(row[RB-1:0] >> 2);
                assign ln_in[N] = {1'b0, k} < req_nrows[3*gi +: 3];
                assign ln_up[N] = BW'(row >> RB) != BW'(r0 >> RB);
                if (WRITERS[gi]) begin : g_w
                    assign ln_be[32*N +: 32] =
                        k == 2'd0 ? req_be[128*gi +: 32] : k == 2'd1 ? req_be[128*gi + 32 +: 32] :
                        k == 2'd2 ? req_be[128*gi + 64 +: 32] : req_be[128*gi + 96 +: 32];
                    assign ln_wd[256*N +: 256] =
                        k == 2'd0 ? req_wdata[1024*gi +: 256] : k == 2'd1 ? req_wdata[1024*gi + 256 +: 256] :
                        k == 2'd2 ? req_wdata[1024*gi + 512 +: 256] : req_wdata[1024*gi + 768 +: 256];
                end else begin : g_nw
                    assign ln_be[32*N +: 32] = 32'd0;
                    assign ln_wd[256*N +: 256] = 256'd0;
                end
                assign ln_b[N] = (gi >= 4) ? dport[N] : ln_up[N];
            end
        end
    endgenerate

    // Arbitration: the ports the DMA's beats take (from dma_v and the rows alone, so the
    // core's decision does not loop back through its own requests). A beat's lane takes
    // port B unless an earlier channel's beat has the same macro (same lane and bank).
    generate
        for (gi = 4; gi < 8; gi = gi + 1) begin : g_dport
            for (gl = 0; gl < 4; gl = gl + 1) begin : g_lane
                localparam integer N = 4 * gi + gl;
                reg earlier;
                integer j;
                // (the scans below run only in a cycle with a beat: the simulator
                // evaluates them at every edge, and the DMA is idle in most)
                always @* begin
                    earlier = 1'b0;
                    if (dma_v[gi - 4])
                        for (j = 4; j < gi; j = j + 1)
                            if (dma_v[j - 4] && ln_in[4*j + gl]
                                && ln_bank[BW*(4*j + gl) +: BW] == ln_bank[BW*N +: BW])
                                earlier = 1'b1;
                end
                assign dport[N] = dma_v[gi - 4] && ln_in[N] && !earlier;
            end
        end
        for (gi = 0; gi < 4; gi = gi + 1) begin : g_dport_none
            for (gl = 0; gl < 4; gl = gl + 1) begin : g_lane
                assign dport[4*gi + gl] = 1'b0;
            end
        end
    endgenerate

    // Per macro: how many beats hold it (dma_b: one, so port B is taken; dma_a: two).
    wire [NM-1:0] dma_a, dma_b;
    generate
        for (g = 0; g < NM; g = g + 1) begin : g_dma_hold
            reg one, two;
            integer j;
            always @* begin
                one = 1'b0; two = 1'b0;
                if (dma_v != 4'd0)
                    for (j = 4; j < 8; j = j + 1)
                        if (dma_v[j - 4] && ln_in[4*j + g % 4] && ln_bank[BW*(4*j + g % 4) +: BW] == BW'(g / 4)) begin
                            two = two | one;
                            one = 1'b1;
                        end
            end
            assign dma_b[g] = one;
            assign dma_a[g] = two;
        end
    endgenerate

    // The core's accesses of this cycle wait when a lane needs a port a beat holds (port A
    // in the bank it starts in, B above).
    wire [11:0] lane_wait;
    generate
        for (gi = 0; gi < 3; gi = gi + 1) begin : g_wait
            for (gl = 0; gl < 4; gl = gl + 1) begin : g_lane
                localparam integer N = 4 * gi + gl;
                reg held;
                integer b;
                always @* begin
                    held = 1'b0;
                    if (dma_v != 4'd0)              // (no beat: no port held)
                        for (b = 0; b < DM_BANKS; b = b + 1)
                            if (ln_bank[BW*N +: BW] == BW'(b))
                                held = ln_up[N] ? dma_b[4*b + gl] : dma_a[4*b + gl];
                end
                assign lane_wait[N] = core_cand[gi] && ln_in[N] && held;
            end
        end
    endgenerate
    assign core_wait = |lane_wait;

    // The macros, each with its two ports' choice among the requesters' lanes (a later
    // requester wins a port; two on one port is a collision). Each port's requesters are
    // found once (`hit_a`, `hit_b`: one bit per requester), and the winner's data is
    // taken by one choice (lanes by constant indices, the 3-bit address by a variable
    // one): the simulator tests each requester once per port, not once per port
    // signal, and moves one 256-bit word per port.
    wire [NM*256-1:0] a_rd, b_rd;
    wire [NM-1:0]     col;
    generate
        for (g = 0; g < NM; g = g + 1) begin : g_macro
            localparam integer L = g % 4;
            wire [NREQ-1:0] hit, hit_a, hit_b;
            for (gi = 0; gi < NREQ; gi = gi + 1) begin : g_hit
                assign hit[gi] = req_v[gi] && ln_in[4*gi + L] && ln_bank[BW*(4*gi + L) +: BW] == BW'(g / 4);
                assign hit_a[gi] = hit[gi] && !ln_b[4*gi + L];
                assign hit_b[gi] = hit[gi] && ln_b[4*gi + L];
            end
            wire a_en = |hit_a, b_en = |hit_b;
            // the winner of each port: the last requester on it (0 when none: unused then),
            // and its macro address, taken in the same scan by constant indices (a slice
            // at the winner's variable index had the simulator compute bit offsets into
            // ln_ad for all 32 ports at every edge); the scan only for a port in use (the
            // same values: with no requester both stay requester 0's)
            reg [JW-1:0] a_j, b_j;
            reg [MAW-1:0] a_ad, b_ad;
            integer j;
            always @* begin
                a_j = '0; b_j = '0;
                a_ad = ln_ad[MAW*L +: MAW]; b_ad = ln_ad[MAW*L +: MAW];
                if (a_en)
                    for (j = 0; j < NREQ; j = j + 1)
                        if (hit_a[j]) begin a_j = JW'(j); a_ad = ln_ad[MAW*(4*j + L) +: MAW]; end
                if (b_en)
                    for (j = 0; j < NREQ; j = j + 1)
                        if (hit_b[j]) begin b_j = JW'(j); b_ad = ln_ad[MAW*(4*j + L) +: MAW]; end
            end
            // (more than one requester on a port)
            assign col[g] = |(hit_a & (hit_a - NREQ'(1))) | |(hit_b & (hit_b - NREQ'(1)));
            wire [NREQ-1:0] wmask = WRITERS & req_we;
            wire a_we = a_en && wmask[a_j], b_we = b_en && wmask[b_j];
            // the write data and byte enables of a port that writes (else zero: the macro
            // reads them only with its write enable), so the simulator makes the choice
            // only for the ports written in a cycle (a scalar-and-load cycle writes one)
            reg  [31:0]    a_be, b_be;
            reg  [255:0]   a_wd, b_wd;
            always @* begin
                a_be = 32'd0; a_wd = 256'd0; b_be = 32'd0; b_wd = 256'd0;
                if (a_we)
                    for (j = 0; j < NREQ; j = j + 1)
                        if (WRITERS[j] && a_j == JW'(j)) begin
                            a_be = ln_be[32*(4*j + L) +: 32]; a_wd = ln_wd[256*(4*j + L) +: 256];
                        end
                if (b_we)
                    for (j = 0; j < NREQ; j = j + 1)
                        if (WRITERS[j] && b_j == JW'(j)) begin
                            b_be = ln_be[32*(4*j + L) +: 32]; b_wd = ln_wd[256*(4*j + L) +: 256];
                        end
            end
            aie_sram #(.DEPTH(MD), .AW(MAW)) u_sram (
                .clk(clk),
                .a_en(a_en), .a_we(a_we), .a_be(a_be), .a_addr(a_ad),
                .a_wdata(a_wd), .a_rdata(a_rd[256*g +: 256]),
                .b_en(b_en), .b_we(b_we), .b_be(b_be), .b_addr(b_ad),
                .b_wdata(b_wd), .b_rdata(b_rd[256*g +: 256])
            );
        end
    endgenerate
    assign collide = |col;

    // Read data: each lane's macro and port are noted at the access; the next cycle a lane
    // takes its macro's port output, and window slot k is lane (first row + k) mod 4.
    // Waiver: the bits of requesters outside READERS are not read (synthesis drops them).
    /* verilator lint_off UNUSEDSIGNAL */
    reg [NL*BW-1:0] ln_bank_q;
    reg [NL-1:0]    ln_b_q;
    reg [NREQ*2-1:0] r0lo_q;
    integer qi;
    always @(posedge clk) begin
        ln_bank_q <= ln_bank;
        ln_b_q <= ln_b;
        for (qi = 0; qi < NREQ; qi = qi + 1) r0lo_q[2*qi +: 2] <= req_row[RW*qi +: 2];
    end

    wire [NL*256-1:0] ln_rd;
    /* verilator lint_on UNUSEDSIGNAL */
    generate
        for (gi = 0; gi < NREQ; gi = gi + 1) begin : g_rd
            for (gl = 0; gl < 4; gl = gl + 1) begin : g_lane
                localparam integer N = 4 * gi + gl;
                if (READERS[gi]) begin : g_r
                    reg [255:0] rd;
                    integer b;
                    always @* begin
                        rd = 256'd0;
                        for (b = 0; b < DM_BANKS; b = b + 1)
                            if (ln_bank_q[BW*N +: BW] == BW'(b))
                                rd = ln_b_q[N] ? b_rd[256*(4*b + gl) +: 256] : a_rd[256*(4*b + gl) +: 256];
                    end
                    assign ln_rd[256*N +: 256] = rd;
                    wire [1:0] lane = 2'(gl) + r0lo_q[2*gi +: 2];  // the lane of window slot gl
                    assign rsp_rdata[1024*gi + 256*gl +: 256] =
                        lane == 2'd0 ? ln_rd[256*(4*gi) +: 256] : lane == 2'd1 ? ln_rd[256*(4*gi + 1) +: 256] :
                        lane == 2'd2 ? ln_rd[256*(4*gi + 2) +: 256] : ln_rd[256*(4*gi + 3) +: 256];
                end else begin : g_nr
                    assign ln_rd[256*N +: 256] = 256'd0;
                    assign rsp_rdata[1024*gi + 256*gl +: 256] = 256'd0;
                end
            end
        end
    endgenerate
endmodule
