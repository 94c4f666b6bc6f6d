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

    // Rows written whole, the bytes a port does not enable kept (Yosys reads the feedback
    // as the port's byte enables): a byte-wise write has Verilator keep and commit a flag
    // per byte of every macro at each clock edge. Port B merges onto port A's row when
    // both write one row, so each port's bytes land as byte-wise writes would (B's last).
    function automatic [255:0] merged(input [255:0] old, input [255:0] data, input [31:0] be);
        integer k;
        for (k = 0; k < 32; k = k + 1)
            merged[8*k +: 8] = be[k] ? data[8*k +: 8] : old[8*k +: 8];
    endfunction

    always @(posedge clk) begin
        if (a_en) begin
            a_rdata <= mem[a_addr];
            if (a_we) mem[a_addr] <= merged(mem[a_addr], a_wdata, a_be);
        end
        if (b_en) begin
            b_rdata <= mem[b_addr];
            if (b_we) begin
                if (a_en && a_we && a_addr == b_addr)
                    mem[b_addr] <= merged(merged(mem[b_addr], a_wdata, a_be), b_wdata, b_be);
                else
                    mem[b_addr] <= merged(mem[b_addr], b_wdata, b_be);
            end
        end
    end
endmodule
