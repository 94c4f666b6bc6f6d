// Simulation harness of plena_top (not part of the accelerator): runs jobs that the
// host (simulators/plena_rtl) prepared in <plena_dir>/job<N>/:
//
//   job.txt          prog_len max_retire max_cycles trace   (decimal)
//   imem.hex, vsram.hex, msram.hex, fp_mem.hex, int_mem.hex  ($readmemh images)
//   hbm.bin          HBM contents, mapped by the DPI-C HBM model for the run
//   hbm.hex          instead, with PLENA_HBM_VERILOG (Icarus): the image's HBM writes,
//                    sparse ($readmemh with @address lines; the rest is zero)
//
// On `go` it resets the core, loads the memories, opens HBM and starts the core; when
// the core is done it writes <name>.out for every on-chip memory and accumulator, and
// state.txt (how the run ended, counters, registers), closes HBM (its file then holds
// the final contents; with PLENA_HBM_VERILOG it writes hbm.out) and raises `finished`.
// With trace = 1 it also writes trace.txt: one line per retired instruction (see
// simulators/plena_rtl/trace.py), from the core's retirement port, with what it wrote.
// The core's storage is reached by hierarchical name (plena_top.u_core...).
//
// HBM is the external memory behind the core's port: this harness holds its storage
// (the DPI-C file model, or with PLENA_HBM_VERILOG an element array) and answers each
// beat request HBM_LATENCY cycles later, in order; it is always ready.
//
// The clock (period 2 time units, 2 ns) is generated here, inside the simulator, so a
// run costs no host call per cycle: under Verilator (--timing) it runs about twice as
// fast as a clock driven from outside through VPI.
module plena_sim #(
    /* verilator lint_off UNUSEDPARAM */
    // Waiver: the whole configuration, as every plena module (see plena_check).
    `include "plena_params.vh"
    /* verilator lint_on UNUSEDPARAM */
) (
    output reg         clk,
    input  wire [31:0] job,
    input  wire        go,
    output reg         finished,
    output reg         rst,
    output reg         start,
    output reg  [31:0] prog_len,
    output reg  [63:0] max_retire,
    output reg  [63:0] max_cycles,
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
    input  wire [63:0] dp_addr
);
    `include "plena_isa.vh"
`ifdef PLENA_HBM_VERILOG
    // HBM itself, for the Verilog HBM model (plena_hbm.vh): one bf16 element per word.
    reg [15:0] hbm [0:HBM_SIZE-1];
    integer hz;
`else
    import "DPI-C" function int plena_hbm_open(input string path, input longint elements);
    import "DPI-C" function int plena_hbm_close();
`endif

    localparam integer PW = (HBM_BW < VLEN) ? HBM_BW : VLEN;
    localparam [1:0] H_IDLE = 2'd0, H_LOAD = 2'd1, H_RUN = 2'd2;
    reg [1:0] hs;
    string base, dir;
    integer fd, nread, trace_on, tfd;

    initial clk = 1'b0;
    always #1 clk = ~clk;

    // The harness's own count of the run's clock edges, after the one at which the core
    // samples `start` up to the one that raises `done`: the backend holds the core's
    // cycle count against it.
    reg [63:0] edges;
    reg        counting;
    initial counting = 1'b0;
    always @(posedge clk)
        if (start) begin
            edges <= 64'd0;
            counting <= 1'b1;
        end else if (counting && !done)
            edges <= edges + 64'd1;
        else
            counting <= 1'b0;

    initial begin
        if (!$value$plusargs("plena_dir=%s", base)) base = ".";
        hs = H_IDLE;
        finished = 1'b0;
        rst = 1'b0;
        start = 1'b0;
        trace_on = 0;
        tfd = 0;
    end

    function automatic string path(input string name);
        path = $sformatf("%0s/%0s", dir, name);
    endfunction

    task automatic write_state;
        integer sfd, k;
        begin
            sfd = $fopen(path("state.txt"), "w");
            $fwrite(sfd, "stop %0d\nerr_code %0d\nerr_mem %0d\nerr_addr %h\nerr_pc %0d\n",
                    stop, err_code, err_mem, err_addr, err_pc);
            $fwrite(sfd, "err_cycle %0d\ncycles %0d\nclock_edges %0d\nretired %0d\n",
                    plena_top.u_core.end_t, cycles, edges, retired);
            $fwrite(sfd, "dma_wait %0d\nchan_busy %0d\nunit_busy",
                    plena_top.u_core.dma_wait, plena_top.u_core.chan_busy);
            for (k = 0; k < NUM_UNITS; k = k + 1) $fwrite(sfd, " %0d", plena_top.u_core.unit_busy[k]);
            $fwrite(sfd, "\ngp");
            for (k = 0; k < NUM_GP_REGS; k = k + 1) $fwrite(sfd, " %h", plena_top.u_core.gp[k]);
            $fwrite(sfd, "\nf");
            for (k = 0; k < NUM_F_REGS; k = k + 1) $fwrite(sfd, " %h", plena_top.u_core.f[k]);
            $fwrite(sfd, "\na");
            for (k = 0; k < NUM_A_REGS; k = k + 1) $fwrite(sfd, " %h", plena_top.u_core.a[k]);
            $fwrite(sfd, "\ncsr %h %h %h\nloops", plena_top.u_core.stride_r,
                    plena_top.u_core.scale_r, plena_top.u_core.vmask_r);
            for (k = 0; k < LOOP_DEPTH; k = k + 1)
                if (k < plena_top.u_core.loop_sp) $fwrite(sfd, " %0d", plena_top.u_core.loop_pc[k]);
            $fwrite(sfd, "\n");
            $fclose(sfd);
        end
    endtask

    // Waiver: file names and handles are simulation bookkeeping, not hardware state.
    /* verilator lint_off BLKSEQ */
    always @(posedge clk) begin
        rst <= 1'b0;
        start <= 1'b0;
        case (hs)
            H_IDLE:
                if (go) begin
                    dir = $sformatf("%0s/job%0d", base, job);
                    fd = $fopen(path("job.txt"), "r");
                    if (fd == 0) $fatal(1, "plena_sim: cannot open %0s", path("job.txt"));
                    nread = $fscanf(fd, "%d %d %d %d", prog_len, max_retire, max_cycles, trace_on);
                    if (nread != 4) $fatal(1, "plena_sim: %0s: expected 4 numbers", path("job.txt"));
                    $fclose(fd);
                    finished <= 1'b0;
                    rst <= 1'b1;
                    hs <= H_LOAD;
                end
            H_LOAD: begin
                $readmemh(path("imem.hex"), plena_top.u_core.imem);
                $readmemh(path("vsram.hex"), plena_top.u_core.vsram);
                $readmemh(path("msram.hex"), plena_top.u_core.u_matrix.msram);
                $readmemh(path("fp_mem.hex"), plena_top.u_core.fp_mem);
                $readmemh(path("int_mem.hex"), plena_top.u_core.int_mem);
`ifdef PLENA_HBM_VERILOG
                for (hz = 0; hz < HBM_SIZE; hz = hz + 1) hbm[hz] = 16'd0;
                $readmemh(path("hbm.hex"), hbm);
`else
                if (plena_hbm_open(path("hbm.bin"), 64'(HBM_SIZE)) != 0)
                    $fatal(1, "plena_sim: cannot map %0s", path("hbm.bin"));
`endif
                if (trace_on != 0) tfd = $fopen(path("trace.txt"), "w");
                start <= 1'b1;
                hs <= H_RUN;
            end
            default:   // H_RUN
                if (done) begin
                    $writememh(path("vsram.out"), plena_top.u_core.vsram);
                    $writememh(path("msram.out"), plena_top.u_core.u_matrix.msram);
                    $writememh(path("fp_mem.out"), plena_top.u_core.fp_mem);
                    $writememh(path("int_mem.out"), plena_top.u_core.int_mem);
                    $writememh(path("mm_acc.out"), plena_top.u_core.u_matrix.mm_acc);
                    $writememh(path("mv_acc.out"), plena_top.u_core.u_matrix.mv_acc);
                    $writememh(path("bmm_acc.out"), plena_top.u_core.u_matrix.bmm_acc);
                    $writememh(path("bmv_acc.out"), plena_top.u_core.u_matrix.bmv_acc);
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
                    hs <= H_IDLE;
                end
        endcase
    end
    /* verilator lint_on BLKSEQ */

    // --- HBM: storage and a fixed-latency response pipeline --------------------------------
    // A write lands when it is accepted; a read takes the contents at that moment.
    assign m_ready = 1'b1;
    reg              p_valid [0:HBM_LATENCY-1];
    reg              p_write [0:HBM_LATENCY-1];
    reg [PW*16-1:0]  p_data  [0:HBM_LATENCY-1];
    reg [VLEN*16-1:0] m_row;
    integer ps;
    assign r_valid = p_valid[HBM_LATENCY-1];
    assign r_write = p_write[HBM_LATENCY-1];
    assign r_data = p_data[HBM_LATENCY-1];
    // Waiver: `m_row` carries the HBM model's output into the pipeline.
    /* verilator lint_off BLKSEQ */
    always @(posedge clk) begin
        // (reset empties the pipeline: Icarus starts it as X, which would stay in the
        // engine's count of outstanding beats)
        for (ps = HBM_LATENCY - 1; ps > 0; ps = ps - 1) begin
            p_valid[ps] <= p_valid[ps - 1] && !rst;
            p_write[ps] <= p_write[ps - 1];
            p_data[ps] <= p_data[ps - 1];
        end
        p_valid[0] <= m_valid && !rst;
        p_write[0] <= m_write;
        m_row = {VLEN*16{1'b0}};
        if (m_valid && !rst) begin
            if (m_write) begin
                m_row[PW*16-1:0] = m_wdata;
                plena_hbm_write(m_addr, m_len, m_row);
            end else
                plena_hbm_read(m_addr, m_len, m_row);
        end
        p_data[0] <= m_row[PW*16-1:0];
    end
    /* verilator lint_on BLKSEQ */

    // --- retirement trace ------------------------------------------------------------
    // After each committed instruction: "R index pc issue_cycle word", then one line
    // "W space address count values..." per thing it wrote (values in hex; rows with
    // their highest element first), read from the storage once the write has landed
    // (the falling edge after the commit). a0/a1 come from the core's trace port.
    localparam integer ROW_ELEMS = VLEN;
    `include "plena_hbm.vh"
    localparam integer HEADS = MLEN / HLEN;
    localparam integer VRW = (VSRAM_ROWS > 1) ? $clog2(VSRAM_ROWS) : 1;
    wire [5:0] t_op = rt_word[OPCODE_LSB +: OPCODE_W];
    wire [3:0] t_rd = rt_word[F_RD_LSB +: F_RD_W];
    wire [VRW-1:0] t_row = VRW'(rt_a0 / VLEN);
    reg [VLEN*16-1:0] t_hbm;
    integer tk;

    // Names are passed as 8-character vectors and the tasks are static: Icarus 11
    // aborts on string arguments of tasks (they print identically on both simulators).
    task t_word(input [63:0] space, input longint adr, input [63:0] value);
        $fwrite(tfd, "W %0s %0d 1 %h\n", space, adr, value);
    endtask
    task t_rows(input longint adr, input integer rows);   // whole Vector SRAM rows
        integer q;
        $fwrite(tfd, "W vsram %0d %0d", adr, rows * VLEN);
        for (q = 0; q < rows; q = q + 1) $fwrite(tfd, " %h", plena_top.u_core.vsram[VRW'($unsigned(adr / 64'(VLEN) + 64'(q)))]);
        $fwrite(tfd, "\n");
    endtask
    task t_loops;   // the loop stack after a loop instruction: its depth, then body pcs
        integer q;
        $fwrite(tfd, "W LOOPS 0 %0d", plena_top.u_core.loop_sp);
        for (q = 0; q < LOOP_DEPTH; q = q + 1)
            if (q < plena_top.u_core.loop_sp) $fwrite(tfd, " %0d", plena_top.u_core.loop_pc[q]);
        $fwrite(tfd, "\n");
    endtask
    task t_acc(input [63:0] name, input integer n);
        integer q;
        $fwrite(tfd, "W %0s 0 %0d", name, n);
        for (q = 0; q < n; q = q + 1)
            case (name)
                "MM_ACC":  $fwrite(tfd, " %h", plena_top.u_core.u_matrix.mm_acc[q]);
                "MV_ACC":  $fwrite(tfd, " %h", plena_top.u_core.u_matrix.mv_acc[q]);
                "BMM_ACC": $fwrite(tfd, " %h", plena_top.u_core.u_matrix.bmm_acc[q]);
                default:   $fwrite(tfd, " %h", plena_top.u_core.u_matrix.bmv_acc[q]);
            endcase
        $fwrite(tfd, "\n");
    endtask

    always @(negedge clk)
        if (rt_valid && tfd != 0) begin
            $fwrite(tfd, "R %0d %0d %0d %h\n", rt_index, rt_pc, rt_cycle, rt_word);
            case (t_op)
                OP_S_ADD_INT, OP_S_ADDI_INT, OP_S_SUB_INT, OP_S_MUL_INT, OP_S_LUI_INT, OP_S_LD_INT:
                    if (t_rd != 0) t_word("gp", 64'(t_rd), 64'(plena_top.u_core.gp[t_rd]));
                OP_C_LOOP_START, OP_C_LOOP_END: begin
                    if (t_rd != 0) t_word("gp", 64'(t_rd), 64'(plena_top.u_core.gp[t_rd]));
                    t_loops();
                end
                OP_S_ST_INT:
                    t_word("int_mem", rt_a0, 64'(plena_top.u_core.int_mem[rt_a0[$clog2(INT_MEM_SIZE)-1:0]]));
                OP_S_ADD_FP, OP_S_SUB_FP, OP_S_MUL_FP, OP_S_MAX_FP, OP_S_EXP_FP, OP_S_RECI_FP,
                OP_S_SQRT_FP, OP_S_LD_FP, OP_V_RED_SUM, OP_V_RED_MAX:
                    if (t_rd[2:0] != 0) t_word("f", 64'(t_rd[2:0]), 64'(plena_top.u_core.f[t_rd[2:0]]));
                OP_S_ST_FP:
                    t_word("fp_mem", rt_a0, 64'(plena_top.u_core.fp_mem[rt_a0[$clog2(FP_MEM_SIZE)-1:0]]));
                OP_S_MAP_V_FP, OP_V_ADD_VV, OP_V_ADD_VF, OP_V_SUB_VV, OP_V_SUB_VF, OP_V_MUL_VV,
                OP_V_MUL_VF, OP_V_MAX_VF, OP_V_MIN_VF, OP_V_EXP_V, OP_V_RECI_V, OP_V_SHFT_V:
                    t_rows(rt_a0, 1);
                OP_V_TOPK:
                    for (tk = 0; tk < (rt_word[F_RMASK_LSB] ? 8 : 4); tk = tk + 1) begin
                        t_word("fp_mem", rt_a0 + 64'(tk), 64'(plena_top.u_core.fp_mem[$clog2(FP_MEM_SIZE)'(rt_a0 + 64'(tk))]));
                        t_word("int_mem", rt_a1 + 64'(tk), 64'(plena_top.u_core.int_mem[$clog2(INT_MEM_SIZE)'(rt_a1 + 64'(tk))]));
                    end
                OP_M_MM, OP_M_TMM: t_acc("MM_ACC", BLEN * BLEN);
                OP_M_MV, OP_M_TMV: t_acc("MV_ACC", MLEN);
                OP_M_BMM, OP_M_BTMM: t_acc("BMM_ACC", HEADS * MLEN * MLEN);
                OP_M_BMV, OP_M_BTMV: t_acc("BMV_ACC", HEADS * MLEN);
                OP_M_MM_WO: begin
                    for (tk = 0; tk < BLEN; tk = tk + 1)
                        $fwrite(tfd, "W vsram %0d %0d %h\n", rt_a0 + 64'(tk * VLEN), BLEN,
                                plena_top.u_core.vsram[t_row + VRW'(tk)][$clog2(VLEN*16)'(16 * (rt_a0 % 64'(VLEN))) +: BLEN*16]);
                    t_acc("MM_ACC", BLEN * BLEN);
                end
                OP_M_MV_WO: begin t_rows(rt_a0, 1); t_acc("MV_ACC", MLEN); end
                OP_M_BMM_WO: begin t_rows(rt_a0, HEADS * MLEN); t_acc("BMM_ACC", HEADS * MLEN * MLEN); end
                OP_M_BMV_WO: begin t_rows(rt_a0, HEADS); t_acc("BMV_ACC", HEADS * MLEN); end
                OP_C_SET_ADDR_REG: t_word("a", 64'(t_rd[2:0]), plena_top.u_core.a[t_rd[2:0]]);
                OP_C_SET_STRIDE_REG: t_word("csr", 0, 64'(plena_top.u_core.stride_r));
                OP_C_SET_SCALE_REG: t_word("csr", 1, 64'(plena_top.u_core.scale_r));
                OP_C_SET_V_MASK_REG: t_word("csr", 2, 64'(plena_top.u_core.vmask_r));
                default: ;
            endcase
        end

    // A transfer's writes, once the DMA engine has made them: "D index" names the
    // retired instruction the following W lines belong to.
    always @(negedge clk)
        if (tfd != 0) begin
            if (dp_valid) begin
                $fwrite(tfd, "D %0d\n", dp_index);
                if (dp_tile) begin
                    $fwrite(tfd, "W msram %0d %0d", dp_addr, MLEN * MLEN);
                    for (tk = 0; tk < MLEN; tk = tk + 1)
                        $fwrite(tfd, " %h", plena_top.u_core.u_matrix.msram[$clog2(MSRAM_TILES * MLEN)'(dp_addr / 64'(MLEN) + 64'(tk))]);
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
        end
endmodule
