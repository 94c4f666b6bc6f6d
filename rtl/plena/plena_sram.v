// plena_sram: one SRAM macro of plena's on-chip memories: DEPTH words of N 16-bit
// elements, one read port and one write port (a 1R1W macro's interface), each on its
// own clock as a two-port macro has (plena_msram gates them: a port's clock ticks only
// in the cycles it may be used, so the read register and what it feeds stay still).
// A read (re) presents the word on rdata after the edge and holds it until the next
// read; a write stores the elements wmask selects. A read and a write of one word at
// the same edge return the old word (read before write): plena_matrix relies on it
// only as its flip-flop array did, whose combinational read at that edge saw the old
// word too. Synthesis maps it to a memory, or a compiled macro replaces it.
module plena_sram #(
    parameter integer DEPTH = 4,
    parameter integer N = 16,
    parameter integer AW = (DEPTH > 1) ? $clog2(DEPTH) : 1
) (
    input  wire            rclk,      // read clock
    input  wire            wclk,      // write clock
    input  wire            re,
    input  wire [AW-1:0]   raddr,
    output reg  [N*16-1:0] rdata,
    input  wire            we,
    input  wire [N-1:0]    wmask,
    input  wire [AW-1:0]   waddr,
    input  wire [N*16-1:0] wdata
);
    reg [N*16-1:0] mem [0:DEPTH-1];

    always @(posedge rclk)
        if (re) rdata <= mem[raddr];
    // The word written whole, its unselected elements kept (Yosys reads the feedback as
    // the macro's element write enables): an element-wise write has Verilator keep and
    // commit a flag per element of every bank at each edge of the write clock.
    always @(posedge wclk)
        if (we) mem[waddr] <= sram_merged(mem[waddr], wdata, wmask);
    `include "plena_sram_merge.vh"
endmodule
