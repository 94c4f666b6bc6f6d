// aie_sim: simulation harness of aie_top (not part of the tile), the top module the
// simulators build. It runs jobs that simulators/aie_rtl prepared in <aie_dir>/job<N>/:
//
//   job.txt    prog_len max_retire max_cycles trace ext_len      (decimal)
//   imem.hex   program words, one per line
//   dm.hex     data memory, one 32-byte row per line (byte 0 in the low bits)
//   bd.hex     the DMA descriptor table, 256 words (16 per descriptor)
//   ext.hex    external memory words 0 .. ext_len-1 (the rest is zero)
//
// External memory is this harness's: storage (ext_mem) behind the tile's four DMA
// ports, always ready, answering a read EXT_LATENCY cycles after its request and
// acknowledging a write EXT_LATENCY - 1 cycles after it (a write request leaves the
// tile a cycle after its beat read data memory, so both count EXT_LATENCY from the
// beat). After the run it writes ext.out: words 0 up to the highest word loaded or
// written.
//
// On `go` it loads the program and data memory through aie_top's host ports (one
// word and one row per cycle), starts the core and waits for `done`, then reads data
// memory and every register and counter back through the same ports and writes
// dm.out (rows) and state.txt (name value... lines). With trace = 1 it writes trace.txt:
// "R index bundle cycle" per issued bundle, from the retirement port. It uses no
// hierarchical references into the tile. The clock runs here (period 2 ns), so a
// cocotb run costs no host call per cycle. With the plusarg +bulk_clk_in it comes from
// `clk_in` instead, which bulk mode's C++ driver (simulators/rtl/bulk_main.cpp, shared
// with plena_sim) toggles every time unit, the same edges at the same times: no delay of
// the timing scheduler and no process resumed per edge.
module aie_sim #(
`include "aie_params.vh"
) (
    input  wire        clk_in,      // the clock from outside, with +bulk_clk_in
    input  wire [31:0] job      /*verilator public_flat_rw*/,
    input  wire        go       /*verilator public_flat_rw*/,
    input  wire        halt     /*verilator public_flat_rw*/,
    output reg         finished /*verilator public_flat_rw*/
);
    localparam integer IAW = $clog2(IMEM_WORDS);
    localparam integer RW = $clog2(DM_SIZE) - 5;
    localparam integer ROWS = DM_SIZE / 32;
    localparam integer NREG = 176;                  // scalar register/counter words
    localparam integer BB = DMA_BW * 8;
    localparam integer LD = 1 << $clog2(EXT_LATENCY + 1);   // response slots per port
    localparam integer LDW = $clog2(LD);
    localparam integer NX = 16 * 16, NACC = 8 * 32; // vector and accumulator words

    reg clk_gen, clk_ext;
    initial clk_gen = 1'b0;
    initial begin
        clk_ext = $test$plusargs("bulk_clk_in") != 0;
        if (!clk_ext) forever #1 clk_gen = ~clk_gen;
    end
    wire clk = clk_ext ? clk_in : clk_gen;

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
    reg            bd_we;
    reg  [7:0]     bd_addr;
    reg  [31:0]    bd_wdata;
    wire [3:0]     ext_valid, ext_write;
    wire [4*BB*2-1:0] ext_addr;            // per channel, each word's address
    wire [31:0]    ext_len;
    wire [4*BB-1:0] ext_wdata;
    reg  [3:0]     ext_rvalid, ext_bvalid;
    reg  [4*BB-1:0] ext_rdata;

    // `halt` comes from outside the simulation at any moment; registered, it changes only
    // just after a rising edge like the tile's other inputs, so the logic behind it (the
    // core's issue decision, aie_dm's routing) runs with the clocked logic and not at every
    // evaluation of the model, as an input's fan-out does under Verilator. A wall-clock
    // stop takes effect a cycle later, which nothing can observe.
    reg halt_q;
    initial halt_q = 1'b0;
    always @(posedge clk) halt_q <= halt;

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
        .host_max_retire(max_retire), .host_max_cycles(max_cycles), .host_halt(halt_q),
        .done(done), .host_dm_v(dm_v), .host_dm_we(dm_we), .host_dm_row(dm_row),
        .host_dm_wdata(dm_wdata), .host_dm_rdata(dm_rdata), .host_reg_addr(reg_addr),
        .host_reg_data(reg_data), .rt_valid(rt_valid), .rt_index(rt_index),
        .rt_bundle(rt_bundle), .rt_cycle(rt_cycle),
        .host_bd_we(bd_we), .host_bd_addr(bd_addr), .host_bd_wdata(bd_wdata),
        .ext_valid(ext_valid), .ext_ready(4'b1111), .ext_write(ext_write), .ext_addr(ext_addr),
        .ext_len(ext_len), .ext_wdata(ext_wdata), .ext_rvalid(ext_rvalid),
        .ext_rdata(ext_rdata), .ext_bvalid(ext_bvalid)
    );

    // --- external memory: storage and the ports' response slots ------------------------
    reg [15:0]  ext_mem [0:EXT_SIZE-1];
    reg [BB-1:0] r_slot [0:3][0:LD-1];
    reg          r_sv   [0:3][0:LD-1];
    reg          b_sv   [0:3][0:LD-1];
    reg [LDW-1:0] tick;
    reg [63:0]   ext_hw;                 // words 0 .. ext_hw-1 may be nonzero
    reg [BB-1:0] rbeat;
    integer ec, ew, ez;
    initial begin
        tick = '0; ext_hw = 64'd0;
        for (ez = 0; ez < LD; ez = ez + 1)
            for (ec = 0; ec < 4; ec = ec + 1) begin r_sv[ec][ez] = 1'b0; b_sv[ec][ez] = 1'b0; end
    end
    always @* begin
        for (ec = 0; ec < 4; ec = ec + 1) begin
            ext_rvalid[ec] = r_sv[ec][tick];
            ext_bvalid[ec] = b_sv[ec][tick];
            ext_rdata[BB*ec +: BB] = r_slot[ec][tick];
        end
    end


    // the job's images, read from files (simulation storage outside the tile)
    reg [31:0]  prog [0:IMEM_WORDS-1];
    reg [255:0] rows [0:ROWS-1];
    reg [31:0]  bds [0:255];
    reg [63:0]  ext_len_in;

    localparam [2:0] H_IDLE = 0, H_LOAD = 1, H_START = 2, H_RUN = 3, H_REGS = 4, H_DM = 5,
                     H_DONE = 6;
    reg [2:0] hs;
    integer n, fd, nread, trace_on, tfd, sfd;
    string base, dir;

    initial begin
        if (!$value$plusargs("aie_dir=%s", base)) base = ".";
        hs = H_IDLE; finished = 1'b0; rst = 1'b0; start = 1'b0; imem_we = 1'b0; dm_v = 1'b0;
        dm_we = 1'b0; trace_on = 0; tfd = 0; sfd = 0; reg_addr = 12'd0; bd_we = 1'b0;
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
        bd_we <= 1'b0;
        // the external memory's ports
        tick <= tick + 1'b1;
        for (ec = 0; ec < 4; ec = ec + 1) begin
            r_sv[ec][tick] <= 1'b0;
            b_sv[ec][tick] <= 1'b0;
            if (ext_valid[ec]) begin
                if (ext_write[ec]) begin
                    for (ew = 0; ew < BB / 16; ew = ew + 1)
                        if (ew < ext_len[8*ec +: 8]) begin
                            ext_mem[ext_addr[BB*2*ec + 32*ew +: 32]] = ext_wdata[BB*ec + 16*ew +: 16];
                            if (64'(ext_addr[BB*2*ec + 32*ew +: 32]) + 64'd1 > ext_hw)
                                ext_hw = 64'(ext_addr[BB*2*ec + 32*ew +: 32]) + 64'd1;
                        end
                    b_sv[ec][LDW'(tick + LDW'(EXT_LATENCY - 1))] <= 1'b1;
                end else begin
                    rbeat = '0;
                    for (ew = 0; ew < BB / 16; ew = ew + 1)
                        if (ew < ext_len[8*ec +: 8]) rbeat[16*ew +: 16] = ext_mem[ext_addr[BB*2*ec + 32*ew +: 32]];
                    r_slot[ec][LDW'(tick + LDW'(EXT_LATENCY))] <= rbeat;
                    r_sv[ec][LDW'(tick + LDW'(EXT_LATENCY))] <= 1'b1;
                end
            end
        end
        case (hs)
            H_IDLE:
                if (go) begin
                    dir = $sformatf("%0s/job%0d", base, job);
                    fd = $fopen(path("job.txt"), "r");
                    if (fd == 0) $fatal(1, "aie_sim: cannot open %0s", path("job.txt"));
                    nread = $fscanf(fd, "%d %d %d %d %d", prog_len, max_retire, max_cycles, trace_on, ext_len_in);
                    if (nread != 5) $fatal(1, "aie_sim: %0s: expected 5 numbers", path("job.txt"));
                    $fclose(fd);
                    for (n = 0; n < IMEM_WORDS; n = n + 1) prog[n] = 32'd0;
                    $readmemh(path("imem.hex"), prog);
                    $readmemh(path("dm.hex"), rows);
                    $readmemh(path("bd.hex"), bds);
                    for (ez = 0; 64'(ez) < ext_hw; ez = ez + 1) ext_mem[ez] = 16'd0;
                    if (ext_len_in != 0) $readmemh(path("ext.hex"), ext_mem, 0, 32'(ext_len_in - 1));
                    ext_hw = ext_len_in;
                    finished <= 1'b0;
                    rst <= 1'b1;
                    n = 0;
                    hs <= H_LOAD;
                end
            H_LOAD:                     // one program word and one data row per cycle
                if (n < IMEM_WORDS || n < ROWS || n < 256) begin
                    if (n < 256) begin
                        bd_we <= 1'b1; bd_addr <= 8'(n); bd_wdata <= bds[n];
                    end
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
                    sfd = $fopen(path("ext.out"), "w");
                    for (ez = 0; 64'(ez) < ext_hw; ez = ez + 1) $fwrite(sfd, "%h\n", ext_mem[ez]);
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
