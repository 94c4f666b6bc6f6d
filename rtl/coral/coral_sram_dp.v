// coral_sram_dp: one bank of dual-port synchronous SRAM, 32-bit words with byte write
// enables on each port (a two-port macro's interface). Each port behaves as
// coral_sram's one: a read presents the word after the clock edge and holds it until
// that port's next enabled access. The DTCM is NB of these, word-interleaved: port A
// serves the scalar core and the host, port B the vector unit. The two never write
// the same word in one cycle (the core waits for vector stores and loads as the
// timing model says), so no collision logic is needed.
module coral_sram_dp #(
    parameter integer WORDS = 1024
) (
    input  wire                     clk,
    input  wire                     a_en,
    input  wire [3:0]               a_we,
    input  wire [$clog2(WORDS)-1:0] a_addr,
    input  wire [31:0]              a_wdata,
    output reg  [31:0]              a_rdata,
    input  wire                     b_en,
    input  wire [3:0]               b_we,
    input  wire [$clog2(WORDS)-1:0] b_addr,
    input  wire [31:0]              b_wdata,
    output reg  [31:0]              b_rdata
);
    reg [31:0] mem [0:WORDS-1];
    integer i;

    always @(posedge clk) begin
        if (a_en) begin
            if (a_we == 4'b0000) a_rdata <= mem[a_addr];
            for (i = 0; i < 4; i = i + 1)
                if (a_we[i]) mem[a_addr][8*i +: 8] <= a_wdata[8*i +: 8];
        end
        if (b_en) begin
            if (b_we == 4'b0000) b_rdata <= mem[b_addr];
            for (i = 0; i < 4; i = i + 1)
                if (b_we[i]) mem[b_addr][8*i +: 8] <= b_wdata[8*i +: 8];
        end
    end
endmodule
