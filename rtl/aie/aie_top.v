// aie_top: the aie tile as hardware: the core, its instruction memory and its banked
// data memory, with a host interface for everything outside the tile (the simulation
// harness aie_sim, or a system bus): program load, data-memory access (one 32-byte row
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
    wire [2:0]     c_v, c_we;
    wire [3*RW-1:0] c_row;
    wire [8:0]     c_nrows;
    wire [383:0]   c_be;
    wire [3071:0]  c_wdata;
    wire [4095:0]  rdata;

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
        .dm_wdata(c_wdata), .dm_rdata(rdata[3071:0]),
        .hr_addr(host_reg_addr), .hr_data(host_reg_data),
        .rt_valid(rt_valid), .rt_index(rt_index), .rt_bundle(rt_bundle), .rt_cycle(rt_cycle)
    );

    aie_imem #(.IMEM_WORDS(IMEM_WORDS), .AW(IAW)) u_imem (
        .clk(clk), .raddr(imem_raddr), .rdata(imem_rdata),
        .we(host_imem_we), .waddr(host_imem_addr), .wdata(host_imem_wdata)
    );

    aie_dm #(.DM_SIZE(DM_SIZE), .DM_BANKS(DM_BANKS), .RW(RW)) u_dm (
        .clk(clk),
        .req_v({host_dm_v, c_v}),
        .req_row({host_dm_row, c_row}),
        .req_nrows({3'd1, c_nrows}),
        .req_we({host_dm_we, c_we}),
        .req_be({96'd0, {32{host_dm_we}}, c_be}),
        .req_wdata({768'd0, host_dm_wdata, c_wdata}),
        .rsp_rdata(rdata)
    );
    assign host_dm_rdata = rdata[3072 +: 256];
endmodule
