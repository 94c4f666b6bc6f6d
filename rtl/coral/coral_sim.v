// Simulation harness of coral_top (not part of the accelerator; the cocotb toplevel):
// runs the jobs the host (simulators/coral_rtl) prepared in <coral_dir>/job<N>/, using
// only coral_top's ports:
//
//   job.txt   end_pc max_retire max_cycles trace        (decimal)
//   load.hex  "sel address word" per line (hex; sel 0 ITCM, 1 DTCM, 2 x, 3 f registers, word
//             addresses): written through the host port, one word per cycle
//
// On `go` it resets the core, loads, waits for `ready`, pulses `start` and waits for
// `done`; then it reads the registers and every DTCM word that was loaded or stored
// (the harness watches loads and the retirement port's stores, in NSEG address
// segments, and the vector unit's DTCM writes) back through the host port into
// state.txt (which has the vector registers, vl, vtype and stall counters too) and dtcm.out ("@word-index"
// lines before each run of words), zeroes those words again for the next job, and
// raises `finished`. With trace = 1 it writes trace.txt from the retirement port:
// "R index pc cycle", then "X rd value", "F rd value", "S address size value", "P flags"
// (raised by a scalar F instruction), "C fflags frm vxrm vxsat" (after a CSR instruction)
// or "L vl vtype" (after vsetvl*) for what the instruction did; and from the vector
// unit's trace port, tagged with the vector instruction's number in dispatch order:
// "V n reg value" (a register write), "M n regs" (registers marked all-ones, a bit
// mask), "G n flags" (fp flags raised; 32: vxsat set), "W n offset value" (a DTCM word stored).
//
// The clock (period 2 ns) runs here, inside the simulator: no host call per cycle.
module coral_sim #(
    parameter integer ITCM_SIZE = 8192,
    parameter [31:0]  DTCM_BASE = 32'h0001_0000,
    parameter integer DTCM_SIZE = 65536,
    parameter integer VLEN      = 128,
    parameter integer VQ_DEPTH  = 8
) (
    input  wire [31:0] job      /*verilator public_flat_rw*/,
    input  wire        go       /*verilator public_flat_rw*/,
    input  wire        halt     /*verilator public_flat_rw*/,
    output reg         finished /*verilator public_flat_rw*/
);
    localparam integer DTCM_WORDS = DTCM_SIZE / 4;
    localparam integer NSEG = 16;
    localparam integer SEG = (DTCM_WORDS + NSEG - 1) / NSEG;
    localparam integer NB = VLEN / 32;
    localparam integer RA = $clog2(DTCM_WORDS) - $clog2(NB);
    localparam integer NREG = 64 + 32 * (VLEN / 32);   // x, f, then the vector registers' words

    reg clk;
    initial clk = 1'b0;
    always #1 clk = ~clk;

    reg         rst, host_en, host_we, start;
    reg  [1:0]  host_sel;
    reg  [31:0] host_addr, host_wdata, end_pc;
    reg  [63:0] max_retire, max_cycles;
    wire [31:0] host_rdata, err_pc, err_addr, rt_pc, rt_rd_val, rt_st_addr, rt_st_data;
    wire        ready, running, done, rt_valid, rt_rd_we, rt_fd_we, rt_st, rt_csr, rt_vset, vxsat, vt_we;
    wire [4:0]  rt_fpf, vt_reg;
    wire [5:0]  vt_flags;
    wire [31:0] vt_s1seq, vt_s2seq, vt_marks;
    wire [VLEN-1:0] vst_wdata, vt_val;
    wire [1:0]  stop, vxrm;
    wire [3:0]  err_code;
    wire [63:0] err_cycle, cycles, retired, rt_cycle, stall_full, stall_sync;
    wire [12*64-1:0] unit_busy;
    wire [$clog2(VLEN):0] vl;
    wire [31:0] vtype;
    wire [4*NB-1:0]  vst_we;
    wire [3:0]       vst_xwe;
    wire [$clog2(DTCM_WORDS)-1:0] vst_xword;
    wire [31:0]      vst_xdata;
    wire [RA*NB-1:0] vst_row;
    wire [4:0]  fflags, rt_rd;
    wire [2:0]  frm, rt_st_size;

    coral_top #(.ITCM_SIZE(ITCM_SIZE), .DTCM_BASE(DTCM_BASE), .DTCM_SIZE(DTCM_SIZE),
                .VLEN(VLEN), .VQ_DEPTH(VQ_DEPTH)) u_top (
        .clk(clk), .rst(rst), .host_en(host_en), .host_we(host_we), .host_sel(host_sel),
        .host_addr(host_addr), .host_wdata(host_wdata), .host_rdata(host_rdata),
        .start(start), .end_pc(end_pc), .max_retire(max_retire), .max_cycles(max_cycles),
        .halt(halt), .ready(ready), .running(running), .done(done), .stop(stop),
        .err_code(err_code), .err_pc(err_pc), .err_addr(err_addr), .err_cycle(err_cycle),
        .cycles(cycles), .retired(retired), .unit_busy(unit_busy),
        .stall_full(stall_full), .stall_sync(stall_sync), .vl(vl), .vtype(vtype), .fflags(fflags), .frm(frm),
        .vxrm(vxrm), .vxsat(vxsat), .rt_valid(rt_valid), .rt_pc(rt_pc), .rt_cycle(rt_cycle),
        .rt_rd_we(rt_rd_we), .rt_fd_we(rt_fd_we), .rt_rd(rt_rd), .rt_rd_val(rt_rd_val), .rt_st(rt_st),
        .rt_st_addr(rt_st_addr), .rt_st_size(rt_st_size), .rt_st_data(rt_st_data),
        .rt_csr(rt_csr), .rt_fpf(rt_fpf), .rt_vset(rt_vset), .vst_we(vst_we), .vst_row(vst_row),
        .vst_wdata(vst_wdata), .vst_xwe(vst_xwe), .vst_xword(vst_xword), .vst_xdata(vst_xdata), .vt_s1seq(vt_s1seq), .vt_s2seq(vt_s2seq), .vt_we(vt_we), .vt_reg(vt_reg),
        .vt_val(vt_val), .vt_marks(vt_marks), .vt_flags(vt_flags));

    wire _unused = running;
    localparam [3:0] H_IDLE = 0, H_LOAD = 1, H_READY = 2, H_RUN = 3, H_REGS = 4, H_MEM = 5,
                     H_CLEAR = 6, H_FINISH = 7;
    reg [3:0] hs;
    string base, dir;
    integer fd, ofd, tfd, nread, trace_on, k, seg;
    reg [31:0] sel_in, addr_in, word_in, idx;
    reg [31:0] xr [0:NREG-1];            // x0..x31, f0..f31, vector register words
    reg [31:0] seg_lo [0:NSEG-1];
    reg [31:0] seg_hi [0:NSEG-1];
    reg        seg_any [0:NSEG-1];
    reg        csr_pending, vset_pending, p1, p2, p1_new, p2_new;
    reg [31:0] p1_addr, p2_addr;

    function automatic string path(input string name);
        path = $sformatf("%0s/%0s", dir, name);
    endfunction

    task automatic mark(input [31:0] w);
        /* verilator lint_off UNUSEDSIGNAL */
        integer s;                          // a segment index: its high bits stay 0
        /* verilator lint_on UNUSEDSIGNAL */
        begin
            s = w / SEG;
            if (!seg_any[s] || w < seg_lo[s]) seg_lo[s] = w;
            if (!seg_any[s] || w > seg_hi[s]) seg_hi[s] = w;
            seg_any[s] = 1'b1;
        end
    endtask

    // the next segment with words to visit, from `seg` on (NSEG when none is left)
    task automatic next_seg;
        while (seg < NSEG && !seg_any[seg]) seg = seg + 1;
    endtask

    task automatic write_state;
        integer sfd, q;
        begin
            sfd = $fopen(path("state.txt"), "w");
            $fwrite(sfd, "stop %0d\nerr_code %0d\nerr_pc %0d\nerr_addr %0d\nerr_cycle %0d\n",
                    stop, err_code, err_pc, err_addr, err_cycle);
            $fwrite(sfd, "cycles %0d\nretired %0d\nunit_busy", cycles, retired);
            for (q = 0; q < 12; q = q + 1) $fwrite(sfd, " %0d", unit_busy[64*q +: 64]);
            $fwrite(sfd, "\nstalls %0d %0d\nvcfg %0d %0d", stall_full, stall_sync, vl, vtype);
            $fwrite(sfd, "\nfcsr %0d %0d %0d %0d\nx", fflags, frm, vxrm, vxsat);
            for (q = 0; q < 32; q = q + 1) $fwrite(sfd, " %h", xr[q]);
            $fwrite(sfd, "\nf");
            for (q = 32; q < 64; q = q + 1) $fwrite(sfd, " %h", xr[q]);
            $fwrite(sfd, "\nv");
            for (q = 64; q < NREG; q = q + 1) $fwrite(sfd, " %h", xr[q]);
            $fwrite(sfd, "\n");
            $fclose(sfd);
        end
    endtask

    initial begin
        if (!$value$plusargs("coral_dir=%s", base)) base = ".";
        hs = H_IDLE;
        finished = 1'b0;
        rst = 1'b0;
        start = 1'b0;
        host_en = 1'b0;
        host_we = 1'b0;
        host_sel = 2'd0;
        trace_on = 0;
        tfd = 0;
        csr_pending = 1'b0;
        vset_pending = 1'b0;
        for (k = 0; k < NSEG; k = k + 1) seg_any[k] = 1'b0;
    end

    // Waiver: file handles and bookkeeping are simulation-only, not hardware state.
    /* verilator lint_off BLKSEQ */
    always @(posedge clk) begin
        rst <= 1'b0;
        start <= 1'b0;
        case (hs)
            H_IDLE:
                if (go) begin
                    dir = $sformatf("%0s/job%0d", base, job);
                    fd = $fopen(path("job.txt"), "r");
                    if (fd == 0) $fatal(1, "coral_sim: cannot open %0s", path("job.txt"));
                    nread = $fscanf(fd, "%d %d %d %d", end_pc, max_retire, max_cycles, trace_on);
                    if (nread != 4) $fatal(1, "coral_sim: %0s: expected 4 numbers", path("job.txt"));
                    $fclose(fd);
                    fd = $fopen(path("load.hex"), "r");
                    if (fd == 0) $fatal(1, "coral_sim: cannot open %0s", path("load.hex"));
                    finished <= 1'b0;
                    rst <= 1'b1;
                    hs <= H_LOAD;
                end
            H_LOAD: begin
                nread = $fscanf(fd, "%h %h %h", sel_in, addr_in, word_in);
                if (nread == 3) begin
                    host_en <= 1'b1;
                    host_we <= 1'b1;
                    host_sel <= sel_in[1:0];
                    host_addr <= addr_in;
                    host_wdata <= word_in;
                    if (sel_in == 32'd1) mark(addr_in);
                end else begin
                    $fclose(fd);
                    host_en <= 1'b0;
                    host_we <= 1'b0;
                    if (trace_on != 0) tfd = $fopen(path("trace.txt"), "w");
                    hs <= H_READY;
                end
            end
            H_READY:
                if (ready) begin
                    start <= 1'b1;
                    hs <= H_RUN;
                end
            H_RUN:
                if (done && !start) begin
                    idx = 0;
                    host_en <= 1'b1;
                    host_we <= 1'b0;
                    host_sel <= 2'd2;
                    host_addr <= 32'd0;
                    hs <= H_REGS;
                end
            H_REGS: begin                     // a read per cycle; its data two edges later
                if (idx >= 2) xr[idx - 2] = host_rdata;
                if (idx < NREG) begin
                    host_sel <= idx < 32 ? 2'd2 : idx < 64 ? 2'd3 : 2'd2;
                    host_addr <= idx < 64 ? idx & 32'd31 : 32'h1_0000 + idx - 64;
                end
                if (idx == NREG + 1) begin
                    host_en <= 1'b0;
                    ofd = $fopen(path("dtcm.out"), "w");
                    seg = 0;
                    next_seg();
                    if (seg < NSEG) idx = seg_lo[seg];
                    p1 = 1'b0;
                    p2 = 1'b0;
                    hs <= H_MEM;
                end else idx = idx + 1;
            end
            H_MEM: begin
                if (p2) begin
                    if (p2_new) $fwrite(ofd, "@%h\n", p2_addr);
                    $fwrite(ofd, "%h\n", host_rdata);
                end
                p2 = p1;
                p2_new = p1_new;
                p2_addr = p1_addr;
                if (seg < NSEG) begin
                    host_en <= 1'b1;
                    host_sel <= 2'd1;
                    host_addr <= idx;
                    p1 = 1'b1;
                    p1_new = idx == seg_lo[seg];
                    p1_addr = idx;
                    if (idx >= seg_hi[seg]) begin
                        seg = seg + 1;
                        next_seg();
                        if (seg < NSEG) idx = seg_lo[seg];
                    end else idx = idx + 1;
                end else begin
                    p1 = 1'b0;
                    host_en <= 1'b0;
                    if (!p2) hs <= H_CLEAR;
                end
            end
            H_CLEAR: begin                    // zero what this job touched, for the next
                if (ofd != 0) begin
                    $fclose(ofd);
                    ofd = 0;
                    write_state();
                    seg = 0;
                    next_seg();
                    idx = seg < NSEG ? seg_lo[seg] : 0;
                end
                if (seg < NSEG) begin
                    host_en <= 1'b1;
                    host_we <= 1'b1;
                    host_sel <= 2'd1;
                    host_addr <= idx;
                    host_wdata <= 32'd0;
                    if (idx >= seg_hi[seg]) begin
                        seg_any[seg] = 1'b0;
                        seg = seg + 1;
                        next_seg();
                        if (seg < NSEG) idx = seg_lo[seg];
                    end else idx = idx + 1;
                end else begin
                    host_en <= 1'b0;
                    host_we <= 1'b0;
                    hs <= H_FINISH;
                end
            end
            default: begin                    // H_FINISH
                if (tfd != 0) begin
                    $fclose(tfd);
                    tfd = 0;
                end
                finished <= 1'b1;
                hs <= H_IDLE;
            end
        endcase
        if (rt_valid && rt_st) mark((rt_st_addr - DTCM_BASE) >> 2);
        for (k = 0; k < NB; k = k + 1)
            if (vst_we[4*k +: 4] != 4'd0) mark(vst_row[RA*k +: RA] * NB + k);
        if (vst_xwe != 4'd0) mark(32'(vst_xword));
        if (rt_valid && tfd != 0) begin
            $fwrite(tfd, "R %0d %0d %0d\n", retired, rt_pc >> 2, rt_cycle);
            if (rt_rd_we) $fwrite(tfd, "X %0d %h\n", rt_rd, rt_rd_val);
            if (rt_fd_we) $fwrite(tfd, "F %0d %h\n", rt_rd, rt_rd_val);
            if (rt_st) $fwrite(tfd, "S %0d %0d %h\n", rt_st_addr - DTCM_BASE, rt_st_size, rt_st_data);
            if (rt_fpf != 5'd0) $fwrite(tfd, "P %0d\n", rt_fpf);
            csr_pending = rt_csr;
            vset_pending = rt_vset;
        end
        if (tfd != 0) begin
            if (vt_we) $fwrite(tfd, "V %0d %0d %h\n", vt_s2seq, vt_reg, vt_val);
            if (vt_marks != 32'd0) $fwrite(tfd, "M %0d %h\n", vt_s2seq, vt_marks);
            if (vt_flags != 6'd0) $fwrite(tfd, "G %0d %0d\n", vt_s2seq, vt_flags);
            for (k = 0; k < NB; k = k + 1)
                if (vst_we[4*k +: 4] != 4'd0)
                    $fwrite(tfd, "W %0d %0d %h %h\n", vt_s1seq, 4 * (vst_row[RA*k +: RA] * NB + k), vst_wdata[32*k +: 32],
                            vst_we[4*k +: 4]);
            if (vst_xwe != 4'd0) $fwrite(tfd, "W %0d %0d %h %h\n", vt_s1seq, 4 * 32'(vst_xword), vst_xdata, vst_xwe);
        end
    end

    always @(negedge clk)
        if (csr_pending && tfd != 0) begin
            $fwrite(tfd, "C %0d %0d %0d %0d\n", fflags, frm, vxrm, vxsat);
            csr_pending = 1'b0;
        end
    always @(negedge clk)
        if (vset_pending && tfd != 0) begin
            $fwrite(tfd, "L %0d %0d\n", vl, vtype);
            vset_pending = 1'b0;
        end
    /* verilator lint_on BLKSEQ */
endmodule
