// aie_sim: simulation harness of aie_top (not part of the tile), the top module the
// simulators build. It runs jobs that simulators/aie_rtl prepared in <aie_dir>/job<N>/:
//
//   job.txt    prog_len max_retire max_cycles trace      (decimal)
//   imem.hex   program words, one per line
//   dm.hex     data memory, one 32-byte row per line (byte 0 in the low bits)
//
// On `go` it loads the program and data memory through aie_top's host ports (one
// word and one row per cycle), starts the core and waits for `done`, then reads data
// memory and every register and counter back through the same ports and writes
// dm.out (rows) and state.txt (name value... lines). With trace = 1 it writes trace.txt:
// "R index bundle cycle" per issued bundle, from the retirement port. It uses no
// hierarchical references into the tile. The clock runs here (period 2 ns).
module aie_sim #(
`include "aie_params.vh"
) (
    input  wire [31:0] job      /*verilator public_flat_rw*/,
    input  wire        go       /*verilator public_flat_rw*/,
    input  wire        halt     /*verilator public_flat_rw*/,
    output reg         finished /*verilator public_flat_rw*/
);
    localparam integer IAW = $clog2(IMEM_WORDS);
    localparam integer RW = $clog2(DM_SIZE) - 5;
    localparam integer ROWS = DM_SIZE / 32;
    localparam integer NREG = 156;                  // scalar register/counter words
    localparam integer NX = 16 * 16, NACC = 8 * 32; // vector and accumulator words

    reg clk;
    initial clk = 1'b0;
    always #1 clk = ~clk;

    reg            rst, start, imem_we, dm_v, dm_we;
    reg  [IAW-1:0] imem_addr;
    reg  [31:0]    imem_wdata, prog_len;
    reg  [63:0]    max_retire, max_cycles;
    reg  [RW-1:0]  dm_row;
    reg  [255:0]   dm_wdata;
    wire [255:0]   dm_rdata;
    reg  [11:0]    reg_addr;
    wire [31:0]    reg_data;
    wire           done, rt_valid;
    wire [63:0]    rt_index, rt_cycle;
    wire [31:0]    rt_bundle;

    aie_top #(
        .DM_SIZE(DM_SIZE), .DM_BANKS(DM_BANKS), .EXT_SIZE(EXT_SIZE), .IMEM_WORDS(IMEM_WORDS),
        .LOOP_DEPTH(LOOP_DEPTH), .DMA_QUEUE(DMA_QUEUE), .DMA_BW(DMA_BW), .DMA_SETUP(DMA_SETUP),
        .EXT_LATENCY(EXT_LATENCY), .LOAD_LATENCY(LOAD_LATENCY), .MUL_LATENCY(MUL_LATENCY),
        .MAC_LATENCY(MAC_LATENCY), .ACC_FORWARD(ACC_FORWARD), .ACC_LATENCY(ACC_LATENCY),
        .FMUL_LATENCY(FMUL_LATENCY), .SRS_LATENCY(SRS_LATENCY), .UPS_LATENCY(UPS_LATENCY),
        .VALU_LATENCY(VALU_LATENCY), .SHUFFLE_LATENCY(SHUFFLE_LATENCY),
        .REDUCE_LATENCY(REDUCE_LATENCY), .PWL_LATENCY(PWL_LATENCY)
    ) u_top (
        .clk(clk), .rst(rst), .host_imem_we(imem_we), .host_imem_addr(imem_addr),
        .host_imem_wdata(imem_wdata), .host_start(start), .host_prog_len(prog_len),
        .host_max_retire(max_retire), .host_max_cycles(max_cycles), .host_halt(halt),
        .done(done), .host_dm_v(dm_v), .host_dm_we(dm_we), .host_dm_row(dm_row),
        .host_dm_wdata(dm_wdata), .host_dm_rdata(dm_rdata), .host_reg_addr(reg_addr),
        .host_reg_data(reg_data), .rt_valid(rt_valid), .rt_index(rt_index),
        .rt_bundle(rt_bundle), .rt_cycle(rt_cycle)
    );

    // the job's images, read from files (simulation storage outside the tile)
    reg [31:0]  prog [0:IMEM_WORDS-1];
    reg [255:0] rows [0:ROWS-1];

    localparam [2:0] H_IDLE = 0, H_LOAD = 1, H_START = 2, H_RUN = 3, H_REGS = 4, H_DM = 5,
                     H_DONE = 6;
    reg [2:0] hs;
    integer n, fd, nread, trace_on, tfd, sfd;
    string base, dir;

    initial begin
        if (!$value$plusargs("aie_dir=%s", base)) base = ".";
        hs = H_IDLE; finished = 1'b0; rst = 1'b0; start = 1'b0; imem_we = 1'b0; dm_v = 1'b0;
        dm_we = 1'b0; trace_on = 0; tfd = 0; sfd = 0; reg_addr = 12'd0;
    end

    function automatic string path(input string name);
        path = $sformatf("%0s/%0s", dir, name);
    endfunction

    // Waiver: file names, handles and counters are bookkeeping, not hardware.
    /* verilator lint_off BLKSEQ */
    always @(posedge clk) begin
        rst <= 1'b0;
        start <= 1'b0;
        imem_we <= 1'b0;
        dm_v <= 1'b0;
        dm_we <= 1'b0;
        case (hs)
            H_IDLE:
                if (go) begin
                    dir = $sformatf("%0s/job%0d", base, job);
                    fd = $fopen(path("job.txt"), "r");
                    if (fd == 0) $fatal(1, "aie_sim: cannot open %0s", path("job.txt"));
                    nread = $fscanf(fd, "%d %d %d %d", prog_len, max_retire, max_cycles, trace_on);
                    if (nread != 4) $fatal(1, "aie_sim: %0s: expected 4 numbers", path("job.txt"));
                    $fclose(fd);
                    for (n = 0; n < IMEM_WORDS; n = n + 1) prog[n] = 32'd0;
                    $readmemh(path("imem.hex"), prog);
                    $readmemh(path("dm.hex"), rows);
                    finished <= 1'b0;
                    rst <= 1'b1;
                    n = 0;
                    hs <= H_LOAD;
                end
            H_LOAD:                     // one program word and one data row per cycle
                if (n < IMEM_WORDS || n < ROWS) begin
                    if (n < IMEM_WORDS) begin
                        imem_we <= 1'b1; imem_addr <= IAW'(n); imem_wdata <= prog[n];
                    end
                    if (n < ROWS) begin
                        dm_v <= 1'b1; dm_we <= 1'b1; dm_row <= RW'(n); dm_wdata <= rows[n];
                    end
                    n = n + 1;
                end else begin
                    if (trace_on != 0) tfd = $fopen(path("trace.txt"), "w");
                    hs <= H_START;
                end
            H_START: begin               // a cycle for the last writes to land
                start <= 1'b1;
                hs <= H_RUN;
            end
            H_RUN:
                if (done && !start) begin
                    if (tfd != 0) begin $fclose(tfd); tfd = 0; end
                    sfd = $fopen(path("state.txt"), "w");
                    n = 0;
                    reg_addr <= 12'd0;
                    hs <= H_REGS;
                end
            H_REGS: begin               // reg_data answers reg_addr combinationally
                if (n < NREG) $fwrite(sfd, "reg %0d %h\n", n, reg_data);
                else if (n < NREG + NX) $fwrite(sfd, "x %0d %h\n", n - NREG, reg_data);
                else $fwrite(sfd, "acc %0d %h\n", n - NREG - NX, reg_data);
                n = n + 1;
                if (n < NREG) reg_addr <= 12'(n);
                else if (n < NREG + NX) reg_addr <= 12'h400 + 12'(n - NREG);
                else if (n < NREG + NX + NACC) reg_addr <= 12'h800 + 12'(n - NREG - NX);
                else begin
                    $fclose(sfd);
                    sfd = $fopen(path("dm.out"), "w");
                    n = 0;
                    hs <= H_DM;
                end
            end
            H_DM: begin                 // request row n, write the row requested before
                if (n >= 2) $fwrite(sfd, "%h\n", dm_rdata);
                if (n < ROWS) begin dm_v <= 1'b1; dm_row <= RW'(n); end
                n = n + 1;
                if (n == ROWS + 2) begin
                    $fclose(sfd);
                    hs <= H_DONE;
                end
            end
            default: begin
                finished <= 1'b1;
                hs <= H_IDLE;
            end
        endcase
    end

    always @(negedge clk)
        if (rt_valid && tfd != 0) $fwrite(tfd, "R %0d %0d %0d\n", rt_index, rt_bundle, rt_cycle);
    /* verilator lint_on BLKSEQ */
endmodule
