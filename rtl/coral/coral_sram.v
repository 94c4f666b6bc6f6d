// coral_sram: one bank of single-port synchronous SRAM, 32-bit words with byte write
// enables. A read (en, no we) presents the word on rdata after the clock edge and holds
// it until the next enabled access; a write updates the bytes selected by we. This is
// the interface of a compiled SRAM macro; ITCM and DTCM are one bank each.
module coral_sram #(
    parameter integer WORDS = 1024
) (
    input  wire                     clk,
    input  wire                     en,
    input  wire [3:0]               we,
    input  wire [$clog2(WORDS)-1:0] addr,
    input  wire [31:0]              wdata,
    output reg  [31:0]              rdata
);
    reg [31:0] mem [0:WORDS-1];
    integer b;

    always @(posedge clk)
        if (en) begin
            if (we == 4'b0000) rdata <= mem[addr];
            for (b = 0; b < 4; b = b + 1)
                if (we[b]) mem[addr][8*b +: 8] <= wdata[8*b +: 8];
        end
endmodule
