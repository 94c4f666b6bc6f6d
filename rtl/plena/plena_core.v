// plena: an in-order, single-issue core with its scalar, vector and matrix units,
// Vector SRAM (plena_vsram's banks), FP_MEM and INT_MEM (plena_smem's banks), the
// instruction memory (a plena_sram macro), hardware loops, and the DMA engine on the HBM
// port.
//
// Every cycle the core looks at the instruction at `pc`. When none is in flight
// (`inflight` low) that instruction is at issue: it is checked (plena_check: every run-time
// error, in the model's order), waits while a Vector SRAM row or Matrix SRAM tile it
// touches belongs to an unfinished transfer (a DMA stall, plena_dma), then starts and
// occupies its unit until the unit signals its last cycle (`u_done`: a single-cycle path
// in the issue cycle, or the unit's pipeline or step count; the core has no table of
// durations); its results are committed at the end of that cycle and the next
// instruction issues in the cycle after.
//
// The cycle count is the clock: `cyc` advances on every edge from the one that samples
// `start` (exclusive) to the one that raises `done` (inclusive), and `cycles` is its
// value then. The run ends at the edge that commits its last instruction (C_BREAK, or
// the last one in program order), or after the cycle in which an error is found at
// issue; queued transfers then drain for as many more edges as they need.
//
// H_ instructions issue in one cycle and queue their transfer in the DMA engine
// (plena_dma), which moves the rows over the HBM port; an instruction that touches rows
// or a tile of an unfinished transfer waits at issue (a DMA stall), so every
// instruction sees the data the ISA's in-order semantics give it.
//
// The host port is how a system (or the testbench) loads the program and the on-chip
// memories and reads every memory, register, accumulator and counter back: the spaces
// HS_* of plena_units.vh, one entry (a word, a register or a row) per cycle. Writes
// take effect at the clock edge and only while the core is not running (idle or
// done). Registers, accumulators and counters are read combinationally at any time; the
// memories (program words, Matrix and Vector SRAM rows, FP_MEM and INT_MEM words) come
// from their SRAM banks' read ports (the fetch port, the array's, Vector SRAM's port A,
// FP_MEM's and INT_MEM's), which the core uses while it runs, so they are read only while
// it is idle or done, at the edge that ends the address's cycle, and presented the cycle
// after (an SRAM macro's registered read).
module plena_core #(
    `include "plena_params.vh"
) (
    input  wire        clk,
    input  wire        rst,          // synchronous: clears registers, counters, accumulators
    input  wire        start,        // run from pc 0 (after the memories are loaded)
    input  wire [31:0] prog_len,
    input  wire [63:0] max_retire,   // instruction budget
    input  wire [63:0] max_cycles,   // cycle budget
    input  wire        halt,         // stop before the next instruction (wall-clock limit)
    // Host port: space, entry index, write data (a row; words in the low bits)
    input  wire        host_we,
    input  wire [3:0]  host_sel,
    input  wire [31:0] host_addr,
    input  wire [VLEN*16-1:0] host_wdata,
    output reg  [VLEN*16-1:0] host_rdata,
    output wire        running,      // between `start` and `done`: host writes are ignored
    output reg         done,
    output reg  [1:0]  stop,
    output reg  [3:0]  err_code,
    output reg  [2:0]  err_mem,
    output reg  [67:0] err_addr,
    output reg  [31:0] err_pc,
    output reg  [63:0] cycles,       // the run's cycle count, valid with `done`
    output reg  [63:0] retired,
    // Retirement trace port: one pulse per committed instruction.
    output reg         rt_valid,
    output reg  [63:0] rt_index,
    output reg  [31:0] rt_pc,
    output reg  [63:0] rt_cycle,     // its issue cycle (before any stall)
    output reg  [31:0] rt_word,
    output reg  [63:0] rt_a0,        // where it wrote: see the trace notes below
    output reg  [63:0] rt_a1,
    // HBM port (plena_dma): beat requests, and responses in request order
    output wire        m_valid,
    input  wire        m_ready,
    output wire        m_write,
    output wire [63:0] m_addr,
    output wire [31:0] m_len,
    output wire [PW*16-1:0] m_wdata,
    input  wire        r_valid,
    input  wire        r_write,
    input  wire [PW*16-1:0] r_data,
    // DMA trace port: a store's last beat written, a prefetch's last beat landed
    output wire        ds_valid,
    output wire [63:0] ds_index,
    output wire [63:0] ds_base,
    output wire [63:0] ds_stride,
    output wire        dp_valid,
    output wire [63:0] dp_index,
    output wire        dp_tile,      // a Matrix SRAM tile, else Vector SRAM rows
    output wire [63:0] dp_addr,      // element address of the tile or the first row
    // ... and the Matrix SRAM's prefetch beats (the trace's copy of a tile's rows: the
    // banks cannot be read while the trace holds the core's clock)
    output wire        dm_valid,
    output wire [$clog2(MSRAM_TILES * MLEN)-1:0] dm_row,
    output wire [VLEN*16-1:0] dm_data,
    output wire [VLEN-1:0] dm_mask,
    // ... and the Vector SRAM's writes: W (row dv_w_row, masked) and P (a prefetch beat:
    // its data and mask are dm_data and dm_mask)
    output wire          dv_w_en,
    output wire [$clog2(VSRAM_ROWS)-1:0] dv_w_row,
    output wire [VLEN*16-1:0] dv_w_data,
    output wire [VLEN-1:0] dv_w_mask,
    output wire        dv_p_en,
    output wire [$clog2(VSRAM_ROWS)-1:0] dv_p_row,
    // ... and FP_MEM's and INT_MEM's writes: word addr + i where en's bit i is set
    output wire [7:0]    df_en,
    output wire [31:0]   df_addr,
    output wire [8*32-1:0] df_data,
    output wire [7:0]    di_en,
    output wire [31:0]   di_addr,
    output wire [8*32-1:0] di_data,
    // ... and MM_ACC's and BMM_ACC's writes and clears (plena_matrix's db_* port)
    output wire          db_en,
    output wire [1:0]    db_acc,
    output wire [$clog2(MLEN)-1:0] db_row,
    output wire [$clog2(MLEN)-1:0] db_j0,
    output wire [BLEN*(MLEN/HLEN)*32-1:0] db_data,
    output wire [1:0]    db_clr
);
    `include "plena_isa.vh"
    `include "plena_units.vh"
    localparam integer PW = (HBM_BW < VLEN) ? HBM_BW : VLEN;     // elements per HBM beat

    localparam integer RW = VLEN * 16;                       // bits in a Vector SRAM row
    localparam integer VRW = (VSRAM_ROWS > 1) ? $clog2(VSRAM_ROWS) : 1;
    localparam integer MTW = (MSRAM_TILES > 1) ? $clog2(MSRAM_TILES) : 1;
    localparam integer IMW = (IMEM_SIZE > 1) ? $clog2(IMEM_SIZE) : 1;
    localparam integer VLW = $clog2(VLEN);
    localparam integer TLW = $clog2(MLEN * MLEN);
    localparam integer TRW = $clog2(MSRAM_TILES * MLEN);
    localparam integer LDW = (LOOP_DEPTH > 1) ? $clog2(LOOP_DEPTH) : 1;
    localparam integer ACCW = $clog2((MLEN / HLEN) * MLEN * MLEN);   // BMM_ACC index
    localparam [1:0] S_IDLE = 2'd0, S_RUN = 2'd1, S_DRAIN = 2'd2, S_DONE = 2'd3;

    // --- architectural state ----------------------------------------------------------
    reg [31:0]   gp [0:NUM_GP_REGS-1];
    reg [31:0]   f [0:NUM_F_REGS-1];
    reg [63:0]   a [0:NUM_A_REGS-1];
    reg [31:0]   stride_r, scale_r, vmask_r;
    reg [31:0]   loop_pc [0:LOOP_DEPTH-1];
    reg [31:0]   loop_sp;

    // The Vector SRAM (plena_vsram, instantiated below): its ports' registered read data.
    localparam integer NA = (128 + VLEN - 1) / VLEN;   // rows port A reads (V_TOPK's)
    wire [NA*RW-1:0] va_q;
    wire [RW-1:0]    vb_q, vd_q;
    // FP_MEM and INT_MEM (plena_smem, below): their read ports' registered data, FP_MEM's
    // a chunk of S_MAP_V_FP's lanes (a load's and the host's word is the first).
    localparam integer MAP_LANES = VLEN / VCHUNKS_1;
    wire [MAP_LANES*32-1:0] fm_q;
    wire [31:0]             im_q;
    // A load's register write lands one edge after the load commits, from the memory's
    // read register (read at the commit edge, as a macro does); in the cycle between, the
    // register's readers take that word instead (the bypass below), so the load still
    // takes one cycle.
    reg        ld_gp, ld_f;      // gp[ld_r] / f[ld_r] is written at the next edge
    reg [3:0]  ld_r;

    // --- control ------------------------------------------------------------------------
    reg [1:0]  state;
    reg [31:0] pc;
    reg        inflight;       // the instruction at pc started and has not finished
    reg [31:0] step;           // its cycle, from 0 (0 while at issue)
    reg [63:0] cyc;            // current cycle
    reg [63:0] issue_cyc;      // issue cycle of the instruction waiting at issue
    reg        stalled;        // it stalled last cycle
    reg [63:0] end_t;          // issue cycle of the instruction that failed
    reg [63:0] unit_busy [0:NUM_UNITS-1];
    reg [63:0] dma_wait;

    // --- host port ------------------------------------------------------------------------
    wire host_owns = state == S_IDLE || state == S_DONE;   // the host may write
    wire host_wr = host_we && !rst && host_owns;
    wire host_mrd = !host_we && host_sel == HS_MSRAM && (state == S_IDLE || state == S_DONE);
    wire host_vrd = !host_we && host_sel == HS_VSRAM && (state == S_IDLE || state == S_DONE);
    // (The host reads the program through the fetch port, which at the edge that samples
    // `start` reads the word at pc 0 instead.)
    wire host_prd = !host_we && host_sel == HS_IMEM && (state == S_IDLE || state == S_DONE)
                    && !start;
    wire host_frd = !host_we && host_sel == HS_FPMEM && (state == S_IDLE || state == S_DONE);
    wire host_ird = !host_we && host_sel == HS_INTMEM && (state == S_IDLE || state == S_DONE);
    wire host_accrd = !host_we && (host_sel == HS_MM || host_sel == HS_BMM)
                      && (state == S_IDLE || state == S_DONE);
    assign running = (state == S_RUN || state == S_DRAIN);
    wire [MLEN*16-1:0] h_mrow;
    wire [31:0]        h_acc;
    always @* begin
        host_rdata = {RW{1'b0}};
        case (host_sel)
            HS_IMEM:   host_rdata = RW'(word);
            HS_VSRAM:  host_rdata = va_q[RW-1:0];
            HS_MSRAM:  host_rdata = h_mrow;
            HS_FPMEM:  host_rdata = RW'(fm_q[31:0]);
            HS_INTMEM: host_rdata = RW'(im_q);
            HS_GP:     host_rdata = RW'((ld_gp && ld_r == host_addr[3:0]) ? im_q : gp[host_addr[3:0]]);
            HS_F:      host_rdata = RW'((ld_f && ld_r[2:0] == host_addr[2:0]) ? fm_q[31:0]
                                                                           : f[host_addr[2:0]]);
            HS_A:      host_rdata = RW'(a[host_addr[2:0]]);
            HS_CSR:    host_rdata = host_addr == 32'd0 ? RW'(stride_r) : host_addr == 32'd1 ? RW'(scale_r)
                                  : host_addr == 32'd2 ? RW'(vmask_r) : RW'(loop_sp);
            HS_LOOP:   host_rdata = RW'(loop_pc[LDW'(host_addr)]);
            HS_MM, HS_MV, HS_BMM, HS_BMV: host_rdata = RW'(h_acc);
            HS_STAT:   host_rdata = host_addr == 32'd0 ? RW'(end_t) : host_addr == 32'd1 ? RW'(dma_wait)
                                  : host_addr == 32'd2 ? RW'(chan_busy)
                                  : RW'(unit_busy[UNIT_W'(host_addr - 32'd3)]);
            default: ;
        endcase
    end

    // --- decode -------------------------------------------------------------------------
    wire [31:0] word;          // the instruction at pc: the fetch register (below)
    wire [5:0]  op = word[OPCODE_LSB +: OPCODE_W];
    wire [3:0]  rd = word[F_RD_LSB +: F_RD_W];
    wire [3:0]  rs1 = word[F_RS1_LSB +: F_RS1_W];
    wire [3:0]  rs2 = word[F_RS2_LSB +: F_RS2_W];
    wire        rmask = word[F_RMASK_LSB];
    wire        rorder = word[F_RORDER_LSB];
    wire        rstride = word[F_RSTRIDE_LSB];
    wire [31:0] imm = isa_imm_is_u(op) ? 32'(word[IMM_U_LSB +: IMM_U_W])
                                       : 32'($signed(word[IMM_I_LSB +: IMM_I_W]));
    wire        legal = isa_legal(op) && ((word & isa_zero_mask(op)) == 32'd0);
    wire        is_dma = (op == OP_H_PREFETCH_V || op == OP_H_PREFETCH_M || op == OP_H_STORE_V);
    wire [2:0]  frd = rd[2:0], frs1 = rs1[2:0], frs2 = rs2[2:0];   // f / a register fields

    // Register reads, with the bypass of a load's pending write.
    wire [31:0] g_rd = (ld_gp && ld_r == rd) ? im_q : gp[rd];
    wire [31:0] g_rs1 = (ld_gp && ld_r == rs1) ? im_q : gp[rs1];
    wire [31:0] g_rs2 = (ld_gp && ld_r == rs2) ? im_q : gp[rs2];
    wire [31:0] f_rd = (ld_f && ld_r[2:0] == frd) ? fm_q[31:0] : f[frd];
    wire [31:0] f_rs1 = (ld_f && ld_r[2:0] == frs1) ? fm_q[31:0] : f[frs1];
    wire [31:0] f_rs2 = (ld_f && ld_r[2:0] == frs2) ? fm_q[31:0] : f[frs2];
    wire [31:0] rs1_imm = g_rs1 + imm;       // in range whenever the checks pass
    wire [VLW+VRW-1:0] wo_addr = (VLW+VRW)'(g_rd + imm);   // M_*_WO destination

    // The instruction at pc is at issue or in flight. Unit clock gates open on this and
    // the opcode alone (a unit may capture operands while its instruction stalls or
    // fails; only commits use `go`), which keeps the logic that computes clock enables
    // small: the simulator evaluates it on both clock edges.
    wire live = (state == S_RUN) && (inflight || pc < prog_len);

    // V_TOPK's logits: the rows from gp[rs1], read through the Vector SRAM's port A in
    // the issue cycle (its NA banks' read registers hold them for the instruction: the
    // port reads nothing else while V_TOPK runs) for plena_topk. Their first NaN among
    // the n scanned is found from those registers, in V_TOPK's step 1: the run stops
    // there (late_err below), before the engine's results are committed.
    // (Qualified by a bit registered with port A's read: "Vector SRAM ports" below.)
    wire [128*16-1:0] logits;
    reg  [31:0]       nan_first;     // offset of the first NaN among the 128 logits
    reg               nan_any;
    // (Its own loop variable: two combinational blocks writing one would wake each other
    // without end under an event-driven simulator.)
    integer nq;
    always @* begin
        nan_any = 1'b0;
        nan_first = 32'd0;
        for (nq = 0; nq < 128; nq = nq + 1)
            if (!nan_any && logits[16*nq + 7 +: 8] == 8'hFF && logits[16*nq +: 7] != 7'd0) begin
                nan_any = 1'b1;
                nan_first = 32'(nq);
            end
    end
    wire nan_seen = nan_any && (rmask || nan_first < 32'd32);   // 128 or 32 logits scanned

    // --- checks, footprint, HBM addresses ------------------------------------------------
    wire [3:0]  c_code;
    wire [2:0]  c_mem;
    wire signed [67:0] c_addr;
    wire [63:0] h_base, h_stride;
    wire [VRW-1:0] fv_row0, fv_row1, fv_row2;
    wire [31:0] fv_n0, fv_n1, fv_n2;
    wire        ft_en;
    wire [MTW-1:0] ft_tile;
    plena_check #(
        .MLEN(MLEN), .BLEN(BLEN), .HLEN(HLEN), .VLEN(VLEN), .VSRAM_ROWS(VSRAM_ROWS),
        .MSRAM_TILES(MSRAM_TILES), .FP_MEM_SIZE(FP_MEM_SIZE), .INT_MEM_SIZE(INT_MEM_SIZE),
        .HBM_SIZE(HBM_SIZE), .HBM_V_PREFETCH_AMOUNT(HBM_V_PREFETCH_AMOUNT),
        .HBM_V_WRITEBACK_AMOUNT(HBM_V_WRITEBACK_AMOUNT), .HBM_BW(HBM_BW),
        .HBM_LATENCY(HBM_LATENCY), .LOOP_DEPTH(LOOP_DEPTH), .IMEM_SIZE(IMEM_SIZE),
        .DMA_QUEUE(DMA_QUEUE)
    ) u_check (
        .op(op), .legal(legal), .rmask(rmask), .rstride(rstride), .imm(imm), .g_rd(g_rd),
        .g_rs1(g_rs1), .g_rs2(g_rs2), .a_rs2(a[frs2]), .stride(stride_r), .loop_sp(loop_sp),
        .code(c_code), .mem(c_mem), .addr(c_addr),
        .fv_row0(fv_row0), .fv_row1(fv_row1), .fv_row2(fv_row2), .fv_n0(fv_n0), .fv_n1(fv_n1),
        .fv_n2(fv_n2), .ft_en(ft_en), .ft_tile(ft_tile), .h_base(h_base), .h_stride(h_stride));

    // --- issue ----------------------------------------------------------------------------
    wire at_issue = live && !inflight;
    wire busy_now = (state == S_RUN) && inflight;
    wire ctl_ok = retired < max_retire && cyc < max_cycles && !halt;
    wire        dma_full, dma_busy, dma_idle_next;
    wire [63:0] chan_busy;
    wire stall_now = at_issue && (is_dma ? dma_full : dma_busy);
    wire go = at_issue && ctl_ok && c_code == ERR_NONE && !stall_now;   // it starts now
    wire occupied = go || busy_now;          // the instruction at pc runs this cycle
    // Results are committed at the end of an instruction's last cycle, which its unit
    // signals (u_done, below).
    wire u_done;
    // A check of an instruction in flight: V_TOPK's NaN among its logits, found in its
    // step 1 from the logits read at issue. The run stops in that cycle, as for a check
    // that fails at issue; the engine's results are never committed.
    wire late_err = busy_now && op == OP_V_TOPK && step == 32'd1 && nan_seen;
    wire issue_err = at_issue && (!ctl_ok || c_code != ERR_NONE);
    wire commit = occupied && u_done && !late_err;

    wire [VRW-1:0]  dma_sr_row, dma_vw_row, dp_row0;
    wire [RW-1:0]   dma_vw_data;
    wire [VLEN-1:0] dma_vw_mask;
    wire            dma_vw_en, dma_mw_en, dp_tile_w;
    wire [TRW-1:0]  dma_mw_row;
    wire [MTW-1:0]  dp_tnum;
    // Vector SRAM's DMA read port (D): the row for next cycle's store beat, read now and
    // registered (an SRAM macro's read timing). A prefetch beat landing in that row at
    // this edge is forwarded (the macro returns the old data while the same row is
    // written); no other write can reach a store's rows while the store is queued or
    // active (the stall rule; the host writes only while the core is idle).
    // Port D reads it in the cycles before a store's beats (dma_sr_re); the beat
    // forwarded is registered beside it, on the port's read clock (plena_vsram's gate
    // for port D, whose enable is dma_sr_re: d_clk).
    wire           dma_sr_re;
    wire           srclk;
    reg [VLEN-1:0] sr_fw;
    reg [RW-1:0]   sr_fw_data;
    reg [RW-1:0]   dma_sr_q;
    integer sq;
    always @(posedge srclk) begin
        for (sq = 0; sq < VLEN; sq = sq + 1)
            sr_fw[sq] <= dma_vw_en && dma_vw_row == dma_sr_row && dma_vw_mask[sq];
        sr_fw_data <= dma_vw_data;
    end
    always @*
        for (sq = 0; sq < VLEN; sq = sq + 1)
            dma_sr_q[16*sq +: 16] = sr_fw[sq] ? sr_fw_data[16*sq +: 16] : vd_q[16*sq +: 16];
    plena_dma #(
        .MLEN(MLEN), .BLEN(BLEN), .HLEN(HLEN), .VLEN(VLEN), .VSRAM_ROWS(VSRAM_ROWS),
        .MSRAM_TILES(MSRAM_TILES), .FP_MEM_SIZE(FP_MEM_SIZE), .INT_MEM_SIZE(INT_MEM_SIZE),
        .HBM_SIZE(HBM_SIZE), .HBM_V_PREFETCH_AMOUNT(HBM_V_PREFETCH_AMOUNT),
        .HBM_V_WRITEBACK_AMOUNT(HBM_V_WRITEBACK_AMOUNT), .HBM_BW(HBM_BW),
        .HBM_LATENCY(HBM_LATENCY), .LOOP_DEPTH(LOOP_DEPTH), .IMEM_SIZE(IMEM_SIZE),
        .DMA_QUEUE(DMA_QUEUE)
    ) u_dma (
        .clk(clk), .rst(rst), .push(go && is_dma),
        .p_kind(op == OP_H_PREFETCH_M ? K_PM : op == OP_H_STORE_V ? K_ST : K_PV),
        .p_row0(v_row_d), .p_tile(g_rd[TLW +: MTW]), .p_base(h_base), .p_stride(h_stride),
        .p_index(retired), .full(dma_full),
        .fv_row0(fv_row0), .fv_row1(fv_row1), .fv_row2(fv_row2), .fv_n0(fv_n0), .fv_n1(fv_n1),
        .fv_n2(fv_n2), .ft_en(ft_en), .ft_tile(ft_tile), .busy(dma_busy),
        .idle_next(dma_idle_next), .chan_busy(chan_busy),
        .m_valid(m_valid), .m_ready(m_ready), .m_write(m_write), .m_addr(m_addr),
        .m_len(m_len), .m_wdata(m_wdata), .r_valid(r_valid), .r_write(r_write), .r_data(r_data),
        .sr_re(dma_sr_re), .sr_row(dma_sr_row), .sr_data(dma_sr_q), .vw_en(dma_vw_en),
        .vw_row(dma_vw_row), .vw_data(dma_vw_data), .vw_mask(dma_vw_mask),
        .mw_en(dma_mw_en), .mw_row(dma_mw_row),
        .ds_valid(ds_valid), .ds_index(ds_index), .ds_base(ds_base),
        .ds_stride(ds_stride), .dp_valid(dp_valid), .dp_index(dp_index), .dp_tile(dp_tile_w),
        .dp_row0(dp_row0), .dp_tnum(dp_tnum));
    assign dp_tile = dp_tile_w;
    assign dm_valid = dma_mw_en;
    assign dm_row = dma_mw_row;
    assign dm_data = dma_vw_data;
    // The Matrix SRAM fill's data: the DMA engine's row with any read datum (a Matrix SRAM
    // beat is one; a Vector SRAM beat never meets a host write: the host writes only while
    // the core is idle, when nothing is outstanding), else the host's row. Chosen by the
    // harness's response registers rather than dma_mw_en (which reads the engine's tails,
    // on the core clock): under Verilator the 1,024-bit choice is then evaluated only
    // around beats and host writes, not at every edge (rtl/plena/README.md).
    wire fill_dma = r_valid && !r_write;
    assign dm_mask = dma_vw_mask;
    assign dp_addr = dp_tile_w ? 64'(dp_tnum) * 64'(MLEN * MLEN) : 64'(dp_row0) * 64'(VLEN);

    // --- units ----------------------------------------------------------------------------
    reg [2:0] sfn;
    reg       sfpu_op;
    always @* begin
        sfpu_op = 1'b1;
        case (op)
            OP_S_ADD_FP:  sfn = SFN_ADD;
            OP_S_SUB_FP:  sfn = SFN_SUB;
            OP_S_MUL_FP:  sfn = SFN_MUL;
            OP_S_MAX_FP:  sfn = SFN_MAX;
            OP_S_EXP_FP:  sfn = SFN_EXP;
            OP_S_RECI_FP: sfn = SFN_RECI;
            OP_S_SQRT_FP: sfn = SFN_SQRT;
            default: begin sfn = SFN_ADD; sfpu_op = 1'b0; end
        endcase
    end
    wire [31:0] sfpu_y;
    wire        sfpu_done, sfpu_busy;
    plena_sfpu u_sfpu (.clk(clk), .rst(rst), .go(at_issue && sfpu_op), .start(go && sfpu_op),
                       .fn(sfn), .a(f_rs1), .b(f_rs2), .y(sfpu_y), .done(sfpu_done),
                       .busy(sfpu_busy));

    reg [3:0] vop;
    reg       v_use_f, v_op, v_red;
    always @* begin
        v_use_f = 1'b1;
        v_op = 1'b1;
        v_red = 1'b0;
        case (op)
            OP_V_ADD_VV:   begin vop = VOP_ADD; v_use_f = 1'b0; end
            OP_V_SUB_VV:   begin vop = VOP_SUB; v_use_f = 1'b0; end
            OP_V_MUL_VV:   begin vop = VOP_MUL; v_use_f = 1'b0; end
            OP_V_ADD_VF:   vop = VOP_ADD;
            OP_V_SUB_VF:   vop = rorder ? VOP_RSUB : VOP_SUB;
            OP_V_MUL_VF:   vop = VOP_MUL;
            OP_V_MAX_VF:   vop = VOP_MAX;
            OP_V_MIN_VF:   vop = VOP_MIN;
            OP_V_EXP_V:    vop = VOP_EXP;
            OP_V_RECI_V:   vop = VOP_RECI;
            OP_S_MAP_V_FP: vop = VOP_MAP;
            OP_V_RED_SUM:  begin vop = VOP_RSUM; v_red = 1'b1; end
            OP_V_RED_MAX:  begin vop = VOP_RMAX; v_red = 1'b1; end
            default:       begin vop = VOP_ADD; v_op = 1'b0; end
        endcase
    end
    wire [VRW-1:0] v_row_a = g_rs1[VLW +: VRW];
    wire [VRW-1:0] v_row_b = g_rs2[VLW +: VRW];
    wire [VRW-1:0] v_row_d = g_rd[VLW +: VRW];
    // S_MAP_V_FP: this cycle's chunk of FP_MEM values, read through FP_MEM's port at the
    // end of the cycle; its read register is the map lanes' operand register
    // (plena_vgroup's R stage).
    wire [MAP_LANES*32-1:0] map_vals = fm_q;
    wire            v_run = occupied && v_op;     // the vector unit runs its instruction
    wire [RW-1:0]   v_wr_data;
    wire [VLEN-1:0] v_wr_elems;
    wire [31:0]     v_res_f;
    wire            v_done;
    plena_vector #(
        .MLEN(MLEN), .BLEN(BLEN), .HLEN(HLEN), .VLEN(VLEN), .VSRAM_ROWS(VSRAM_ROWS),
        .MSRAM_TILES(MSRAM_TILES), .FP_MEM_SIZE(FP_MEM_SIZE), .INT_MEM_SIZE(INT_MEM_SIZE),
        .HBM_SIZE(HBM_SIZE), .HBM_V_PREFETCH_AMOUNT(HBM_V_PREFETCH_AMOUNT),
        .HBM_V_WRITEBACK_AMOUNT(HBM_V_WRITEBACK_AMOUNT), .HBM_BW(HBM_BW),
        .HBM_LATENCY(HBM_LATENCY), .LOOP_DEPTH(LOOP_DEPTH), .IMEM_SIZE(IMEM_SIZE),
        .DMA_QUEUE(DMA_QUEUE),
        .MAP_LANES(MAP_LANES)
    ) u_vector (
        .clk(clk), .rst(rst), .active(live && v_op), .run(v_run), .step(step),
        .op(vop), .row_a(va_q[RW-1:0]),
        .row_b(vb_q), .use_f(v_use_f), .f(v_red ? f_rd : f_rs2),
        .map_vals(map_vals), .wr_data(v_wr_data), .wr_elems(v_wr_elems), .res_f(v_res_f),
        .done(v_done));
    // Vector SRAM writes are element-masked, as an SRAM macro's write mask is: the
    // elements not written keep their value without being read (no read-modify-write
    // port). A vector write: the chunk's elements, and with rmask only in head segments
    // whose V_MASK bit is set (port W's mask, computed below only in a vector write's
    // cycle: as a block of its own the simulator evaluated it at every edge).
    integer vq;

    reg [3:0] mop;
    reg       m_op;
    always @* begin
        m_op = 1'b1;
        case (op)
            OP_M_MM:     mop = MOP_MM;
            OP_M_TMM:    mop = MOP_TMM;
            OP_M_BMM:    mop = MOP_BMM;
            OP_M_BTMM:   mop = MOP_BTMM;
            OP_M_MV:     mop = MOP_MV;
            OP_M_TMV:    mop = MOP_TMV;
            OP_M_BMV:    mop = MOP_BMV;
            OP_M_BTMV:   mop = MOP_BTMV;
            OP_M_MM_WO:  mop = MOP_MM_WO;
            OP_M_MV_WO:  mop = MOP_MV_WO;
            OP_M_BMM_WO: mop = MOP_BMM_WO;
            OP_M_BMV_WO: mop = MOP_BMV_WO;
            default:     begin mop = MOP_MM; m_op = 1'b0; end
        endcase
    end
    wire [VRW-1:0] m_vrow_idx;
    wire           m_vrow_re;
    wire [RW-1:0]  m_wo_row;
    wire           m_wo_valid;
    wire [VRW-1:0] m_wo_step;
    wire [BLEN*16-1:0] m_wo_block;
    wire           m_done;
    wire           m_run = occupied && m_op;      // the matrix unit runs its instruction
    wire [VRW-1:0] wo_row0 = wo_addr[VLW +: VRW];
    wire [VLW-1:0] wo_col = wo_addr[VLW-1:0];
    plena_matrix #(
        .MLEN(MLEN), .BLEN(BLEN), .HLEN(HLEN), .VLEN(VLEN), .VSRAM_ROWS(VSRAM_ROWS),
        .MSRAM_TILES(MSRAM_TILES), .FP_MEM_SIZE(FP_MEM_SIZE), .INT_MEM_SIZE(INT_MEM_SIZE),
        .HBM_SIZE(HBM_SIZE), .HBM_V_PREFETCH_AMOUNT(HBM_V_PREFETCH_AMOUNT),
        .HBM_V_WRITEBACK_AMOUNT(HBM_V_WRITEBACK_AMOUNT), .HBM_BW(HBM_BW),
        .HBM_LATENCY(HBM_LATENCY), .LOOP_DEPTH(LOOP_DEPTH), .IMEM_SIZE(IMEM_SIZE),
        .DMA_QUEUE(DMA_QUEUE)
    ) u_matrix (
        .clk(clk), .rst(rst), .active(m_run), .gate(live && m_op), .step(step), .op(mop),
        .tile(g_rs1[TLW +: MTW]), .col(g_rs1[VLW-1:0]), .vrow0(g_rs2[VLW +: VRW]),
        .vrow_idx(m_vrow_idx), .vrow_re(m_vrow_re), .vrow(va_q[RW-1:0]), .wo_row(m_wo_row),
        .wo_valid(m_wo_valid), .wo_step(m_wo_step), .wo_block(m_wo_block), .done(m_done),
        // Matrix SRAM's write port: the DMA engine's beats, or the host's rows when idle
        .fill(dma_mw_en || (host_wr && host_sel == HS_MSRAM)), .fill_open(host_owns),
        .fill_row(dma_mw_en ? dma_mw_row : TRW'(host_addr)),
        .fill_data(fill_dma ? dma_vw_data : host_wdata),
        .fill_mask(dma_mw_en ? dma_vw_mask : {VLEN{1'b1}}),
        .h_re(host_mrd), .h_row(TRW'(host_addr)), .h_mrow(h_mrow), .h_acc_sel(host_sel),
        .h_acc_addr(ACCW'(host_addr)), .h_acc_re(host_accrd), .h_acc(h_acc),
        .db_en(db_en), .db_acc(db_acc), .db_row(db_row), .db_j0(db_j0), .db_data(db_data), .db_clr(db_clr));

    // V_SHFT_V: the source row is read through port A in the issue cycle (the shifter's
    // operand is that port's read register); the next cycle shifts it and writes the
    // destination row, and ends the instruction (1 + VSHIFT_DEPTH cycles).
    wire [RW-1:0] sh_row = va_q[RW-1:0];
    wire sh_done = step == 32'(VSHIFT_DEPTH);

    wire [8*32-1:0] tk_w, tk_i;
    wire            tk_done;
    wire            tk_run = occupied && op == OP_V_TOPK;
    plena_topk #(
        .MLEN(MLEN), .BLEN(BLEN), .HLEN(HLEN), .VLEN(VLEN), .VSRAM_ROWS(VSRAM_ROWS),
        .MSRAM_TILES(MSRAM_TILES), .FP_MEM_SIZE(FP_MEM_SIZE), .INT_MEM_SIZE(INT_MEM_SIZE),
        .HBM_SIZE(HBM_SIZE), .HBM_V_PREFETCH_AMOUNT(HBM_V_PREFETCH_AMOUNT),
        .HBM_V_WRITEBACK_AMOUNT(HBM_V_WRITEBACK_AMOUNT), .HBM_BW(HBM_BW),
        .HBM_LATENCY(HBM_LATENCY), .LOOP_DEPTH(LOOP_DEPTH), .IMEM_SIZE(IMEM_SIZE),
        .DMA_QUEUE(DMA_QUEUE)
    ) u_topk (
        .clk(clk), .active(live && op == OP_V_TOPK), .step(step), .big(rmask),
        .logits(logits), .weights(tk_w), .indices(tk_i), .done(tk_done));

    // Which unit ends the instruction: the multi-cycle units signal their last cycle;
    // the rest (integer, loads and stores, control, the H_ pushes) are one
    // cycle, committed at the end of the issue cycle.
    assign u_done = sfpu_op ? sfpu_done : v_op ? v_done : m_op ? m_done
                  : op == OP_V_TOPK ? tk_done : op == OP_V_SHFT_V ? sh_done : 1'b1;

    // Busy counters, one per unit of the ISA (the UNIT_* slots the model reports), each
    // counting the cycles in which that unit's datapath runs an instruction: the units'
    // own run signals (the fp unit's pipeline valid bits, the vector, V_TOPK and matrix
    // units' run enables, the shifter's cycles), and for the single-cycle paths inside the
    // core (integer ALU and INT_MEM port, FP_MEM port, control) their cycle. The H_
    // pushes run no datapath (the channel's own counter counts transfers).
    wire x_int = op == OP_S_ADD_INT || op == OP_S_ADDI_INT || op == OP_S_SUB_INT
              || op == OP_S_MUL_INT || op == OP_S_LUI_INT || op == OP_S_LD_INT
              || op == OP_S_ST_INT;
    wire x_fpmem = op == OP_S_LD_FP || op == OP_S_ST_FP;
    wire x_ctl = op == OP_C_SET_ADDR_REG || op == OP_C_SET_SCALE_REG
              || op == OP_C_SET_STRIDE_REG || op == OP_C_SET_V_MASK_REG
              || op == OP_C_LOOP_START || op == OP_C_LOOP_END || op == OP_C_BREAK;
    reg [NUM_UNITS-1:0] u_busy;
    always @* begin
        u_busy = {NUM_UNITS{1'b0}};
        u_busy[UNIT_SCALAR_INT] = go && x_int;
        u_busy[UNIT_SCALAR_FP] = sfpu_busy || (go && x_fpmem);
        u_busy[UNIT_VECTOR] = v_run || tk_run || (occupied && op == OP_V_SHFT_V);
        u_busy[UNIT_MATRIX] = m_run;
        u_busy[UNIT_CONTROL] = go && x_ctl;
    end

    // Trace port addresses, from the values the instruction used: a0 is the element
    // address of a store, a vector write or a write-out (the first of a V_TOPK's
    // weights; an H_ transfer's SRAM side), a1 V_TOPK's first index entry or an
    // H_STORE_V's HBM base; an H_STORE_V's row stride is the HBM stride of a0's rows.
    reg [63:0] trace_a0, trace_a1;
    always @* begin
        trace_a0 = 64'(g_rd);
        trace_a1 = 64'd0;
        case (op)
            OP_S_ST_INT, OP_S_ST_FP: trace_a0 = 64'(rs1_imm);
            OP_M_MM_WO, OP_M_MV_WO, OP_M_BMM_WO, OP_M_BMV_WO: trace_a0 = 64'(wo_addr);
            OP_V_TOPK: trace_a1 = 64'(g_rs2);
            OP_H_STORE_V: begin trace_a0 = h_base; trace_a1 = h_stride; end
            default: ;
        endcase
    end

    // C_LOOP_END: the decremented counter decides (gp0 reads 0, so its loop ends).
    wire [31:0] loop_cnt = g_rd - 32'd1;
    wire        loop_back = (rd != 4'd0) && $signed(loop_cnt) > 0;
    wire [LDW-1:0] sp = loop_sp[LDW-1:0];

    // The instruction committing now is the program's last: done at this edge unless
    // transfers are still queued (done_next: their completion, this edge's included).
    wire last = commit && (op == OP_C_BREAK || pc + 32'd1 >= prog_len)
                && !(op == OP_C_LOOP_END && loop_back);
    wire drained = dma_idle_next;

    // --- Vector SRAM ports -------------------------------------------------------------
    // Port A reads the instruction's first operand (the vector groups' chunks, a
    // reduction's row, the shifter's source, V_TOPK's rows at issue) or the MAC array's A
    // row, and while the core is idle the host's row; port B the VV forms' second
    // operand. Each unit uses the read register the cycle after (its R stage). V_TOPK
    // reads only at issue, so its rows stay in the registers while its engine runs.
    wire v_vv = op == OP_V_ADD_VV || op == OP_V_SUB_VV || op == OP_V_MUL_VV;
    wire [31:0] v_chunks = (op == OP_V_EXP_V || op == OP_V_RECI_V) ? 32'(VCHUNKS_4)
                                                                   : 32'(VCHUNKS_1);
    wire v_feed = v_op && !v_red && op != OP_S_MAP_V_FP && step < v_chunks;
    wire a_at_issue = !inflight && (v_red || op == OP_V_SHFT_V || op == OP_V_TOPK);
    wire va_re = host_vrd || (live && (v_feed || a_at_issue || m_vrow_re));
    // V_TOPK's logits are port A's registers behind operand isolation (plena_opiso's HOLD
    // form): port A's read register in the cycle after V_TOPK's read, its step 1, then a
    // register that took them at the end of that cycle, so the NaN scan and the engine's
    // argmax hold still until the next V_TOPK, whatever port A reads for other
    // instructions (the engine reads the logits in every cycle of the instruction).
    wire tk_en = va_re && !host_vrd && op == OP_V_TOPK;
    wire tk_clk;
    icg u_tkgate (.clk(clk), .en(tk_en), .gclk(tk_clk));
    plena_opiso #(.W(128*16), .HOLD(1)) u_tkiso (.clk(clk), .en(tk_en), .gclk(tk_clk),
                                               .d(va_q[128*16-1:0]), .q(logits));
    wire [VRW-1:0] va_row = host_vrd ? VRW'(host_addr) : m_op ? m_vrow_idx : v_row_a;
    wire vb_re = live && v_vv && step < 32'(VCHUNKS_1);
    // Port W: the instruction's writes, made at the end of the cycle as its unit presents
    // them (chunks, write-out rows, M_MM_WO's block a row per step, the shifted row), or
    // the host's row while the core is idle; port P: a prefetch's beat (never in rows an
    // instruction uses: the stall rule).
    wire adv = !rst && state == S_RUN && !late_err && !issue_err && !stall_now;
    reg                vw_en;
    reg  [VRW-1:0]     vw_row;
    reg  [RW-1:0]      vw_data;
    reg  [VLEN-1:0]    vw_mask;
    always @* begin
        vw_en = 1'b0;
        vw_row = v_row_d;
        vw_data = {RW{1'b0}};
        vw_mask = {VLEN{1'b1}};
        if (host_wr && host_sel == HS_VSRAM) begin
            vw_en = 1'b1;
            vw_row = VRW'(host_addr);
            vw_data = host_wdata;
        end else if (adv && occupied && m_wo_valid && (op == OP_M_BMM_WO || op == OP_M_BMV_WO)) begin
            vw_en = 1'b1;
            vw_row = wo_row0 + m_wo_step;
            vw_data = m_wo_row;
        end else if (adv && occupied && v_op && !v_red) begin
            vw_en = 1'b1;
            vw_data = v_wr_data;
            for (vq = 0; vq < VLEN; vq = vq + 1)
                vw_mask[vq] = v_wr_elems[vq]
                              && (!(rmask && op != OP_S_MAP_V_FP) || vmask_r[vq / HLEN]);
        end else if (adv && commit && op == OP_V_SHFT_V) begin
            vw_en = 1'b1;
            vw_data = sh_row >> (16 * g_rs2);
        end else if (adv && commit && op == OP_M_MV_WO) begin
            vw_en = 1'b1;
            vw_row = wo_row0;
            vw_data = m_wo_row;
        end else if (adv && occupied && m_wo_valid && op == OP_M_MM_WO) begin
            vw_en = 1'b1;
            vw_row = wo_row0 + m_wo_step;
            vw_data = RW'(m_wo_block) << (16 * wo_col);
            vw_mask = VLEN'({BLEN{1'b1}}) << wo_col;
        end
    end
    plena_vsram #(.VLEN(VLEN), .VSRAM_ROWS(VSRAM_ROWS), .NA(NA)) u_vsram (
        .clk(clk), .a_re(va_re), .a_row(va_row), .a_q(va_q),
        .b_re(vb_re), .b_row(v_row_b), .b_q(vb_q),
        .d_re(dma_sr_re), .d_row(dma_sr_row), .d_q(vd_q), .d_clk(srclk),
        .w_en(vw_en), .w_row(vw_row), .w_data(vw_data), .w_mask(vw_mask), .w_open(host_owns),
        .p_en(!rst && dma_vw_en), .p_row(dma_vw_row), .p_data(dma_vw_data),
        .p_mask(dma_vw_mask));
    // The trace's copy of the writes (the harness keeps the rows: the banks are read
    // through registered ports, which need the clock the trace holds).
    assign dv_w_en = vw_en;
    assign dv_w_row = vw_row;
    assign dv_w_data = vw_data;
    assign dv_w_mask = vw_mask;
    assign dv_p_en = !rst && dma_vw_en;
    assign dv_p_row = dma_vw_row;

    // --- FP_MEM and INT_MEM ----------------------------------------------------------------
    // One read and one write port each (plena_smem). Reads, registered: a load's word at
    // the edge that ends its cycle (it commits there; the word reaches its register one
    // edge later, bypassed in between), S_MAP_V_FP's chunks in its chunk steps (as port A
    // feeds the other vector groups), the host's word while the core is idle. Writes at
    // the end of the cycle that commits a store (one word) or V_TOPK (4 or 8 consecutive
    // words: distinct banks), or the host's word while the core is idle. No instruction
    // reads and writes one memory at one edge.
    wire fm_re = host_frd || (live && (op == OP_S_LD_FP
                                       || (op == OP_S_MAP_V_FP && step < 32'(VCHUNKS_1))));
    wire im_re = host_ird || (live && op == OP_S_LD_INT);
    wire [31:0] fm_ra = host_frd ? host_addr : rs1_imm + step * MAP_LANES;
    wire [31:0] im_ra = host_ird ? host_addr : rs1_imm;
    reg  [7:0]     fm_we, im_we;
    reg  [31:0]    fm_wa, im_wa;
    reg  [8*32-1:0] fm_wd, im_wd;
    always @* begin
        fm_we = 8'd0;
        fm_wa = rs1_imm;
        fm_wd = {8*32{1'b0}};
        if (host_wr && host_sel == HS_FPMEM) begin
            fm_we = 8'd1;
            fm_wa = host_addr;
            fm_wd[31:0] = host_wdata[31:0];
        end else if (adv && commit && op == OP_S_ST_FP) begin
            fm_we = 8'd1;
            fm_wd[31:0] = f_rd;
        end else if (adv && commit && op == OP_V_TOPK) begin
            fm_we = rmask ? 8'hFF : 8'h0F;
            fm_wa = g_rd;
            fm_wd = tk_w;
        end
        im_we = 8'd0;
        im_wa = rs1_imm;
        im_wd = {8*32{1'b0}};
        if (host_wr && host_sel == HS_INTMEM) begin
            im_we = 8'd1;
            im_wa = host_addr;
            im_wd[31:0] = host_wdata[31:0];
        end else if (adv && commit && op == OP_S_ST_INT) begin
            im_we = 8'd1;
            im_wd[31:0] = g_rd;
        end else if (adv && commit && op == OP_V_TOPK) begin
            im_we = rmask ? 8'hFF : 8'h0F;
            im_wa = g_rs2;
            im_wd = tk_i;
        end
    end
    plena_smem #(.DEPTH(FP_MEM_SIZE), .NR(MAP_LANES), .NW(8)) u_fpmem (
        .clk(clk), .r_en(fm_re), .r_addr(fm_ra), .r_q(fm_q),
        .w_en(fm_we), .w_addr(fm_wa), .w_data(fm_wd), .w_open(host_owns));
    plena_smem #(.DEPTH(INT_MEM_SIZE), .NR(1), .NW(8)) u_intmem (
        .clk(clk), .r_en(im_re), .r_addr(im_ra), .r_q(im_q),
        .w_en(im_we), .w_addr(im_wa), .w_data(im_wd), .w_open(host_owns));
    // The trace's copy of the writes (the harness keeps the words: the banks' reads are
    // registered, which needs the clock the trace holds).
    assign df_en = fm_we;
    assign df_addr = fm_wa;
    assign df_data = fm_wd;
    assign di_en = im_we;
    assign di_addr = im_wa;
    assign di_data = im_wd;

    // --- fetch ---------------------------------------------------------------------------
    // The instruction memory is one SRAM macro (a plena_sram of 32-bit words: a read port
    // and the host's write port). pc's next value is its read address, so the word at pc
    // is in the read register from the edge that sets pc: the port reads pc (0) at every
    // edge while the core is idle, the edge that samples `start` included (an enable from
    // the core's state: the testbench's `start` straight into a gate's latch can miss it
    // under Verilator, as `rst` did for the accumulators), and the next pc at every
    // commit; the host's word instead while the core is idle or done. A host write of the
    // word read at the same edge (the program's first word written at the start edge) is
    // forwarded: the macro returns the old word.
    wire [31:0] pc_next = rst ? 32'd0
                        : !(adv && commit) ? pc
                        : (op == OP_C_LOOP_END && loop_back) ? loop_pc[sp - LDW'(1)]
                        : pc + 32'd1;
    wire          if_re = host_prd || state == S_IDLE || (adv && commit);
    wire [IMW-1:0] if_addr = host_prd ? IMW'(host_addr) : IMW'(pc_next);
    wire          im_wr = host_wr && host_sel == HS_IMEM;
    wire [31:0]   if_q;
    wire          if_rclk, if_wclk;
    reg           if_fw;
    reg  [31:0]   if_fw_word;
    icg u_ifgate (.clk(clk), .en(if_re), .gclk(if_rclk));
    icg u_iwgate (.clk(clk), .en(host_owns), .gclk(if_wclk));
    plena_sram #(.DEPTH(IMEM_SIZE), .N(2), .AW(IMW)) u_imem (
        .rclk(if_rclk), .wclk(if_wclk), .re(if_re), .raddr(if_addr), .rdata(if_q),
        .we(im_wr), .wmask(2'b11), .waddr(IMW'(host_addr)), .wdata(host_wdata[31:0]));
    always @(posedge if_rclk) begin
        if_fw <= im_wr && IMW'(host_addr) == if_addr;
        if_fw_word <= host_wdata[31:0];
    end
    assign word = if_fw ? if_fw_word : if_q;

    // --- register-file write ports ---------------------------------------------------------
    // gp and f each have one write port (besides a load's, one edge later, and reset): the
    // committing instruction's result, or the host's word (the host writes only while the
    // core is idle or done, when nothing commits). One write site per file instead of one
    // per instruction: under Verilator each non-blocking write site of an array is a flag
    // set, tested and cleared at every edge.
    reg        gp_we, f_we;
    reg [3:0]  gp_wa;
    reg [2:0]  f_wa;
    reg [31:0] gp_wd, f_wd;
    always @* begin
        gp_we = 1'b0;
        gp_wa = rd;
        gp_wd = imm;
        f_we = 1'b0;
        f_wa = frd;
        f_wd = sfpu_y;
        if (host_wr) begin
            gp_we = host_sel == HS_GP && host_addr[3:0] != 4'd0;
            gp_wa = host_addr[3:0];
            gp_wd = host_wdata[31:0];
            f_we = host_sel == HS_F && host_addr[2:0] != 3'd0;
            f_wa = host_addr[2:0];
            f_wd = host_wdata[31:0];
        end else if (adv && commit) begin
            case (op)
                OP_S_ADD_INT:    begin gp_we = rd != 0; gp_wd = g_rs1 + g_rs2; end
                OP_S_ADDI_INT:   begin gp_we = rd != 0; gp_wd = g_rs1 + imm; end
                OP_S_SUB_INT:    begin gp_we = rd != 0; gp_wd = g_rs1 - g_rs2; end
                OP_S_MUL_INT:    begin gp_we = rd != 0; gp_wd = g_rs1 * g_rs2; end
                OP_S_LUI_INT:    begin gp_we = rd != 0; gp_wd = imm << 12; end
                OP_C_LOOP_START: gp_we = rd != 0;                       // gp_wd = imm
                OP_C_LOOP_END:   begin gp_we = rd != 0; gp_wd = loop_cnt; end
                OP_S_ADD_FP, OP_S_SUB_FP, OP_S_MUL_FP, OP_S_MAX_FP, OP_S_EXP_FP,
                OP_S_RECI_FP, OP_S_SQRT_FP:
                    f_we = frd != 0;                                    // f_wd = sfpu_y
                OP_V_RED_SUM, OP_V_RED_MAX: begin f_we = frd != 0; f_wd = v_res_f; end
                default: ;
            endcase
        end
    end

    // --- the clocked state --------------------------------------------------------------
    integer k;
    always @(posedge clk) begin
        rt_valid <= 1'b0;
        pc <= pc_next;
        // A load's register write, the edge after it committed (before this edge's
        // commit, whose write to the same register wins).
        if (ld_gp) gp[ld_r] <= im_q;
        if (ld_f) f[ld_r[2:0]] <= fm_q[31:0];
        ld_gp <= 1'b0;
        ld_f <= 1'b0;
        if (rst) begin
            state <= S_IDLE;
            done <= 1'b0;
            stop <= STOP_END;
            err_code <= ERR_NONE;
            err_mem <= 3'd0;
            err_addr <= 68'd0;
            err_pc <= 32'd0;
            inflight <= 1'b0;
            step <= 32'd0;
            cyc <= 64'd0;
            issue_cyc <= 64'd0;
            stalled <= 1'b0;
            cycles <= 64'd0;
            retired <= 64'd0;
            end_t <= 64'd0;
            dma_wait <= 64'd0;
            for (k = 0; k < NUM_UNITS; k = k + 1) unit_busy[k] <= 64'd0;
            for (k = 0; k < NUM_GP_REGS; k = k + 1) gp[k] <= 32'd0;
            ld_r <= 4'd0;
            for (k = 0; k < NUM_F_REGS; k = k + 1) f[k] <= 32'd0;
            for (k = 0; k < NUM_A_REGS; k = k + 1) a[k] <= 64'd0;
            stride_r <= 32'd0;
            scale_r <= 32'd0;
            vmask_r <= 32'd0;
            loop_sp <= 32'd0;
            for (k = 0; k < LOOP_DEPTH; k = k + 1) loop_pc[k] <= 32'd0;
        end else case (state)
            S_IDLE:
                if (start) begin
                    if (prog_len == 32'd0) done <= 1'b1;     // nothing to run: 0 cycles
                    state <= (prog_len == 32'd0) ? S_DONE : S_RUN;
                end
            S_DRAIN: begin
                // Queued transfers complete; the count is max(end of program, last one).
                cyc <= cyc + 64'd1;
                if (dma_idle_next) begin
                    cycles <= cyc + 64'd1;
                    done <= 1'b1;
                    state <= S_DONE;
                end
            end
            S_DONE: ;
            default: begin   // S_RUN
                cyc <= cyc + 64'd1;
                if (at_issue && !stalled) issue_cyc <= cyc;
                stalled <= stall_now;
                if (issue_err || late_err || last) begin
                    if (drained) begin
                        cycles <= cyc + 64'd1;
                        done <= 1'b1;
                    end
                    state <= drained ? S_DONE : S_DRAIN;
                end
                if (late_err) begin
                    err_code <= ERR_NAN;
                    err_mem <= 3'(MEM_VSRAM_ID);
                    err_addr <= 68'(g_rs1) + 68'(nan_first);
                    err_pc <= pc;
                    stop <= STOP_ERROR;
                    end_t <= cyc;
                end else if (issue_err) begin
                    err_code <= retired >= max_retire ? ERR_BUDGET
                              : cyc >= max_cycles ? ERR_CYCLES
                              : halt ? ERR_HALT : c_code;
                    err_mem <= c_mem;
                    err_addr <= c_addr;
                    err_pc <= pc;
                    stop <= STOP_ERROR;
                    end_t <= cyc;
                end else if (stall_now) begin
                    dma_wait <= dma_wait + 64'd1;
                end else begin
                    // Busy cycles: counted as they pass.
                    for (k = 0; k < NUM_UNITS; k = k + 1)
                        if (u_busy[k]) unit_busy[k] <= unit_busy[k] + 64'd1;
                    inflight <= occupied && !u_done;
                    step <= (occupied && !u_done) ? step + 32'd1 : 32'd0;
                    if (commit) begin
                        retired <= retired + 64'd1;
                        rt_valid <= 1'b1;
                        rt_index <= retired;
                        rt_pc <= pc;
                        rt_cycle <= (at_issue && !stalled) ? cyc : issue_cyc;
                        rt_word <= word;
                        rt_a0 <= trace_a0;
                        rt_a1 <= trace_a1;
                        // (gp's and f's results: their write ports, below)
                        case (op)
                            OP_S_LD_INT:   if (rd != 0) begin ld_gp <= 1'b1; ld_r <= rd; end
                            OP_S_LD_FP:    if (frd != 0) begin ld_f <= 1'b1; ld_r <= 4'(frd); end
                            OP_C_SET_ADDR_REG:   a[frd] <= {g_rs1, g_rs2};
                            OP_C_SET_SCALE_REG:  scale_r <= g_rd;
                            OP_C_SET_STRIDE_REG: stride_r <= g_rd;
                            OP_C_SET_V_MASK_REG: vmask_r <= g_rd;
                            OP_C_LOOP_START: begin
                                loop_pc[sp] <= pc + 32'd1;
                                loop_sp <= loop_sp + 32'd1;
                            end
                            OP_C_LOOP_END:
                                if (!loop_back) loop_sp <= loop_sp - 32'd1;
                            OP_C_BREAK: stop <= STOP_BREAK;
                            default: ;
                        endcase
                    end
                end
            end
        endcase
        // The register files' ports (a commit's result, or the host's word), after the
        // load's write and reset, as the writes they replace were.
        if (gp_we) gp[gp_wa] <= gp_wd;
        if (f_we) f[f_wa] <= f_wd;
        // The host's writes (the core is idle or done: nothing else writes).
        if (host_wr && host_sel == HS_A) a[host_addr[2:0]] <= host_wdata[63:0];
    end
endmodule
