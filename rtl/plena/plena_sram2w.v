// plena_sram2w: plena_sram with a second element-masked write port (a 1R2W macro: a
// multi-port register-file compile, or two 1R1W banks behind a live-value table where
// the library has none). The Vector SRAM needs it: an instruction's write and a
// prefetch beat can land in one bank at one edge (never in one row: the stall rule),
// and moving either would change the cycle they are seen. Same read timing as
// plena_sram: the word on rdata after the edge, held until the next read; a read and a
// write of one word at one edge return the old word. Separate read and write clocks
// (one clock, gated for reads, in plena_vsram), as a two-port macro has. Were both write ports to name one
// element at one edge (they never do), port 1 wins.
module plena_sram2w #(
    parameter integer DEPTH = 4,
    parameter integer N = 16,
    parameter integer AW = (DEPTH > 1) ? $clog2(DEPTH) : 1
) (
    input  wire            rclk,      // read clock (a gated clock: it ticks when re is set)
    input  wire            wclk,      // write clock
    input  wire            re,
    input  wire [AW-1:0]   raddr,
    output reg  [N*16-1:0] rdata,
    input  wire            we0,
    input  wire [N-1:0]    wmask0,
    input  wire [AW-1:0]   waddr0,
    input  wire [N*16-1:0] wdata0,
    input  wire            we1,
    input  wire [N-1:0]    wmask1,
    input  wire [AW-1:0]   waddr1,
    input  wire [N*16-1:0] wdata1
);
    reg [N*16-1:0] mem [0:DEPTH-1];

    always @(posedge rclk)
        if (re) rdata <= mem[raddr];
    // Words written whole, unselected elements kept (as plena_sram; Yosys reads the
    // feedback as each port's element write enables); port 1 merges onto port 0's word
    // when both name one word, so the elements each port selects land as before.
    always @(posedge wclk) begin
        if (we0) mem[waddr0] <= sram_merged(mem[waddr0], wdata0, wmask0);
        // (Nested: an unknown we0, as Icarus has before a unit's first use, is no write,
        // as with `if (we0)`.)
        if (we1) begin
            if (we0 && waddr0 == waddr1)
                mem[waddr1] <= sram_merged(sram_merged(mem[waddr1], wdata0, wmask0),
                                           wdata1, wmask1);
            else
                mem[waddr1] <= sram_merged(mem[waddr1], wdata1, wmask1);
        end
    end
    `include "plena_sram_merge.vh"
endmodule
