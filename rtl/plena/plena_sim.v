// Simulation harness of plena_top (not part of the accelerator): runs jobs that the
// host (simulators/plena_rtl) prepared in <plena_dir>/job<N>/, using only the core's
// ports:
//
//   job.txt          prog_len max_retire max_cycles trace   (decimal)
//   imem.hex, vsram.hex, msram.hex, fp_mem.hex, int_mem.hex  ($readmemh images)
//   hbm.bin          HBM contents, mapped by the DPI-C HBM model for the run
//   hbm.hex          instead, with PLENA_HBM_VERILOG (Icarus): the image's HBM writes,
//                    sparse ($readmemh with @address lines; the rest is zero)
//
// On `go` it resets the core, writes the program and the memories through the core's
// host port (one entry per cycle), opens HBM and starts the core; when the core is done
// it reads every on-chip memory, accumulator, register and counter back through the
// host port into <name>.out and state.txt, closes HBM (its file then holds the final
// contents; with PLENA_HBM_VERILOG it writes hbm.out) and raises `finished`.
// With trace = 1 it also writes trace.txt: one line per retired instruction (see
// simulators/plena_rtl/trace.py), from the core's retirement port, with what it wrote.
// To read those values it stops the core's clock after the edge that retired the
// instruction and reads them through the host port (combinational reads, one per
// harness cycle); the core then resumes as if nothing happened, so traced and untraced
// runs count the same cycles.
//
// HBM is the external memory behind the core's port: this harness holds its storage
// (the DPI-C file model, or with PLENA_HBM_VERILOG an element array) and answers each
// beat request HBM_LATENCY cycles later, in order; it is always ready.
//
// The clock (period 2 time units, 2 ns) is generated here, inside the simulator, so a
// run costs no host call per cycle: under Verilator (--timing) it runs about twice as
// fast as a clock driven from outside through VPI. With the plusarg +bulk_clk_in it comes
// from `clk_in` instead, which bulk mode's C++ driver (simulators/rtl/bulk_main.cpp)
// toggles every time unit, the same edges at the same times: no delay of the timing
// scheduler and no process resumed per edge, a time slot of the model fewer per edge.
module plena_sim #(
    /* verilator lint_off UNUSEDPARAM */
    // Waiver: the whole configuration, as every plena module (see plena_check).
    `include "plena_params.vh"
    /* verilator lint_on UNUSEDPARAM */
) (
    output wire        cclk,         // the core's clock: `clk`, stopped while the trace reads
    input  wire        clk_in,       // the clock from outside, with +bulk_clk_in
    input  wire [31:0] job,
    input  wire        go,
    input  wire        halt,         // the host's wall-clock stop, set at any time
    output reg         halt_q,       // ... presented to the core after a clock edge
    output reg         finished,
    output reg         rst,
    output reg         start,
    output reg  [31:0] prog_len,
    output reg  [63:0] max_retire,
    output reg  [63:0] max_cycles,
    output wire        host_we,
    output wire [3:0]  host_sel,
    output wire [31:0] host_addr,
    output wire [VLEN*16-1:0] host_wdata,
    input  wire [VLEN*16-1:0] host_rdata,
    input  wire        done,
    input  wire [1:0]  stop,
    input  wire [3:0]  err_code,
    input  wire [2:0]  err_mem,
    input  wire [67:0] err_addr,
    input  wire [31:0] err_pc,
    input  wire [63:0] cycles,
    input  wire [63:0] retired,
    input  wire        rt_valid,
    input  wire [63:0] rt_index,
    input  wire [31:0] rt_pc,
    input  wire [63:0] rt_cycle,
    input  wire [31:0] rt_word,
    input  wire [63:0] rt_a0,
    input  wire [63:0] rt_a1,
    input  wire        m_valid,
    output wire        m_ready,
    input  wire        m_write,
    input  wire [63:0] m_addr,
    input  wire [31:0] m_len,
    input  wire [PW*16-1:0] m_wdata,
    output wire        r_valid,
    output wire        r_write,
    output wire [PW*16-1:0] r_data,
    input  wire        ds_valid,
    input  wire [63:0] ds_index,
    input  wire [63:0] ds_base,
    input  wire [63:0] ds_stride,
    input  wire        dp_valid,
    input  wire [63:0] dp_index,
    input  wire        dp_tile,
    input  wire [63:0] dp_addr,
    input  wire        dm_valid,
    // Waiver: the trace keeps one tile; the tile number is dp_addr's.
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [$clog2(MSRAM_TILES * MLEN)-1:0] dm_row,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [VLEN*16-1:0] dm_data,
    input  wire [VLEN-1:0] dm_mask,
    input  wire        dv_w_en,
    input  wire [$clog2(VSRAM_ROWS)-1:0] dv_w_row,
    input  wire [VLEN*16-1:0] dv_w_data,
    input  wire [VLEN-1:0] dv_w_mask,
    input  wire        dv_p_en,
    input  wire [$clog2(VSRAM_ROWS)-1:0] dv_p_row,
    input  wire [7:0]  df_en,
    input  wire [31:0] df_addr,
    input  wire [8*32-1:0] df_data,
    input  wire [7:0]  di_en,
    input  wire [31:0] di_addr,
    input  wire [8*32-1:0] di_data,
    input  wire        db_en,
    input  wire [1:0]  db_acc,
    input  wire [$clog2(MLEN)-1:0] db_row,
    input  wire [$clog2(MLEN)-1:0] db_j0,
    input  wire [BLEN*(MLEN/HLEN)*32-1:0] db_data,
    input  wire [1:0]  db_clr
);
    `include "plena_isa.vh"
    `include "plena_units.vh"
`ifdef PLENA_HBM_VERILOG
    // HBM itself, for the Verilog HBM model (plena_hbm.vh): one bf16 element per word.
    reg [15:0] hbm [0:HBM_SIZE-1];
    integer hz;
`else
    import "DPI-C" function int plena_hbm_open(input string path, input longint elements);
    import "DPI-C" function int plena_hbm_close();
`endif

    localparam integer PW = (HBM_BW < VLEN) ? HBM_BW : VLEN;
    localparam integer RW = VLEN * 16;
    localparam integer HEADS = MLEN / HLEN;
    localparam integer MROWS = MSRAM_TILES * MLEN;
    string base, dir;
    integer fd, nread, trace_on, tfd;

    // The harness's clock, and the core's: the same clock, except while the trace reads
    // the core (cen low). cen changes only while clk is low, so cclk has no glitch.
    reg clk_gen, clk_ext, cen;
    initial begin
        clk_gen = 1'b0;
        cen = 1'b1;
    end
    initial begin
        clk_ext = $test$plusargs("bulk_clk_in") != 0;
        if (!clk_ext) forever #1 clk_gen = ~clk_gen;
    end
    wire clk = clk_ext ? clk_in : clk_gen;
    assign cclk = clk & cen;
    // The clock gates' check (rtl/common/icg.v under ICG_FLOP_MODEL and ICG_ARMED: the
    // build for Verilator) runs from the first falling edge of the core's clock: until
    // then a gate's latch holds nothing it could compare.
`ifdef ICG_ARMED
    reg icg_armed;
    initial icg_armed = 1'b0;
    always @(negedge cclk) icg_armed <= 1'b1;
`endif

    // The core's inputs. The job sequence and the trace are processes that wait on clock
    // edges; they run at falling edges and write requests (q_*), which an ordinary clocked
    // process presents to the core at the next rising edge, so every input of the core
    // changes at a rising edge, as a register's output does. Why: the clock gates'
    // falling-edge model (rtl/common/icg.v, plena's Verilator builds) needs their enables
    // stable while the clock is low; and under Verilator a waiting process's writes at a
    // rising edge reach the clocked logic of that same edge (they are not ordered as
    // non-blocking assignments between ordinary processes are), and whatever reads them
    // combinationally is evaluated with the clock triggers, at both edges.
    reg        q_rst, q_start, q_we;
    reg [3:0]  q_sel;
    reg [31:0] q_addr, q_prog_len;
    reg [63:0] q_max_retire, q_max_cycles;
    reg [RW-1:0] q_wdata;
    reg        j_we;
    reg [3:0]  j_sel;
    reg [31:0] j_addr;
    reg [RW-1:0] j_wdata;
    always @(posedge clk) begin
        rst <= q_rst;
        start <= q_start;
        prog_len <= q_prog_len;
        max_retire <= q_max_retire;
        max_cycles <= q_max_cycles;
        j_we <= q_we;
        j_sel <= q_sel;
        j_addr <= q_addr;
    end
    // The row only with a write: the core reads host_wdata only under host_we (a
    // 1,024-bit copy at every edge otherwise, at the default configuration), and on a
    // clock of its own that rises only with one (q_we changes only while clk is low: the
    // job sequence writes it at falling edges), so what reads host_wdata combinationally
    // (the Matrix SRAM fill's data, plena_core) is not evaluated at every edge.
    wire hwclk = clk & q_we;
    always @(posedge hwclk) j_wdata <= q_wdata;
    assign host_we = j_we;
    assign host_sel = j_sel;
    assign host_addr = j_addr;
    assign host_wdata = j_wdata;
    // The port's data as the harness's processes read it: h_q, sampled at the rising edge
    // by an ordinary process while one of them reads (h_on), and taken at the falling edge
    // after. (Read directly by a waiting process, host_rdata and everything behind it, the
    // scalar unit's fp32 units included, would be evaluated at both edges.)
    reg [RW-1:0] h_q;
    reg          h_on;
    always @(posedge clk)
        if (h_on) h_q <= host_rdata;
    // `halt` comes from outside the simulation at any moment; registered, it changes only
    // just after a rising edge like the core's other inputs (and the logic it feeds runs
    // with the clocked logic, not at every evaluation of the model as an input's does).
    always @(posedge clk) halt_q <= halt;
    // (Set here rather than in the job sequence, a process that waits: see h_q above.)
    initial begin
        halt_q = 1'b0;
        finished = 1'b0;
        rst = 1'b0;
        start = 1'b0;
        prog_len = 32'd0;
        max_retire = 64'd0;
        max_cycles = 64'd0;
        j_we = 1'b0;
        j_sel = 4'd0;
        j_addr = 32'd0;
        j_wdata = {RW{1'b0}};
        q_rst = 1'b0;
        q_start = 1'b0;
        q_prog_len = 32'd0;
        q_max_retire = 64'd0;
        q_max_cycles = 64'd0;
        q_we = 1'b0;
        q_sel = 4'd0;
        q_addr = 32'd0;
        q_wdata = {RW{1'b0}};
        h_on = 1'b0;
    end

    // The harness's own count of the run's clock edges, after the one at which the core
    // samples `start` up to the one that raises `done`: the backend holds the core's
    // cycle count against it.
    reg [63:0] edges;
    reg        counting;
    initial counting = 1'b0;
    always @(posedge cclk)
        if (start) begin
            edges <= 64'd0;
            counting <= 1'b1;
        end else if (counting && !done)
            edges <= edges + 64'd1;
        else
            counting <= 1'b0;

    // The job's images going in, and what comes back out.
    reg [31:0]   l_imem [0:IMEM_SIZE-1];
    reg [RW-1:0] l_vsram [0:VSRAM_ROWS-1];
    reg [RW-1:0] l_msram [0:MROWS-1];
    reg [31:0]   l_fp [0:FP_MEM_SIZE-1];
    reg [31:0]   l_int [0:INT_MEM_SIZE-1];
    reg [31:0]   o_mm [0:BLEN*BLEN-1];
    reg [31:0]   o_mv [0:MLEN-1];
    reg [31:0]   o_bmm [0:HEADS*MLEN*MLEN-1];
    reg [31:0]   o_bmv [0:HEADS*MLEN-1];
    reg [63:0]   o_reg [0:NUM_GP_REGS+NUM_F_REGS+NUM_A_REGS-1];
    reg [63:0]   o_csr [0:3];
    reg [31:0]   o_loop [0:LOOP_DEPTH-1];
    reg [63:0]   o_stat [0:3+NUM_UNITS-1];

    function automatic string path(input string name);
        path = $sformatf("%0s/%0s", dir, name);
    endfunction

    // Waiver: the job sequence raises `finished` with a non-blocking assignment, as a
    // clocked process would (INITIALDLY); host reads are a row wide and the scalar spaces
    // use their low bits (UNUSEDSIGNAL, also in the trace below).
    /* verilator lint_off INITIALDLY */
    // One host write per cycle: requested at a falling edge, presented at the next rising
    // edge, taken by the core at the one after.
    task automatic hwrite(input [3:0] sel, input integer adr, input [RW-1:0] value);
        q_we = 1'b1;
        q_sel = sel;
        q_addr = 32'(adr);
        q_wdata = value;
        @(negedge clk);
    endtask
    // The harness's copy of entry k of space `sel`.
    task automatic keep(input [3:0] sel, input integer k, input [RW-1:0] w);
        case (sel)
            HS_VSRAM:  l_vsram[k] = w;
            HS_MSRAM:  l_msram[k] = w;
            HS_FPMEM:  l_fp[k] = w[31:0];
            HS_INTMEM: l_int[k] = w[31:0];
            HS_MM:     o_mm[k] = w[31:0];
            HS_MV:     o_mv[k] = w[31:0];
            HS_BMM:    o_bmm[k] = w[31:0];
            HS_BMV:    o_bmv[k] = w[31:0];
            HS_GP:     o_reg[k] = w[63:0];
            HS_F:      o_reg[NUM_GP_REGS + k] = w[63:0];
            HS_A:      o_reg[NUM_GP_REGS + NUM_F_REGS + k] = w[63:0];
            HS_CSR:    o_csr[k] = w[63:0];
            HS_LOOP:   o_loop[k] = w[31:0];
            default:   o_stat[k] = w[63:0];
        endcase
    endtask
    // Host reads of entries 0 .. n-1 of space `sel`, one per cycle (pipelined): entry j is
    // requested at the j-th falling edge, presented at the next rising edge, and its data
    // taken `lat` falling edges after the request: 2 for registers, MV_ACC, BMV_ACC and
    // counters (read combinationally), 3 for the memories and MM_ACC's and BMM_ACC's
    // entries (their read ports register the data at the edge after the address).
    task automatic hread_all(input [3:0] sel, input integer n, input integer lat);
        integer j;
        q_we = 1'b0;
        q_sel = sel;
        h_on = 1'b1;
        for (j = 0; j < n + lat; j = j + 1) begin
            if (j < n) q_addr = 32'(j);
            if (j >= lat) keep(sel, j - lat, h_q);
            @(negedge clk);
        end
        h_on = 1'b0;
    endtask

    task automatic write_state;
        integer sfd, k;
        begin
            sfd = $fopen(path("state.txt"), "w");
            $fwrite(sfd, "stop %0d\nerr_code %0d\nerr_mem %0d\nerr_addr %h\nerr_pc %0d\n",
                    stop, err_code, err_mem, err_addr, err_pc);
            $fwrite(sfd, "err_cycle %0d\ncycles %0d\nclock_edges %0d\nretired %0d\n",
                    o_stat[0], cycles, edges, retired);
            $fwrite(sfd, "dma_wait %0d\nchan_busy %0d\nunit_busy", o_stat[1], o_stat[2]);
            for (k = 0; k < NUM_UNITS; k = k + 1) $fwrite(sfd, " %0d", o_stat[3 + k]);
            $fwrite(sfd, "\ngp");
            for (k = 0; k < NUM_GP_REGS; k = k + 1) $fwrite(sfd, " %h", o_reg[k][31:0]);
            $fwrite(sfd, "\nf");
            for (k = 0; k < NUM_F_REGS; k = k + 1) $fwrite(sfd, " %h", o_reg[NUM_GP_REGS + k][31:0]);
            $fwrite(sfd, "\na");
            for (k = 0; k < NUM_A_REGS; k = k + 1) $fwrite(sfd, " %h", o_reg[NUM_GP_REGS + NUM_F_REGS + k]);
            $fwrite(sfd, "\ncsr %h %h %h\nloops", o_csr[0][31:0], o_csr[1][31:0], o_csr[2][31:0]);
            for (k = 0; k < LOOP_DEPTH; k = k + 1)
                if (64'(k) < o_csr[3]) $fwrite(sfd, " %0d", o_loop[k]);
            $fwrite(sfd, "\n");
            $fclose(sfd);
        end
    endtask

    // The job sequence's wait for the end of a run: an ordinary process checks at every
    // rising edge while the sequence waits and wakes it with an event. (Waiting on the
    // condition itself, `wait (done && cen)`, Verilator resumed the sequence's coroutine
    // at every evaluation, both edges, to test it again: 2.4% of the instructions of a
    // bulk simulation of a scalar loop.)
    reg   d_wait;
    event d_go;
    initial d_wait = 1'b0;
    always @(posedge clk)
        if (d_wait && done && cen) -> d_go;

    // --- the job sequence ------------------------------------------------------------
    // It takes `go` at a rising edge and runs at falling edges from there on (see q_*).
    /* verilator lint_off UNUSEDSIGNAL */
    integer k;
    initial begin
        if (!$value$plusargs("plena_dir=%s", base)) base = ".";
        trace_on = 0;
        tfd = 0;
        forever begin
            @(posedge clk);
            if (go) begin
                dir = $sformatf("%0s/job%0d", base, job);
                fd = $fopen(path("job.txt"), "r");
                if (fd == 0) $fatal(1, "plena_sim: cannot open %0s", path("job.txt"));
                nread = $fscanf(fd, "%d %d %d %d", q_prog_len, q_max_retire, q_max_cycles, trace_on);
                if (nread != 4) $fatal(1, "plena_sim: %0s: expected 4 numbers", path("job.txt"));
                $fclose(fd);
                $readmemh(path("imem.hex"), l_imem);
                $readmemh(path("vsram.hex"), l_vsram);
                $readmemh(path("msram.hex"), l_msram);
                $readmemh(path("fp_mem.hex"), l_fp);
                $readmemh(path("int_mem.hex"), l_int);
                finished <= 1'b0;
                @(negedge clk);
                q_rst = 1'b1;
                @(negedge clk);
                q_rst = 1'b0;
                for (k = 1; k < 32'(q_prog_len); k = k + 1) hwrite(HS_IMEM, k, RW'(l_imem[k]));
                for (k = 0; k < VSRAM_ROWS; k = k + 1) hwrite(HS_VSRAM, k, l_vsram[k]);
                for (k = 0; k < MROWS; k = k + 1) hwrite(HS_MSRAM, k, l_msram[k]);
                for (k = 0; k < FP_MEM_SIZE; k = k + 1) hwrite(HS_FPMEM, k, RW'(l_fp[k]));
                for (k = 0; k < INT_MEM_SIZE; k = k + 1) hwrite(HS_INTMEM, k, RW'(l_int[k]));
                q_we = 1'b0;
`ifdef PLENA_HBM_VERILOG
                for (hz = 0; hz < HBM_SIZE; hz = hz + 1) hbm[hz] = 16'd0;
                $readmemh(path("hbm.hex"), hbm);
`else
                if (plena_hbm_open(path("hbm.bin"), 64'(HBM_SIZE)) != 0)
                    $fatal(1, "plena_sim: cannot map %0s", path("hbm.bin"));
`endif
                if (trace_on != 0) tfd = $fopen(path("trace.txt"), "w");
                // The program's first word goes in at the edge that samples `start`: the
                // core's fetch port reads it at that edge and takes it from the write.
                if (q_prog_len != 32'd0) begin
                    q_we = 1'b1;
                    q_sel = HS_IMEM;
                    q_addr = 32'd0;
                    q_wdata = RW'(l_imem[0]);
                end
                q_start = 1'b1;
                @(negedge clk);
                q_we = 1'b0;
                q_start = 1'b0;
                // The core is done, and the trace has read what its last edge wrote:
                // the first rising edge that finds it so (d_go, below).
                d_wait = 1'b1;
                @(d_go);
                d_wait = 1'b0;
                @(negedge clk);
                hread_all(HS_VSRAM, VSRAM_ROWS, 3);
                hread_all(HS_MSRAM, MROWS, 3);
                hread_all(HS_FPMEM, FP_MEM_SIZE, 3);
                hread_all(HS_INTMEM, INT_MEM_SIZE, 3);
                hread_all(HS_MM, BLEN * BLEN, 3);
                hread_all(HS_MV, MLEN, 2);
                hread_all(HS_BMM, HEADS * MLEN * MLEN, 3);
                hread_all(HS_BMV, HEADS * MLEN, 2);
                hread_all(HS_GP, NUM_GP_REGS, 2);
                hread_all(HS_F, NUM_F_REGS, 2);
                hread_all(HS_A, NUM_A_REGS, 2);
                hread_all(HS_CSR, 4, 2);
                hread_all(HS_LOOP, LOOP_DEPTH, 2);
                hread_all(HS_STAT, 3 + NUM_UNITS, 2);
                $writememh(path("vsram.out"), l_vsram);
                $writememh(path("msram.out"), l_msram);
                $writememh(path("fp_mem.out"), l_fp);
                $writememh(path("int_mem.out"), l_int);
                $writememh(path("mm_acc.out"), o_mm);
                $writememh(path("mv_acc.out"), o_mv);
                $writememh(path("bmm_acc.out"), o_bmm);
                $writememh(path("bmv_acc.out"), o_bmv);
                write_state();
`ifdef PLENA_HBM_VERILOG
                $writememh(path("hbm.out"), hbm);
`else
                if (plena_hbm_close() != 0) $fatal(1, "plena_sim: cannot write HBM back");
`endif
                if (tfd != 0) begin
                    $fclose(tfd);
                    tfd = 0;
                end
                finished <= 1'b1;
            end
        end
    end
    /* verilator lint_on INITIALDLY */
    /* verilator lint_on UNUSEDSIGNAL */

    // --- HBM: storage and a fixed-latency response pipeline --------------------------------
    // A write lands when it is accepted; a read takes the contents at that moment. The
    // pipeline is a ring of HBM_LATENCY slots: the slot written at an edge is presented
    // HBM_LATENCY - 1 edges later, when the pointer has come round to it again (a ring
    // rather than a shift register: nothing moves but the pointer).
    assign m_ready = 1'b1;
    localparam integer LW = (HBM_LATENCY > 1) ? $clog2(HBM_LATENCY) : 1;
    reg [HBM_LATENCY-1:0] p_valid, p_write;
    reg [PW*16-1:0]  p_data  [0:HBM_LATENCY-1];
    reg [LW-1:0]     p_at;
    reg [VLEN*16-1:0] m_row;
    integer pz;
    initial begin
        p_at = '0;
        // (a slot is written only with a beat: zero until then, not X under Icarus)
        for (pz = 0; pz < HBM_LATENCY; pz = pz + 1) p_data[pz] = '0;
    end
    // The response presented is slot p_at's. With HBM_LATENCY > 1 it is held in registers
    // (r_q*) that take, at each edge, what slot p_at will hold after it: the next slot,
    // which that edge does not write (only slot p_at is written; reset empties them all).
    // They sit behind a clock gate open only when a response comes next or one is being
    // presented (to take it down), so the DMA engine's response path and the Matrix SRAM
    // fill's data after it (plena_dma, plena_core) are evaluated only around beats, not at
    // every edge (under Verilator, logic behind an ungated clock is). With HBM_LATENCY == 1
    // the next slot is the one written at the edge: read from the ring as it is.
    generate
        if (HBM_LATENCY > 1) begin : g_rq
            wire [LW-1:0]   p_nx = (32'(p_at) == HBM_LATENCY - 1) ? '0 : p_at + LW'(1);
            reg             rq_valid, rq_write;
            reg [PW*16-1:0] rq_data;
            initial begin
                rq_valid = 1'b0;
                rq_write = 1'b0;
                rq_data = '0;
            end
            wire nx_valid = !rst && p_valid[p_nx];
            wire rqclk;
            icg u_rqgate (.clk(cclk), .en(nx_valid || rq_valid), .gclk(rqclk));
            always @(posedge rqclk) begin
                rq_valid <= nx_valid;
                rq_write <= p_write[p_nx];
                if (nx_valid) rq_data <= p_data[p_nx];
            end
            assign r_valid = rq_valid;
            assign r_write = rq_write;
            assign r_data = rq_data;
        end else begin : g_rring
            assign r_valid = p_valid[p_at];
            assign r_write = p_write[p_at];
            assign r_data = p_data[p_at];
        end
    endgenerate
    // Waiver: `m_row` carries the HBM model's output into the pipeline.
    /* verilator lint_off BLKSEQ */
    always @(posedge cclk) begin
        // (reset empties the pipeline: Icarus starts it as X, which would stay in the
        // engine's count of outstanding beats)
        if (rst) p_valid <= '0;
        else p_valid[p_at] <= m_valid;
        p_write[p_at] <= m_write;
        p_at <= (32'(p_at) == HBM_LATENCY - 1) ? '0 : p_at + LW'(1);
        // Only a beat's slot takes data; a slot without one keeps its old row (the DMA
        // engine takes r_data only with r_valid). Clearing the row and writing the slot
        // at every edge cost about 2% of a bulk simulation's cycle (perf).
        if (m_valid && !rst) begin
            m_row = {VLEN*16{1'b0}};
            if (m_write) begin
                m_row[PW*16-1:0] = m_wdata;
                plena_hbm_write(m_addr, m_len, m_row);
            end else
                plena_hbm_read(m_addr, m_len, m_row);
            p_data[p_at] <= m_row[PW*16-1:0];
        end
    end
    /* verilator lint_on BLKSEQ */

    // --- retirement trace ------------------------------------------------------------
    // After each committed instruction: "R index pc issue_cycle word", then one line
    // "W space address count values..." per thing it wrote (values in hex; rows with
    // their highest element first). The values are read through the host port with the
    // core's clock stopped after the edge that committed the instruction: the falling
    // edge after it stops the clock, each read takes a cycle of `clk`, and the clock
    // runs again from the falling edge after the last read. a0/a1 come from the core's
    // trace port.
    localparam integer ROW_ELEMS = VLEN;
    `include "plena_hbm.vh"
    /* verilator lint_off UNUSEDSIGNAL */
    wire [5:0] t_op = rt_word[OPCODE_LSB +: OPCODE_W];
    wire [3:0] t_rd = rt_word[F_RD_LSB +: F_RD_W];
    reg [VLEN*16-1:0] t_hbm;
    reg [RW-1:0] tv;
    integer tk;

    reg [RW-1:0] t_vsram [0:VSRAM_ROWS-1];
    task automatic t_vrow(input [63:0] row, output [RW-1:0] value);
        value = t_vsram[$clog2(VSRAM_ROWS)'(row)];
    endtask
    // A read with the core's clock stopped (registers, accumulators and counters: read
    // combinationally): presented at the rising edge after the request, sampled at the
    // next one.
    reg [3:0]  t_sel;       // the job sequence's request, put back after the trace's reads
    reg [31:0] t_addr;
    reg        t_read;
    task automatic tread(input [3:0] sel, input [63:0] adr, output [RW-1:0] value);
        t_read = 1'b1;
        q_sel = sel;
        q_addr = adr[31:0];
        h_on = 1'b1;
        @(negedge clk);
        @(negedge clk);
        h_on = 1'b0;
        value = h_q;
    endtask
    // Names are passed as 8-character vectors and the tasks are static: Icarus 11
    // aborts on string arguments of tasks (they print identically on both simulators).
    task t_word(input [63:0] space, input [3:0] sel, input longint adr, input [63:0] idx);
        reg [RW-1:0] w;
        tread(sel, idx, w);
        $fwrite(tfd, "W %0s %0d 1 %h\n", space, adr, w[63:0]);
    endtask
    task t_rows(input longint adr, input integer rows);   // whole Vector SRAM rows
        integer q;
        reg [RW-1:0] w;
        $fwrite(tfd, "W vsram %0d %0d", adr, rows * VLEN);
        for (q = 0; q < rows; q = q + 1) begin
            t_vrow(adr / 64'(VLEN) + 64'(q), w);
            $fwrite(tfd, " %h", w);
        end
        $fwrite(tfd, "\n");
    endtask
    task t_loops;   // the loop stack after a loop instruction: its depth, then body pcs
        integer q;
        reg [RW-1:0] w, depth;
        tread(HS_CSR, 64'd3, depth);
        $fwrite(tfd, "W LOOPS 0 %0d", depth[31:0]);
        for (q = 0; q < LOOP_DEPTH; q = q + 1)
            if (32'(q) < depth[31:0]) begin
                tread(HS_LOOP, 64'(q), w);
                $fwrite(tfd, " %0d", w[31:0]);
            end
        $fwrite(tfd, "\n");
    endtask
    task t_acc(input [63:0] name, input [3:0] sel, input integer n);
        integer q;
        reg [RW-1:0] w;
        $fwrite(tfd, "W %0s 0 %0d", name, n);
        for (q = 0; q < n; q = q + 1) begin
            tread(sel, 64'(q), w);
            $fwrite(tfd, " %h", w[31:0]);
        end
        $fwrite(tfd, "\n");
    endtask

    // A tile prefetch's rows as the DMA engine writes them into the Matrix SRAM (the
    // core's dm_* port): the banks are read only through the array's read ports, which
    // need the core's clock. A tile's beats land in row order, cover every element and
    // end before the next transfer's begin (responses come in request order), so when
    // dp_valid names the tile the buffer holds all of it.
    // A row with the elements `mask` selects taken from `data`, the rest from `old`.
    function automatic [RW-1:0] masked(input [RW-1:0] old, input [RW-1:0] data,
                                       input [VLEN-1:0] mask);
        integer e;
        for (e = 0; e < VLEN; e = e + 1)
            masked[16*e +: 16] = mask[e] ? data[16*e +: 16] : old[16*e +: 16];
    endfunction
    // The trace's copies below are clocked by `trclk`: the core's clock while the job is
    // traced (tr_on follows trace_on at falling edges, so trclk has no glitch; trace_on is
    // read at the rising edge that takes `go`, before the job's first write, and tr_on
    // follows it at the falling edge after, before the next rising edge). Clocked by
    // cclk with a test of trace_on inside, as they were, the simulator ran them (and
    // cleared their row-wide temporaries) at every edge of an untraced run too.
    reg tr_on;
    initial tr_on = 1'b0;
    always @(negedge clk) tr_on <= trace_on != 0;
    wire trclk = cclk & tr_on;
    reg [RW-1:0] t_tile [0:MLEN-1];
    always @(posedge trclk)
        if (dm_valid)
            t_tile[dm_row[$clog2(MLEN)-1:0]] <= masked(t_tile[dm_row[$clog2(MLEN)-1:0]],
                                                       dm_data, dm_mask);

    // FP_MEM's and INT_MEM's words as the core writes them (the df_* and di_* ports, the
    // host's loads included): their reads are registered, which needs the core's clock
    // the trace holds, so the trace keeps every word.
    localparam integer TFW = (FP_MEM_SIZE > 1) ? $clog2(FP_MEM_SIZE) : 1;
    localparam integer TIW = (INT_MEM_SIZE > 1) ? $clog2(INT_MEM_SIZE) : 1;
    reg [31:0] t_fp [0:FP_MEM_SIZE-1];
    reg [31:0] t_int [0:INT_MEM_SIZE-1];
    task t_fp_word(input [63:0] adr);
        $fwrite(tfd, "W fp_mem %0d 1 %h\n", adr, 64'(t_fp[TFW'(adr)]));
    endtask
    task t_int_word(input [63:0] adr);
        $fwrite(tfd, "W int_mem %0d 1 %h\n", adr, 64'(t_int[TIW'(adr)]));
    endtask

    // MM_ACC's and BMM_ACC's entries as the matrix unit writes them (the db_* port,
    // db_acc 0 and 2): their banks are read through registered ports, which need the
    // core's clock the trace holds, and their clear is a valid bit per block, so the
    // trace keeps every entry.
    // (Kept only while tracing, as the other copies: BMM_ACC's clear alone writes HEADS x
    // MLEN x MLEN entries, and each job's reset clears once trace_on is read.)
    reg [31:0] t_bmm [0:HEADS*MLEN*MLEN-1];
    reg [31:0] t_mm [0:BLEN*BLEN-1];
    integer tb, th;
    always @(posedge trclk) begin
        if (db_clr[1]) begin
            for (tb = 0; tb < HEADS*MLEN*MLEN; tb = tb + 1) t_bmm[tb] <= 32'd0;
        end else if (db_en && db_acc == 2'd2)
            for (th = 0; th < HEADS; th = th + 1)
                for (tb = 0; tb < BLEN; tb = tb + 1)
                    t_bmm[(th*MLEN + 32'(db_row))*MLEN + 32'(db_j0) + tb]
                        <= db_data[32*(tb*HEADS + th) +: 32];
        if (db_clr[0]) begin
            for (tb = 0; tb < BLEN*BLEN; tb = tb + 1) t_mm[tb] <= 32'd0;
        end else if (db_en && db_acc == 2'd0)
            for (tb = 0; tb < BLEN; tb = tb + 1)
                t_mm[32'(db_row)*BLEN + tb] <= db_data[32*(tb*HEADS) +: 32];
    end
    task t_mm_acc;
        integer q;
        $fwrite(tfd, "W MM_ACC 0 %0d", BLEN * BLEN);
        for (q = 0; q < BLEN * BLEN; q = q + 1) $fwrite(tfd, " %h", t_mm[q]);
        $fwrite(tfd, "\n");
    endtask
    task t_bmm_acc;
        integer q;
        $fwrite(tfd, "W BMM_ACC 0 %0d", HEADS * MLEN * MLEN);
        for (q = 0; q < HEADS * MLEN * MLEN; q = q + 1) $fwrite(tfd, " %h", t_bmm[q]);
        $fwrite(tfd, "\n");
    endtask

    // The Vector SRAM's rows as the core's W and P ports write them (the dv_* port: the
    // host's loads included): its banks are read through registered ports, which need
    // the core's clock the trace holds, and an instruction's writes are masked, so the
    // trace keeps every row.
    // (Whole rows, merged here: an element-wise write of the array would have the
    // simulator commit every element's write flag on every edge.)
    integer tr;
    always @(posedge trclk) begin
        for (tr = 0; tr < 8; tr = tr + 1) begin
            if (df_en[tr]) t_fp[TFW'(df_addr + 32'(tr))] <= df_data[32*tr +: 32];
            if (di_en[tr]) t_int[TIW'(di_addr + 32'(tr))] <= di_data[32*tr +: 32];
        end
        if (dv_w_en)
            t_vsram[dv_w_row] <= masked(t_vsram[dv_w_row], dv_w_data, dv_w_mask);
        if (dv_p_en)
            t_vsram[dv_p_row] <= masked(t_vsram[dv_p_row], dm_data, dm_mask);
    end

    // An ordinary process at the falling edge wakes the trace's (a process with timing
    // controls inside would be resumed by the simulator at every edge, traced or not).
    event t_go;
    always @(negedge clk)
        if (cen && tfd != 0 && (rt_valid || dp_valid || ds_valid)) -> t_go;
    // Waivers: the trace, a process that waits like the job sequence, writes the port's
    // requests as the job sequence does (BLKSEQ), and stops the core's clock with a
    // non-blocking assignment, as a clocked process would (INITIALDLY).
    /* verilator lint_off BLKSEQ */
    /* verilator lint_off INITIALDLY */
    initial forever begin
            @(t_go);
            cen <= 1'b0;
            t_sel = q_sel;
            t_addr = q_addr;
            t_read = 1'b0;
            if (rt_valid) begin
                $fwrite(tfd, "R %0d %0d %0d %h\n", rt_index, rt_pc, rt_cycle, rt_word);
                case (t_op)
                    OP_S_ADD_INT, OP_S_ADDI_INT, OP_S_SUB_INT, OP_S_MUL_INT, OP_S_LUI_INT, OP_S_LD_INT:
                        if (t_rd != 0) t_word("gp", HS_GP, 64'(t_rd), 64'(t_rd));
                    OP_C_LOOP_START, OP_C_LOOP_END: begin
                        if (t_rd != 0) t_word("gp", HS_GP, 64'(t_rd), 64'(t_rd));
                        t_loops();
                    end
                    OP_S_ST_INT:
                        t_int_word(rt_a0);
                    OP_S_ADD_FP, OP_S_SUB_FP, OP_S_MUL_FP, OP_S_MAX_FP, OP_S_EXP_FP, OP_S_RECI_FP,
                    OP_S_SQRT_FP, OP_S_LD_FP, OP_V_RED_SUM, OP_V_RED_MAX:
                        if (t_rd[2:0] != 0) t_word("f", HS_F, 64'(t_rd[2:0]), 64'(t_rd[2:0]));
                    OP_S_ST_FP:
                        t_fp_word(rt_a0);
                    OP_S_MAP_V_FP, OP_V_ADD_VV, OP_V_ADD_VF, OP_V_SUB_VV, OP_V_SUB_VF, OP_V_MUL_VV,
                    OP_V_MUL_VF, OP_V_MAX_VF, OP_V_MIN_VF, OP_V_EXP_V, OP_V_RECI_V, OP_V_SHFT_V:
                        t_rows(rt_a0, 1);
                    OP_V_TOPK:
                        for (tk = 0; tk < (rt_word[F_RMASK_LSB] ? 8 : 4); tk = tk + 1) begin
                            t_fp_word(rt_a0 + 64'(tk));
                            t_int_word(rt_a1 + 64'(tk));
                        end
                    OP_M_MM, OP_M_TMM: t_mm_acc();
                    OP_M_MV, OP_M_TMV: t_acc("MV_ACC", HS_MV, MLEN);
                    OP_M_BMM, OP_M_BTMM: t_bmm_acc();
                    OP_M_BMV, OP_M_BTMV: t_acc("BMV_ACC", HS_BMV, HEADS * MLEN);
                    OP_M_MM_WO: begin
                        for (tk = 0; tk < BLEN; tk = tk + 1) begin
                            t_vrow(rt_a0 / 64'(VLEN) + 64'(tk), tv);
                            $fwrite(tfd, "W vsram %0d %0d %h\n", rt_a0 + 64'(tk * VLEN), BLEN,
                                    tv[$clog2(VLEN*16)'(16 * (rt_a0 % 64'(VLEN))) +: BLEN*16]);
                        end
                        t_mm_acc();
                    end
                    OP_M_MV_WO: begin t_rows(rt_a0, 1); t_acc("MV_ACC", HS_MV, MLEN); end
                    OP_M_BMM_WO: begin t_rows(rt_a0, HEADS * MLEN); t_bmm_acc(); end
                    OP_M_BMV_WO: begin t_rows(rt_a0, HEADS); t_acc("BMV_ACC", HS_BMV, HEADS * MLEN); end
                    OP_C_SET_ADDR_REG: t_word("a", HS_A, 64'(t_rd[2:0]), 64'(t_rd[2:0]));
                    OP_C_SET_STRIDE_REG: t_word("csr", HS_CSR, 0, 0);
                    OP_C_SET_SCALE_REG: t_word("csr", HS_CSR, 1, 1);
                    OP_C_SET_V_MASK_REG: t_word("csr", HS_CSR, 2, 2);
                    default: ;
                endcase
            end
            // A transfer's writes, once the DMA engine has made them: "D index" names
            // the retired instruction the following W lines belong to.
            if (dp_valid) begin
                $fwrite(tfd, "D %0d\n", dp_index);
                if (dp_tile) begin
                    $fwrite(tfd, "W msram %0d %0d", dp_addr, MLEN * MLEN);
                    for (tk = 0; tk < MLEN; tk = tk + 1) $fwrite(tfd, " %h", t_tile[tk]);
                    $fwrite(tfd, "\n");
                end else
                    t_rows(dp_addr, HBM_V_PREFETCH_AMOUNT);
            end
            if (ds_valid) begin
                $fwrite(tfd, "D %0d\n", ds_index);
                for (tk = 0; tk < HBM_V_WRITEBACK_AMOUNT; tk = tk + 1) begin
                    plena_hbm_read(ds_base + 64'(tk) * ds_stride, VLEN, t_hbm);
                    $fwrite(tfd, "W hbm %0d %0d %h\n", ds_base + 64'(tk) * ds_stride, VLEN, t_hbm);
                end
            end
            // The port back to the job sequence's request, presented before the core's
            // clock runs again (the gates' enables at that edge are those it stopped on).
            if (t_read) begin
                q_sel = t_sel;
                q_addr = t_addr;
                @(negedge clk);
            end
            cen <= 1'b1;
            // (Past the rising edge that clears rt_valid before waiting again: the
            // falling-edge process above may already see cen high now, under Verilator.)
            @(posedge clk);
        end
    /* verilator lint_on INITIALDLY */
    /* verilator lint_on BLKSEQ */
    /* verilator lint_on UNUSEDSIGNAL */
endmodule
