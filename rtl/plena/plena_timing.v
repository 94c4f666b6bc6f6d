// The HBM channel and the readiness of on-chip storage (isa/plena/README.md, "Timing
// model", rules 1-3): a reservation table holding, per Vector SRAM row and per Matrix
// SRAM tile, the first cycle it may be used, and the channel's next free cycle.
//
// A transfer issued at cycle `cyc` starts at max(cyc, channel free, ready of its SRAM
// side) and occupies the channel for its rows * ceil(VLEN / HBM_BW) cycles; a prefetch's
// destination is ready HBM_LATENCY cycles after its last beat, a store's source rows as
// soon as the channel has read them; every transfer completes HBM_LATENCY after its
// last beat. `wait_until` is the latest ready cycle over the footprint of the
// instruction at issue; ready cycles only grow, so once `cyc` passes the latest one
// (`horizon`) nothing can stall and the table is not searched.
module plena_timing #(
    /* verilator lint_off UNUSEDPARAM */
    // Waiver: the whole configuration, as every plena module (see plena_check).
    `include "plena_params.vh"
    /* verilator lint_on UNUSEDPARAM */
) (
    input  wire           clk,
    input  wire           rst,
    input  wire [63:0]    cyc,
    input  wire           query,       // a non-DMA instruction is at issue
    input  wire [VRW-1:0] fv_row0, fv_row1, fv_row2,
    input  wire [31:0]    fv_n0, fv_n1, fv_n2,
    input  wire           ft_en,
    input  wire [MTW-1:0] ft_tile,
    output reg  [63:0]    wait_until,
    input  wire           xfer,        // a transfer is issued this cycle ...
    input  wire           x_tile,      // ... into a tile (H_PREFETCH_M), else rows fv_row0..
    input  wire           x_store,     // ... from rows (H_STORE_V)
    input  wire [31:0]    x_rows,
    output reg  [63:0]    done_t,      // completion of the last transfer
    output wire [63:0]    done_next,   // the same after this cycle's transfer
    output reg  [63:0]    chan_busy    // cycles the channel moved data
);
    localparam integer VRW = (VSRAM_ROWS > 1) ? $clog2(VSRAM_ROWS) : 1;
    localparam integer MTW = (MSRAM_TILES > 1) ? $clog2(MSRAM_TILES) : 1;
    localparam integer HEADS = MLEN / HLEN;
    localparam integer BEATS = (VLEN + HBM_BW - 1) / HBM_BW;    // per row
    // Longest row range a footprint names: M_BMM_WO's rows, a DMA's rows, V_TOPK's logits.
    localparam integer TOPK_ROWS = (128 + VLEN - 1) / VLEN;
    localparam integer M1 = (HEADS * MLEN > HBM_V_PREFETCH_AMOUNT) ? HEADS * MLEN : HBM_V_PREFETCH_AMOUNT;
    localparam integer M2 = (M1 > HBM_V_WRITEBACK_AMOUNT) ? M1 : HBM_V_WRITEBACK_AMOUNT;
    localparam integer MAX_ROWS = (M2 > TOPK_ROWS) ? M2 : TOPK_ROWS;

    reg [63:0] vs_ready [0:VSRAM_ROWS-1];
    reg [63:0] ms_ready [0:MSRAM_TILES-1];
    reg [63:0] chan_free, horizon;

    function automatic [VRW-1:0] row_plus(input [VRW-1:0] row, input [VRW-1:0] k);
        row_plus = row + k;
    endfunction

    integer k;
    always @* begin
        wait_until = 64'd0;
        if (query && cyc < horizon) begin
            for (k = 0; k < MAX_ROWS; k = k + 1) begin
                if (k < fv_n0 && vs_ready[row_plus(fv_row0, VRW'(k))] > wait_until) wait_until = vs_ready[row_plus(fv_row0, VRW'(k))];
                if (k < fv_n1 && vs_ready[row_plus(fv_row1, VRW'(k))] > wait_until) wait_until = vs_ready[row_plus(fv_row1, VRW'(k))];
                if (k < fv_n2 && vs_ready[row_plus(fv_row2, VRW'(k))] > wait_until) wait_until = vs_ready[row_plus(fv_row2, VRW'(k))];
            end
            if (ft_en && ms_ready[ft_tile] > wait_until) wait_until = ms_ready[ft_tile];
        end
    end

    // The transfer issued this cycle.
    reg [63:0] x_start, x_end, x_usable, x_occ;
    integer j;
    always @* begin
        x_start = (cyc > chan_free) ? cyc : chan_free;
        x_occ = 64'(x_rows) * 64'(BEATS);
        if (xfer) begin
            if (x_tile) begin
                if (ms_ready[ft_tile] > x_start) x_start = ms_ready[ft_tile];
            end else
                for (j = 0; j < MAX_ROWS; j = j + 1)
                    if (j < x_rows && vs_ready[row_plus(fv_row0, VRW'(j))] > x_start)
                        x_start = vs_ready[row_plus(fv_row0, VRW'(j))];
        end
        x_end = x_start + x_occ;
        x_usable = x_store ? x_end : x_end + 64'(HBM_LATENCY);
    end

    wire [63:0] x_done = x_end + 64'(HBM_LATENCY);
    assign done_next = (xfer && x_done > done_t) ? x_done : done_t;

    integer r;
    always @(posedge clk) begin
        if (rst) begin
            chan_free <= 64'd0;
            horizon <= 64'd0;
            done_t <= 64'd0;
            chan_busy <= 64'd0;
            for (r = 0; r < VSRAM_ROWS; r = r + 1) vs_ready[r] <= 64'd0;
            for (r = 0; r < MSRAM_TILES; r = r + 1) ms_ready[r] <= 64'd0;
        end else if (xfer) begin
            chan_free <= x_end;
            chan_busy <= chan_busy + x_occ;
            if (x_usable > horizon) horizon <= x_usable;
            done_t <= done_next;
            if (x_tile) ms_ready[ft_tile] <= x_usable;
            else
                for (r = 0; r < MAX_ROWS; r = r + 1)
                    if (r < x_rows) vs_ready[row_plus(fv_row0, VRW'(r))] <= x_usable;
        end
    end
endmodule
