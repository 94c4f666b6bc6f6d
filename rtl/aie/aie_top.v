// aie_top: the aie tile as hardware: the core, its instruction memory, its banked data
// memory and its DMA engine (with four external-memory ports, valid/ready), with a host
// interface for everything outside the tile (the simulation
// harness aie_sim, or a system bus): program and DMA descriptor load, data-memory access (one 32-byte row
// per cycle, reads answered the next cycle), start, done, and register/counter reads.
// The host touches memory only while the core is idle. Parameters: the hardware
// configuration of isa/aie/hardware.toml (defaults generated into aie_params.vh).
module aie_top #(
`include "aie_params.vh"
) (
    input  wire           clk,
    input  wire           rst,
    // program and run control
    input  wire           host_imem_we,
    input  wire [IAW-1:0] host_imem_addr,
    input  wire [31:0]    host_imem_wdata,
    input  wire           host_start,
    input  wire [31:0]    host_prog_len,
    input  wire [63:0]    host_max_retire,
    input  wire [63:0]    host_max_cycles,
    input  wire           host_halt,
    output wire           done,
    // data memory
    input  wire           host_dm_v,
    input  wire           host_dm_we,
    input  wire [RW-1:0]  host_dm_row,
    input  wire [255:0]   host_dm_wdata,
    output wire [255:0]   host_dm_rdata,
    // DMA descriptors (word f of descriptor b at 16*b + f)
    input  wire           host_bd_we,
    input  wire [7:0]     host_bd_addr,
    input  wire [31:0]    host_bd_wdata,
    // external memory: a port per DMA channel (in0, in1, out0, out1)
    output wire [3:0]     ext_valid,
    input  wire [3:0]     ext_ready,
    output wire [3:0]     ext_write,
    output wire [4*DMA_BW*16-1:0] ext_addr,   // each word's address
    output wire [31:0]    ext_len,
    output wire [4*DMA_BW*8-1:0] ext_wdata,
    input  wire [3:0]     ext_rvalid,
    input  wire [4*DMA_BW*8-1:0] ext_rdata,
    input  wire [3:0]     ext_bvalid,
    // registers and counters
    input  wire [11:0]    host_reg_addr,
    output wire [31:0]    host_reg_data,
    // retirement trace
    output wire           rt_valid,
    output wire [63:0]    rt_index,
    output wire [31:0]    rt_bundle,
    output wire [63:0]    rt_cycle
);
    localparam integer IAW = $clog2(IMEM_WORDS);
    localparam integer RW = $clog2(DM_SIZE) - 5;

    wire [IAW-1:0] imem_raddr;
    wire [255:0]   imem_rdata;
    wire [2:0]     c_v, c_we, c_cand;
    wire           c_wait;
    wire [3*RW-1:0] c_row;
    wire [8:0]     c_nrows;
    wire [383:0]   c_be;
    wire [3071:0]  c_wdata;
    wire [8191:0]  rdata;
    // the core's DMA side
    wire           q_out, q_ch, q_push, q_full, dma_idle, dma_empty, collide, dma_wide;
    wire [3:0]     q_bd, rel_v;
    wire signed [31:0] q_ra, q_rb;
    wire [1:0]     q_err;
    wire signed [63:0] q_eaddr;
    wire [15:0]    rel_l;
    wire [23:0]    rel_n;
    wire [255:0]   dma_busy;
    wire [143:0]   dma_pend;
    wire [95:0]    lk, lk_q, lk_a;              // locks: the core's, after the DMA's acquires
    wire           core_rel_v, dma_quiet, dma_halt;
    wire [3:0]     core_rel_l;
    wire [5:0]     core_rel_n;
    wire [3:0]     d_v, d_we;
    wire [4*RW-1:0] d_row;
    wire [11:0]    d_nrows;
    wire [511:0]   d_be;
    wire [4095:0]  d_wdata;

    aie_core #(
        .DM_SIZE(DM_SIZE), .DM_BANKS(DM_BANKS), .EXT_SIZE(EXT_SIZE), .IMEM_WORDS(IMEM_WORDS),
        .LOOP_DEPTH(LOOP_DEPTH), .DMA_QUEUE(DMA_QUEUE), .DMA_BW(DMA_BW), .DMA_SETUP(DMA_SETUP),
        .EXT_LATENCY(EXT_LATENCY), .LOAD_LATENCY(LOAD_LATENCY), .MUL_LATENCY(MUL_LATENCY),
        .MAC_LATENCY(MAC_LATENCY), .ACC_FORWARD(ACC_FORWARD), .ACC_LATENCY(ACC_LATENCY),
        .FMUL_LATENCY(FMUL_LATENCY), .SRS_LATENCY(SRS_LATENCY), .UPS_LATENCY(UPS_LATENCY),
        .VALU_LATENCY(VALU_LATENCY), .SHUFFLE_LATENCY(SHUFFLE_LATENCY),
        .REDUCE_LATENCY(REDUCE_LATENCY), .PWL_LATENCY(PWL_LATENCY)
    ) u_core (
        .clk(clk), .rst(rst), .start(host_start), .prog_len(host_prog_len),
        .max_retire(host_max_retire), .max_cycles(host_max_cycles), .halt_req(host_halt),
        .done(done), .imem_raddr(imem_raddr), .imem_rdata(imem_rdata),
        .dm_v(c_v), .dm_row(c_row), .dm_nrows(c_nrows), .dm_we(c_we), .dm_be(c_be),
        .dm_wdata(c_wdata), .dm_rdata(rdata[3071:0]), .dm_cand(c_cand), .dm_wait(c_wait),
        .q_out(q_out), .q_ch(q_ch), .q_bd(q_bd), .q_ra(q_ra), .q_rb(q_rb), .q_push(q_push),
        .q_full(q_full), .q_err(q_err), .q_eaddr(q_eaddr), .rel_v(rel_v), .rel_l(rel_l),
        .rel_n(rel_n), .dma_idle(dma_idle), .dma_empty(dma_empty), .dma_busy(dma_busy),
        .dma_pend(dma_pend), .lk_o(lk), .core_rel_v(core_rel_v), .core_rel_l(core_rel_l),
        .core_rel_n(core_rel_n), .lk_q(lk_q), .lk_a(lk_a), .dma_quiet(dma_quiet),
        .dma_halt(dma_halt),
        .dm_collide(collide | dma_wide),
        .hr_addr(host_reg_addr), .hr_data(host_reg_data),
        .rt_valid(rt_valid), .rt_index(rt_index), .rt_bundle(rt_bundle), .rt_cycle(rt_cycle)
    );

    aie_imem #(.IMEM_WORDS(IMEM_WORDS), .AW(IAW)) u_imem (
        .clk(clk), .raddr(imem_raddr), .rdata(imem_rdata),
        .we(host_imem_we), .waddr(host_imem_addr), .wdata(host_imem_wdata)
    );

    aie_dma #(
        .DM_SIZE(DM_SIZE), .DM_BANKS(DM_BANKS), .EXT_SIZE(EXT_SIZE), .IMEM_WORDS(IMEM_WORDS),
        .LOOP_DEPTH(LOOP_DEPTH), .DMA_QUEUE(DMA_QUEUE), .DMA_BW(DMA_BW), .DMA_SETUP(DMA_SETUP),
        .EXT_LATENCY(EXT_LATENCY)
    ) u_dma (
        .clk(clk), .start(host_start), .halt(dma_halt), .bd_we(host_bd_we), .bd_addr(host_bd_addr),
        .bd_wdata(host_bd_wdata), .q_out(q_out), .q_ch(q_ch), .q_bd(q_bd), .q_ra(q_ra),
        .q_rb(q_rb), .q_push(q_push), .q_full(q_full), .q_err(q_err), .q_eaddr(q_eaddr),
        .rel_v(rel_v), .rel_l(rel_l), .rel_n(rel_n), .idle(dma_idle), .empty(dma_empty),
        .pend(dma_pend), .lk(lk), .core_rel_v(core_rel_v), .core_rel_l(core_rel_l),
        .core_rel_n(core_rel_n), .lk_q(lk_q), .lk_a(lk_a), .quiet(dma_quiet),
        .busy(dma_busy), .dm_v(d_v), .dm_row(d_row), .dm_nrows(d_nrows), .dm_we(d_we),
        .dm_be(d_be), .dm_wdata(d_wdata), .dm_rdata(rdata[8191:4096]),
        .m_valid(ext_valid), .m_ready(ext_ready), .m_write(ext_write), .m_addr(ext_addr),
        .m_len(ext_len), .m_wdata(ext_wdata), .r_valid(ext_rvalid), .r_data(ext_rdata),
        .b_valid(ext_bvalid), .wide(dma_wide)
    );

    // requesters ld0, ld1, st, host, in0, in1, out0, out1 (bit i: requester i)
    aie_dm #(.DM_SIZE(DM_SIZE), .DM_BANKS(DM_BANKS), .RW(RW), .NREQ(8),
             .WRITERS(8'b0011_1100), .READERS(8'b1100_1011)) u_dm (
        .clk(clk),
        .req_v({d_v, host_dm_v, c_v}),
        .req_row({d_row, host_dm_row, c_row}),
        .req_nrows({d_nrows, 3'd1, c_nrows}),
        .req_we({d_we, host_dm_we, c_we}),
        .req_be({d_be, 96'd0, {32{host_dm_we}}, c_be}),
        .req_wdata({d_wdata, 768'd0, host_dm_wdata, c_wdata}),
        .rsp_rdata(rdata),
        .collide(collide),
        .core_cand(c_cand), .dma_v(d_v), .core_wait(c_wait)
    );
    assign host_dm_rdata = rdata[3072 +: 256];
endmodule
