// plena's DMA engine: H_PREFETCH_V, H_PREFETCH_M and H_STORE_V move their rows between
// HBM, behind the core's memory port, and Vector SRAM or a Matrix SRAM tile.
//
//   issue -> descriptor queue (DMA_QUEUE) -> engine -> HBM port: one beat per cycle
//                                                  <- responses, HBM_LATENCY later
//
// An H_ instruction pushes a descriptor at the end of its issue cycle; while the queue
// is full it waits at issue (`full`). The engine takes the oldest descriptor once the
// channel is free (the previous transfer has requested its last beat) and no earlier
// prefetch still owes data to its SRAM side, and requests its rows in order, each row
// as ceil(VLEN / HBM_BW) beats of up to HBM_BW elements (address, length, and for a
// store the data of its row, read from Vector SRAM's DMA read port a cycle ahead). Read data returns in request order;
// each beat is written into its row as it arrives. A store's write is acknowledged,
// also in order; the run ends when nothing is queued or outstanding (`idle_next`).
//
// The stall rule of the core: an instruction whose rows or tile overlap a queued
// transfer, the active one, or a prefetch whose data is still arriving waits (`busy`).
// A store's rows are free once the engine has read them, a prefetch's rows once its
// last beat has been written. isa/plena/README.md's timing model counts exactly this.
//
// Trace ports (simulation only reads them): the retirement index of a store whose last
// beat was just written to HBM (ds_*), and of a prefetch whose last beat just landed
// (dp_*), for the harness to record what the transfer wrote.
module plena_dma #(
    /* verilator lint_off UNUSEDPARAM */
    // Waiver: the whole configuration, as every plena module (see plena_check).
    `include "plena_params.vh"
    /* verilator lint_on UNUSEDPARAM */
) (
    input  wire                clk,
    input  wire                rst,
    // queue side
    input  wire                push,          // an H_ instruction issues this cycle
    input  wire [1:0]          p_kind,        // K_PV, K_PM or K_ST
    input  wire [VRW-1:0]      p_row0,        // its Vector SRAM rows (K_PV, K_ST) ...
    input  wire [MTW-1:0]      p_tile,        // ... or its tile (K_PM)
    input  wire [63:0]         p_base,        // HBM address of its first row
    input  wire [63:0]         p_stride,      // HBM distance between its rows
    input  wire [63:0]         p_index,       // its retirement index (trace)
    output wire                full,
    // footprint of the instruction at issue (plena_check)
    input  wire [VRW-1:0]      fv_row0, fv_row1, fv_row2,
    input  wire [31:0]         fv_n0, fv_n1, fv_n2,
    input  wire                ft_en,
    input  wire [MTW-1:0]      ft_tile,
    output wire                busy,
    output wire                idle_next,     // nothing queued or outstanding after this edge
    output reg  [63:0]         chan_busy,     // beats requested
    // HBM port
    output wire                m_valid,
    input  wire                m_ready,
    output wire                m_write,
    output wire [63:0]         m_addr,
    output wire [31:0]         m_len,         // elements in this beat
    output wire [PW*16-1:0]    m_wdata,
    input  wire                r_valid,
    input  wire                r_write,       // a write acknowledgement, else read data
    input  wire [PW*16-1:0]    r_data,
    // Vector SRAM: the row a store's beat will need next cycle (the read port's address)
    // and whether a store's beat can come next cycle (its enable), the data read for
    // this cycle's beat (the port's registered output), and a prefetch's beat to write
    output wire                sr_re,
    output wire [VRW-1:0]      sr_row,
    input  wire [VLEN*16-1:0]  sr_data,
    output wire                vw_en,
    output wire [VRW-1:0]      vw_row,
    output wire [VLEN*16-1:0]  vw_data,
    output wire [VLEN-1:0]     vw_mask,
    // Matrix SRAM: a tile prefetch's beat to write (row tile*MLEN + r)
    output wire                mw_en,
    output wire [TRW-1:0]      mw_row,
    // trace
    output reg                 ds_valid,
    output reg  [63:0]         ds_index,
    output reg  [63:0]         ds_base,
    output reg  [63:0]         ds_stride,
    output reg                 dp_valid,
    output reg  [63:0]         dp_index,
    output reg                 dp_tile,
    output reg  [VRW-1:0]      dp_row0,
    output reg  [MTW-1:0]      dp_tnum
);
    `include "plena_units.vh"
    localparam integer VRW = (VSRAM_ROWS > 1) ? $clog2(VSRAM_ROWS) : 1;
    localparam integer MTW = (MSRAM_TILES > 1) ? $clog2(MSRAM_TILES) : 1;
    localparam integer MLW = $clog2(MLEN);
    localparam integer TRW = $clog2(MSRAM_TILES * MLEN);
    localparam integer PW = (HBM_BW < VLEN) ? HBM_BW : VLEN;      // elements per beat
    localparam integer BEATS = (VLEN + PW - 1) / PW;              // beats per row
    localparam integer QW = (DMA_QUEUE > 1) ? $clog2(DMA_QUEUE) : 1;
    // Prefetches whose data can be in flight at once: a transfer requests for at least
    // MIN_OCC cycles and its data arrives within HBM_LATENCY cycles of its last request.
    localparam integer PV_ROWS = HBM_V_PREFETCH_AMOUNT;
    localparam integer MIN_OCC = BEATS * ((PV_ROWS < MLEN) ? PV_ROWS : MLEN);
    localparam integer TAILS = HBM_LATENCY / MIN_OCC + 2;
    localparam integer TW = $clog2(TAILS + 1);

    // --- descriptor queue ---------------------------------------------------------------
    reg [1:0]     q_kind   [0:DMA_QUEUE-1];
    reg [VRW-1:0] q_row0   [0:DMA_QUEUE-1];
    reg [MTW-1:0] q_tile   [0:DMA_QUEUE-1];
    reg [63:0]    q_base   [0:DMA_QUEUE-1];
    reg [63:0]    q_stride [0:DMA_QUEUE-1];
    reg [63:0]    q_index  [0:DMA_QUEUE-1];
    reg [QW-1:0]  q_head, q_tail;
    reg [QW:0]    q_count;
    assign full = q_count == (QW+1)'(DMA_QUEUE);

    function automatic [31:0] rows_of(input [1:0] kind);
        rows_of = (kind == K_PM) ? 32'(MLEN) : (kind == K_PV) ? 32'(HBM_V_PREFETCH_AMOUNT)
                                             : 32'(HBM_V_WRITEBACK_AMOUNT);
    endfunction
    // Does a transfer's SRAM side overlap rows [r, r+n) or tile t (when te)?
    function automatic logic touches(input [1:0] kind, input [VRW-1:0] row0,
                                     input [MTW-1:0] tile, input [VRW-1:0] r,
                                     input [31:0] n, input logic te, input [MTW-1:0] t);
        if (kind == K_PM)
            touches = te && tile == t;
        else
            touches = n != 32'd0 && 32'(r) < 32'(row0) + rows_of(kind)
                      && 32'(row0) < 32'(r) + n;
    endfunction
    // Does a transfer's SRAM side overlap the footprint of the instruction at issue?
    // (Every input is an argument: the per-entry logic below is continuous assignments,
    // which both simulators re-evaluate exactly when an argument changes.)
    function automatic logic hits(input [1:0] kind, input [VRW-1:0] row0,
                                  input [MTW-1:0] tile, input [VRW-1:0] r0, input [31:0] n0,
                                  input [VRW-1:0] r1, input [31:0] n1, input [VRW-1:0] r2,
                                  input [31:0] n2, input logic te, input [MTW-1:0] t);
        hits = touches(kind, row0, tile, r0, n0, te, t)
            || touches(kind, row0, tile, r1, n1, 1'b0, t)
            || touches(kind, row0, tile, r2, n2, 1'b0, t);
    endfunction

    // --- prefetches whose data is still arriving (oldest first) ---------------------------
    reg [TAILS-1:0] t_valid;
    reg             t_tile  [0:TAILS-1];
    reg [VRW-1:0]   t_row0  [0:TAILS-1];
    reg [MTW-1:0]   t_tnum  [0:TAILS-1];
    reg [63:0]      t_index [0:TAILS-1];
    reg [TW-1:0]    t_count;
    reg [31:0]      outstanding;       // beats requested and not yet answered

    // --- the active transfer ----------------------------------------------------------------
    reg           a_valid;
    reg [1:0]     a_kind;
    reg [VRW-1:0] a_row0;
    reg [MTW-1:0] a_tile;
    reg [63:0]    a_base, a_row_addr, a_stride, a_index;
    reg [31:0]    a_k, a_b;            // row and beat being requested

    // The head may start when the channel is free and no prefetch in flight owes data to
    // its SRAM side (a store or prefetch of the same rows waits for it to land).
    wire [1:0]     h_kind = q_kind[q_head];
    wire [VRW-1:0] h_row0 = q_row0[q_head];
    wire [MTW-1:0] h_tile = q_tile[q_head];
    wire [TAILS-1:0] t_blocks, t_hit;
    genvar gt;
    generate
        for (gt = 0; gt < TAILS; gt = gt + 1) begin : g_tail
            assign t_blocks[gt] = t_valid[gt] && (t_tile[gt]
                ? (h_kind == K_PM && t_tnum[gt] == h_tile)
                : (h_kind != K_PM && touches(K_PV, t_row0[gt], t_tnum[gt], h_row0,
                                             rows_of(h_kind), 1'b0, h_tile)));
            // Compared only while the entry is valid: in a procedural `if`, so Verilator
            // skips the comparisons (evaluated every cycle) while nothing is in flight.
            reg hit;
            always @* begin
                hit = 1'b0;
                if (t_valid[gt])
                    hit = hits(t_tile[gt] ? K_PM : K_PV, t_row0[gt], t_tnum[gt], fv_row0,
                               fv_n0, fv_row1, fv_n1, fv_row2, fv_n2, ft_en, ft_tile);
            end
            assign t_hit[gt] = hit;
        end
    endgenerate
    wire h_blocked = |t_blocks;
    wire h_ok = !a_valid && q_count != 0 && !h_blocked;
    wire          c_valid = a_valid || h_ok;
    wire [1:0]    c_kind = a_valid ? a_kind : h_kind;
    wire [VRW-1:0] c_row0 = a_valid ? a_row0 : h_row0;
    wire [MTW-1:0] c_tile = a_valid ? a_tile : h_tile;
    wire [63:0]   c_row_addr = a_valid ? a_row_addr : q_base[q_head];
    wire [63:0]   c_stride = a_valid ? a_stride : q_stride[q_head];
    wire [63:0]   c_index = a_valid ? a_index : q_index[q_head];
    wire [31:0]   c_k = a_valid ? a_k : 32'd0;
    wire [31:0]   c_b = a_valid ? a_b : 32'd0;
    wire [31:0]   c_off = c_b * 32'(PW);
    wire [31:0]   c_len = (32'(VLEN) - c_off < 32'(PW)) ? 32'(VLEN) - c_off : 32'(PW);
    wire          c_row_end = c_b == 32'(BEATS - 1);
    wire          c_last = c_row_end && c_k == rows_of(c_kind) - 32'd1;
    wire          fire = c_valid && m_ready;
    wire          starting = h_ok && m_ready;
    wire [63:0]   c_base = a_valid ? a_base : q_base[q_head];

    assign m_valid = c_valid;
    assign m_write = c_kind == K_ST;
    assign m_addr = c_row_addr + 64'(c_off);
    assign m_len = c_len;
    // Vector SRAM's read port registers its data, so a store's row is read in the cycle
    // before its beat: the row the engine will be at next cycle, from this cycle's
    // next-state values (the active transfer's next beat, or the queue's next head,
    // which may be the descriptor pushed now). The port reads only when that transfer is
    // a store (its head may still wait: a read that no beat uses is harmless), so it and
    // what its register feeds stay still through prefetches and instructions.
    wire           a_valid_n = fire ? !c_last : a_valid;
    wire [VRW-1:0] a_row_n = fire ? c_row0 + VRW'(c_row_end ? c_k + 32'd1 : c_k)
                                  : a_row0 + VRW'(a_k);
    wire [QW-1:0]  head_n = starting ? q_head + QW'(1) : q_head;
    wire [QW:0]    left_n = q_count - (QW+1)'(starting ? 1 : 0);
    wire [1:0]     kind_n = a_valid_n ? (fire ? c_kind : a_kind)
                          : (left_n == 0) ? p_kind : q_kind[head_n];
    assign sr_re = (a_valid_n || left_n != 0 || push) && kind_n == K_ST;
    assign sr_row = a_valid_n ? a_row_n : (left_n == 0) ? p_row0 : q_row0[head_n];
    assign m_wdata = (PW*16)'(sr_data >> (16 * c_off));

    // --- responses: read data into its row ---------------------------------------------------
    reg [31:0] r_k, r_b;               // row and beat of the oldest prefetch's next datum
    wire       r_data_in = r_valid && !r_write;
    wire       r_tile = t_tile[0];
    wire [31:0] r_off = r_b * 32'(PW);
    wire [31:0] r_len = (32'(VLEN) - r_off < 32'(PW)) ? 32'(VLEN) - r_off : 32'(PW);
    wire       r_last = r_b == 32'(BEATS - 1) && r_k == (r_tile ? 32'(MLEN) : 32'(PV_ROWS)) - 32'd1;
    assign vw_en = r_data_in && !r_tile;
    assign mw_en = r_data_in && r_tile;
    assign vw_row = t_row0[0] + VRW'(r_k);
    assign mw_row = TRW'({t_tnum[0], r_k[MLW-1:0]});
    assign vw_data = (VLEN*16)'(r_data) << (16 * r_off);
    genvar ge;
    generate
        for (ge = 0; ge < VLEN; ge = ge + 1) begin : g_mask
            assign vw_mask[ge] = 32'(ge) >= r_off && 32'(ge) < r_off + r_len;
        end
    endgenerate

    // The response counters on a clock of their own, open with a datum (and in reset):
    // the row shift and element mask above, and the Matrix SRAM fill's data after them
    // (plena_core), are then evaluated only when a beat lands, not at every edge (in
    // the simulator's model; the harness presents r_data behind a gate too).
    wire rclk;
    icg u_rgate (.clk(clk), .en(rst || r_data_in), .gclk(rclk));
    always @(posedge rclk)
        if (rst) begin
            r_k <= 32'd0;
            r_b <= 32'd0;
        end else begin      // r_data_in
            r_b <= (r_b == 32'(BEATS - 1)) ? 32'd0 : r_b + 32'd1;
            if (r_last) r_k <= 32'd0;
            else if (r_b == 32'(BEATS - 1)) r_k <= r_k + 32'd1;
        end

    // --- the stall rule, and the end of the run -------------------------------------------
    wire [DMA_QUEUE-1:0] q_hit;
    genvar gq;
    generate
        for (gq = 0; gq < DMA_QUEUE; gq = gq + 1) begin : g_queue
            // entry gq holds a descriptor: it lies within q_count entries of the head
            wire live = full || (QW'(gq) - q_head) < QW'(q_count);
            reg hit;                   // only while live (as t_hit)
            always @* begin
                hit = 1'b0;
                if (live)
                    hit = hits(q_kind[gq], q_row0[gq], q_tile[gq], fv_row0, fv_n0,
                               fv_row1, fv_n1, fv_row2, fv_n2, ft_en, ft_tile);
            end
            assign q_hit[gq] = hit;
        end
    endgenerate
    reg a_hit;                         // only while a transfer is active (as t_hit)
    always @* begin
        a_hit = 1'b0;
        if (a_valid)
            a_hit = hits(a_kind, a_row0, a_tile, fv_row0, fv_n0, fv_row1, fv_n1,
                         fv_row2, fv_n2, ft_en, ft_tile);
    end
    assign busy = a_hit || |q_hit || |t_hit;
    wire [31:0] out_next = outstanding + (fire ? 32'd1 : 32'd0) - (r_valid ? 32'd1 : 32'd0);
    wire [QW:0] count_next = q_count + (push ? 1 : 0) - (starting ? 1 : 0);
    assign idle_next = count_next == 0 && !(fire ? !c_last : a_valid) && out_next == 32'd0;

    wire t_pop = r_data_in && r_last;
    wire t_push = starting && h_kind != K_ST;
    wire [TW-1:0] t_at = t_count - TW'(t_pop ? 1 : 0);    // where a new tail goes
    integer k;
    always @(posedge clk) begin
        ds_valid <= 1'b0;
        dp_valid <= 1'b0;
        if (rst) begin
            q_head <= '0;
            q_tail <= '0;
            q_count <= '0;
            t_valid <= '0;
            t_count <= '0;
            outstanding <= 32'd0;
            a_valid <= 1'b0;
            chan_busy <= 64'd0;
        end else begin
            if (push) begin
                q_kind[q_tail] <= p_kind;
                q_row0[q_tail] <= p_row0;
                q_tile[q_tail] <= p_tile;
                q_base[q_tail] <= p_base;
                q_stride[q_tail] <= p_stride;
                q_index[q_tail] <= p_index;
                q_tail <= q_tail + QW'(1);
            end
            if (starting) q_head <= q_head + QW'(1);
            q_count <= count_next;
            outstanding <= out_next;
            // A prefetch joins the tails when it starts; it leaves with its last datum.
            if (t_pop) begin
                for (k = 0; k < TAILS - 1; k = k + 1) begin
                    t_valid[k] <= t_valid[k + 1];
                    t_tile[k] <= t_tile[k + 1];
                    t_row0[k] <= t_row0[k + 1];
                    t_tnum[k] <= t_tnum[k + 1];
                    t_index[k] <= t_index[k + 1];
                end
                t_valid[TAILS - 1] <= 1'b0;
            end
            if (t_push) begin
                t_valid[t_at] <= 1'b1;
                t_tile[t_at] <= h_kind == K_PM;
                t_row0[t_at] <= h_row0;
                t_tnum[t_at] <= h_tile;
                t_index[t_at] <= q_index[q_head];
            end
            t_count <= t_at + TW'(t_push ? 1 : 0);
            if (t_pop) begin
                dp_valid <= 1'b1;
                dp_index <= t_index[0];
                dp_tile <= t_tile[0];
                dp_row0 <= t_row0[0];
                dp_tnum <= t_tnum[0];
            end
            if (fire) begin
                chan_busy <= chan_busy + 64'd1;
                a_valid <= !c_last;
                a_kind <= c_kind;
                a_row0 <= c_row0;
                a_tile <= c_tile;
                a_stride <= c_stride;
                a_base <= c_base;
                a_index <= c_index;
                a_row_addr <= c_row_end ? c_row_addr + c_stride : c_row_addr;
                a_b <= c_row_end ? 32'd0 : c_b + 32'd1;
                a_k <= c_row_end ? c_k + 32'd1 : c_k;
                if (c_last && c_kind == K_ST) begin
                    ds_valid <= 1'b1;
                    ds_index <= c_index;
                    ds_base <= c_base;
                    ds_stride <= c_stride;
                end
            end
        end
    end
endmodule
