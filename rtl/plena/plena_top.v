// plena_top: the plena accelerator as the simulators see it. Its parameters are the
// hardware configuration of isa/plena/hardware.toml (defaults generated into
// plena_params.vh; simulators/plena_rtl overrides them per configuration and a test
// reads them back with pyverilog). plena_core is the accelerator; plena_sim is the
// simulation harness: it runs the clock, loads a job's program and memories through the
// core's host port, starts the core, and reads the memories, registers and counters
// back through the same port when it is done. The two meet only at ports.
module plena_top #(
`include "plena_params.vh"
) (
    input  wire [31:0] job      /*verilator public_flat_rw*/,   // job number to run next
    input  wire        go       /*verilator public_flat_rw*/,   // pulse: run job `job`
    input  wire        halt     /*verilator public_flat_rw*/,   // stop before the next instruction
    output wire        finished /*verilator public_flat_rw*/,   // the job's results are written
    input  wire        clk_in       // the clock, from bulk mode's driver (+bulk_clk_in; plena_sim)
);
    wire        clk, rst, start, done, halt_q;
    wire [31:0] prog_len;
    wire [63:0] max_retire, max_cycles;
    wire [1:0]  stop;
    wire [3:0]  err_code;
    wire [2:0]  err_mem;
    wire [67:0] err_addr;
    wire [31:0] err_pc, rt_pc, rt_word;
    wire [63:0] cycles, retired, rt_index, rt_cycle, rt_a0, rt_a1;
    wire        rt_valid;
    localparam integer PW = (HBM_BW < VLEN) ? HBM_BW : VLEN;
    wire        m_valid, m_ready, m_write, r_valid, r_write, ds_valid, dp_valid, dp_tile;
    wire [63:0] m_addr, ds_index, ds_base, ds_stride, dp_index, dp_addr;
    wire        dm_valid;
    wire [$clog2(MSRAM_TILES * MLEN)-1:0] dm_row;
    wire [VLEN*16-1:0] dm_data;
    wire [VLEN-1:0] dm_mask;
    wire        dv_w_en;
    wire [$clog2(VSRAM_ROWS)-1:0] dv_w_row, dv_p_row;
    wire [VLEN*16-1:0] dv_w_data;
    wire [VLEN-1:0] dv_w_mask;
    wire        dv_p_en;
    wire [7:0]  df_en, di_en;
    wire [31:0] df_addr, di_addr;
    wire [8*32-1:0] df_data, di_data;
    wire        db_en;
    wire [1:0]  db_acc;
    wire [1:0]  db_clr;
    wire [$clog2(MLEN)-1:0] db_row, db_j0;
    wire [BLEN*(MLEN/HLEN)*32-1:0] db_data;
    wire [31:0] m_len;
    wire [PW*16-1:0] m_wdata, r_data;
    wire        host_we;
    wire [3:0]  host_sel;
    wire [31:0] host_addr;
    wire [VLEN*16-1:0] host_wdata, host_rdata;
    /* verilator lint_off UNUSEDSIGNAL */
    wire        running;   // Waiver: the harness waits for `done` instead
    /* verilator lint_on UNUSEDSIGNAL */

    plena_core #(
        .MLEN(MLEN), .BLEN(BLEN), .HLEN(HLEN), .VLEN(VLEN), .VSRAM_ROWS(VSRAM_ROWS),
        .MSRAM_TILES(MSRAM_TILES), .FP_MEM_SIZE(FP_MEM_SIZE), .INT_MEM_SIZE(INT_MEM_SIZE),
        .HBM_SIZE(HBM_SIZE), .HBM_V_PREFETCH_AMOUNT(HBM_V_PREFETCH_AMOUNT),
        .HBM_V_WRITEBACK_AMOUNT(HBM_V_WRITEBACK_AMOUNT), .HBM_BW(HBM_BW),
        .HBM_LATENCY(HBM_LATENCY), .LOOP_DEPTH(LOOP_DEPTH), .IMEM_SIZE(IMEM_SIZE),
        .DMA_QUEUE(DMA_QUEUE)
    ) u_core (
        .clk(clk), .rst(rst), .start(start), .prog_len(prog_len), .max_retire(max_retire),
        .max_cycles(max_cycles), .halt(halt_q), .host_we(host_we), .host_sel(host_sel),
        .host_addr(host_addr), .host_wdata(host_wdata), .host_rdata(host_rdata),
        .running(running), .done(done), .stop(stop), .err_code(err_code),
        .err_mem(err_mem), .err_addr(err_addr), .err_pc(err_pc), .cycles(cycles),
        .retired(retired), .rt_valid(rt_valid), .rt_index(rt_index), .rt_pc(rt_pc),
        .rt_cycle(rt_cycle), .rt_word(rt_word), .rt_a0(rt_a0), .rt_a1(rt_a1),
        .m_valid(m_valid), .m_ready(m_ready), .m_write(m_write), .m_addr(m_addr), .m_len(m_len),
        .m_wdata(m_wdata), .r_valid(r_valid), .r_write(r_write), .r_data(r_data),
        .ds_valid(ds_valid), .ds_index(ds_index), .ds_base(ds_base), .ds_stride(ds_stride),
        .dp_valid(dp_valid), .dp_index(dp_index), .dp_tile(dp_tile),
        .dp_addr(dp_addr), .dm_valid(dm_valid), .dm_row(dm_row), .dm_data(dm_data),
        .dm_mask(dm_mask), .dv_w_en(dv_w_en), .dv_w_row(dv_w_row), .dv_w_data(dv_w_data),
        .dv_w_mask(dv_w_mask), .dv_p_en(dv_p_en), .dv_p_row(dv_p_row),
        .df_en(df_en), .df_addr(df_addr), .df_data(df_data), .di_en(di_en),
        .di_addr(di_addr), .di_data(di_data),
        .db_en(db_en), .db_acc(db_acc), .db_row(db_row), .db_j0(db_j0), .db_data(db_data), .db_clr(db_clr)
    );

    plena_sim #(
        .MLEN(MLEN), .BLEN(BLEN), .HLEN(HLEN), .VLEN(VLEN), .VSRAM_ROWS(VSRAM_ROWS),
        .MSRAM_TILES(MSRAM_TILES), .FP_MEM_SIZE(FP_MEM_SIZE), .INT_MEM_SIZE(INT_MEM_SIZE),
        .HBM_SIZE(HBM_SIZE), .HBM_V_PREFETCH_AMOUNT(HBM_V_PREFETCH_AMOUNT),
        .HBM_V_WRITEBACK_AMOUNT(HBM_V_WRITEBACK_AMOUNT), .HBM_BW(HBM_BW),
        .HBM_LATENCY(HBM_LATENCY), .LOOP_DEPTH(LOOP_DEPTH), .IMEM_SIZE(IMEM_SIZE),
        .DMA_QUEUE(DMA_QUEUE)
    ) u_sim (
        .cclk(clk), .clk_in(clk_in), .job(job), .go(go), .halt(halt), .halt_q(halt_q), .finished(finished), .rst(rst), .start(start),
        .prog_len(prog_len), .host_we(host_we), .host_sel(host_sel), .host_addr(host_addr),
        .host_wdata(host_wdata), .host_rdata(host_rdata), .max_retire(max_retire), .max_cycles(max_cycles), .done(done),
        .stop(stop), .err_code(err_code), .err_mem(err_mem), .err_addr(err_addr),
        .err_pc(err_pc), .cycles(cycles), .retired(retired), .rt_valid(rt_valid),
        .rt_index(rt_index), .rt_pc(rt_pc), .rt_cycle(rt_cycle), .rt_word(rt_word),
        .rt_a0(rt_a0), .rt_a1(rt_a1),
        .m_valid(m_valid), .m_ready(m_ready), .m_write(m_write), .m_addr(m_addr), .m_len(m_len),
        .m_wdata(m_wdata), .r_valid(r_valid), .r_write(r_write), .r_data(r_data),
        .ds_valid(ds_valid), .ds_index(ds_index), .ds_base(ds_base), .ds_stride(ds_stride),
        .dp_valid(dp_valid), .dp_index(dp_index), .dp_tile(dp_tile),
        .dp_addr(dp_addr), .dm_valid(dm_valid), .dm_row(dm_row), .dm_data(dm_data),
        .dm_mask(dm_mask), .dv_w_en(dv_w_en), .dv_w_row(dv_w_row), .dv_w_data(dv_w_data),
        .dv_w_mask(dv_w_mask), .dv_p_en(dv_p_en), .dv_p_row(dv_p_row),
        .df_en(df_en), .df_addr(df_addr), .df_data(df_data), .di_en(di_en),
        .di_addr(di_addr), .di_data(di_data),
        .db_en(db_en), .db_acc(db_acc), .db_row(db_row), .db_j0(db_j0), .db_data(db_data), .db_clr(db_clr)
    );
endmodule
