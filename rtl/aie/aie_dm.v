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
module aie_dm #(
    parameter integer DM_SIZE = 65536,
    parameter integer DM_BANKS = 8,
    parameter integer RW = 11,                      // row address bits: log2(DM_SIZE/32)
    parameter integer NREQ = 8
) (
    input  wire               clk,
    input  wire [NREQ-1:0]    req_v,                // ld0, ld1, st, host, in0, in1, out0, out1
    input  wire [NREQ*RW-1:0] req_row,
    input  wire [NREQ*3-1:0]  req_nrows,            // 3 bits each: 1..4
    input  wire [NREQ-1:0]    req_we,
    input  wire [NREQ*128-1:0] req_be,              // 128 bits each
    input  wire [NREQ*1024-1:0] req_wdata,          // 1024 bits each
    output reg  [NREQ*1024-1:0] rsp_rdata,          // 1024 bits each, the cycle after
    output reg                collide,              // two accesses met on one macro port
    input  wire [2:0]         core_cand,            // ld0, ld1, st would go this cycle
    input  wire [3:0]         dma_v,                // in0, in1, out0, out1 (= req_v[7:4])
    output reg                core_wait             // a DMA beat holds a port one of them needs
);
    localparam integer ROWS_PER_BANK = DM_SIZE / 32 / DM_BANKS;
    localparam integer RB = $clog2(ROWS_PER_BANK);  // row bits within a bank
    localparam integer MD = ROWS_PER_BANK / 4;      // depth of one macro
    localparam integer MAW = (MD > 1) ? $clog2(MD) : 1;
    localparam integer BW = (DM_BANKS > 1) ? $clog2(DM_BANKS) : 1;
    localparam integer NM = DM_BANKS * 4;

    // Per requester and lane (macro position within a bank): does it use the lane, the
    // row it touches there, the bank of that row, and its window slot k.
    reg           use_  [0:NREQ-1][0:3];
    reg  [RW-1:0] row_  [0:NREQ-1][0:3];
    reg  [1:0]    k_    [0:NREQ-1][0:3];
    reg           dport [0:NREQ-1][0:3];            // a DMA beat's row goes through port B

    // Macro ports.
    reg            a_en [0:NM-1], a_we [0:NM-1], b_en [0:NM-1], b_we [0:NM-1];
    reg  [31:0]    a_be [0:NM-1], b_be [0:NM-1];
    reg  [MAW-1:0] a_ad [0:NM-1], b_ad [0:NM-1];
    reg  [255:0]   a_wd [0:NM-1], b_wd [0:NM-1];
    wire [255:0]   a_rd [0:NM-1], b_rd [0:NM-1];

    // Where each requester's window slot comes from next cycle: macro and port.
    reg  [BW-1:0]  src_bank [0:NREQ-1][0:3], src_bank_q [0:NREQ-1][0:3];
    reg            src_b    [0:NREQ-1][0:3], src_b_q    [0:NREQ-1][0:3];

    integer i, l, m, kk, pi, pl, qi, ri, rl, rm, rk;
    reg [RW-1:0] r0;
    reg [BW-1:0] bk, sb;

    always @* begin
        kk = 0;
        collide = 1'b0;
        for (m = 0; m < NM; m = m + 1) begin
            a_en[m] = 1'b0; a_we[m] = 1'b0; a_be[m] = 32'd0; a_ad[m] = '0; a_wd[m] = 256'd0;
            b_en[m] = 1'b0; b_we[m] = 1'b0; b_be[m] = 32'd0; b_ad[m] = '0; b_wd[m] = 256'd0;
        end
        for (i = 0; i < NREQ; i = i + 1) begin
            r0 = req_row[RW*i +: RW];
            sb = BW'(r0 >> RB);
            for (l = 0; l < 4; l = l + 1) begin
                k_[i][l] = 2'(l) - r0[1:0];
                row_[i][l] = r0 + RW'(k_[i][l]);
                use_[i][l] = req_v[i] && ({1'b0, k_[i][l]} < req_nrows[3*i +: 3]);
                bk = BW'(row_[i][l] >> RB);
                src_bank[i][l] = bk;
                src_b[i][l] = (i >= 4) ? dport[i][l] : (bk != sb);
                if (use_[i][l]) begin
                    m = 4 * $unsigned(bk) + l;
                    kk = $unsigned(k_[i][l]);
                    if (!src_b[i][l]) begin
                        collide = collide | a_en[m];
                        a_en[m] = 1'b1; a_we[m] = req_we[i];
                        a_be[m] = req_be[128*i + 32*kk +: 32];
                        a_ad[m] = MAW'(row_[i][l][RB-1:0] >> 2);
                        a_wd[m] = req_wdata[1024*i + 256*kk +: 256];
                    end else begin
                        collide = collide | b_en[m];
                        b_en[m] = 1'b1; b_we[m] = req_we[i];
                        b_be[m] = req_be[128*i + 32*kk +: 32];
                        b_ad[m] = MAW'(row_[i][l][RB-1:0] >> 2);
                        b_wd[m] = req_wdata[1024*i + 256*kk +: 256];
                    end
                end
            end
        end
    end

    // Arbitration: the ports the DMA's beats take (from dma_v and the rows alone, so the
    // core's decision does not loop back through its own requests).
    reg            dma_a [0:NM-1], dma_b [0:NM-1];
    reg  [RW-1:0]  w_r0, w_row;
    reg  [1:0]     w_k;
    reg  [BW-1:0]  w_bk, w_sb;
    integer wi, wl, wm;
    always @* begin
        for (wm = 0; wm < NM; wm = wm + 1) begin dma_a[wm] = 1'b0; dma_b[wm] = 1'b0; end
        for (wi = 0; wi < NREQ; wi = wi + 1) for (wl = 0; wl < 4; wl = wl + 1) dport[wi][wl] = 1'b0;
        core_wait = 1'b0;
        for (wi = 4; wi < 8; wi = wi + 1) begin
            w_r0 = req_row[RW*wi +: RW];
            for (wl = 0; wl < 4; wl = wl + 1) begin
                w_k = 2'(wl) - w_r0[1:0];
                w_row = w_r0 + RW'(w_k);
                w_bk = BW'(w_row >> RB);
                wm = 4 * $unsigned(w_bk) + wl;
                if (dma_v[wi - 4] && ({1'b0, w_k} < req_nrows[3*wi +: 3])) begin
                    if (!dma_b[wm]) begin dma_b[wm] = 1'b1; dport[wi][wl] = 1'b1; end
                    else dma_a[wm] = 1'b1;
                end
            end
        end
        for (wi = 0; wi < 3; wi = wi + 1) begin
            w_r0 = req_row[RW*wi +: RW];
            w_sb = BW'(w_r0 >> RB);
            for (wl = 0; wl < 4; wl = wl + 1) begin
                w_k = 2'(wl) - w_r0[1:0];
                w_row = w_r0 + RW'(w_k);
                w_bk = BW'(w_row >> RB);
                wm = 4 * $unsigned(w_bk) + wl;
                if (core_cand[wi] && ({1'b0, w_k} < req_nrows[3*wi +: 3])
                    && ((w_bk == w_sb) ? dma_a[wm] : dma_b[wm]))
                    core_wait = 1'b1;
            end
        end
    end

    always @(posedge clk)
        for (pi = 0; pi < NREQ; pi = pi + 1)
            for (pl = 0; pl < 4; pl = pl + 1) begin
                src_bank_q[pi][pl] <= src_bank[pi][pl];
                src_b_q[pi][pl] <= src_b[pi][pl];
            end

    // Read data: window slot k of requester pi is lane (r0 + k) mod 4 of its row's macro;
    // the lane of slot k was noted as src_*[pi][lane].
    reg [1:0] r0lo_q [0:NREQ-1];
    reg [1:0] lane;
    // (qi, not pi: a loop index assigned in two clocked blocks has two drivers in synthesis)
    always @(posedge clk)
        for (qi = 0; qi < NREQ; qi = qi + 1) r0lo_q[qi] <= req_row[RW*qi +: 2];

    always @* begin
        for (ri = 0; ri < NREQ; ri = ri + 1)
            for (rk = 0; rk < 4; rk = rk + 1) begin
                lane = 2'(rk) + r0lo_q[ri];
                rl = {30'd0, lane};
                rm = 4 * {{(32 - BW){1'b0}}, src_bank_q[ri][lane]} + rl;
                rsp_rdata[1024*ri + 256*rk +: 256] = src_b_q[ri][rl] ? b_rd[rm] : a_rd[rm];
            end
    end

    genvar g;
    generate
        for (g = 0; g < NM; g = g + 1) begin : g_macro
            aie_sram #(.DEPTH(MD), .AW(MAW)) u_sram (
                .clk(clk),
                .a_en(a_en[g]), .a_we(a_we[g]), .a_be(a_be[g]), .a_addr(a_ad[g]),
                .a_wdata(a_wd[g]), .a_rdata(a_rd[g]),
                .b_en(b_en[g]), .b_we(b_we[g]), .b_be(b_be[g]), .b_addr(b_ad[g]),
                .b_wdata(b_wd[g]), .b_rdata(b_rd[g])
            );
        end
    endgenerate
endmodule
