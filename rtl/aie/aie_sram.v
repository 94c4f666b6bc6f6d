// aie_sram: one SRAM macro of the data memory: DEPTH rows of 32 bytes, two read/write
// ports with byte enables, reads registered (data the cycle after the request). On a
// read and a write of one row in one cycle through different ports the read returns
// the old bytes (the bank arbitration in aie_dm makes that case rare: only a straddling
// access meets another access's row). Synthesis maps it to a memory (or a macro).
module aie_sram #(
    parameter integer DEPTH = 64,
    parameter integer AW = 6
) (
    input  wire           clk,
    input  wire           a_en,
    input  wire           a_we,
    input  wire [31:0]    a_be,
    input  wire [AW-1:0]  a_addr,
    input  wire [255:0]   a_wdata,
    output reg  [255:0]   a_rdata,
    input  wire           b_en,
    input  wire           b_we,
    input  wire [31:0]    b_be,
    input  wire [AW-1:0]  b_addr,
    input  wire [255:0]   b_wdata,
    output reg  [255:0]   b_rdata
);
    reg [255:0] mem [0:DEPTH-1];
    integer i;

    always @(posedge clk) begin
        if (a_en) begin
            a_rdata <= mem[a_addr];
            if (a_we)
                for (i = 0; i < 32; i = i + 1)
                    if (a_be[i]) mem[a_addr][8*i +: 8] <= a_wdata[8*i +: 8];
        end
        if (b_en) begin
            b_rdata <= mem[b_addr];
            if (b_we)
                for (i = 0; i < 32; i = i + 1)
                    if (b_be[i]) mem[b_addr][8*i +: 8] <= b_wdata[8*i +: 8];
        end
    end
endmodule
