// coral_sram_dp: one bank of dual-port synchronous SRAM, 32-bit words with byte write
// enables on each port (a two-port macro's interface). Each port behaves as
// coral_sram's one: a read presents the word after the clock edge and holds it until
// that port's next enabled access. The DTCM is NB of these, word-interleaved: port A
// serves the scalar core and the host, port B the vector unit. The two never write
// the same word in one cycle (the core waits for vector stores and loads as the
// timing model says), so no collision logic is needed. Each port has its own clock, as a
// two-port macro's (CLKA, CLKB): port B runs on the vector unit's gated clock, so an idle
// unit's port does not toggle (and under Verilator its read data, which feeds the unit's
// register bypass, is not recomputed with the scalar core's every cycle).
module coral_sram_dp #(
    parameter integer WORDS = 1024
) (
    input  wire                     a_clk,
    input  wire                     a_en,
    input  wire [3:0]               a_we,
    input  wire [$clog2(WORDS)-1:0] a_addr,
    input  wire [31:0]              a_wdata,
    output reg  [31:0]              a_rdata,
    input  wire                     b_clk,
    input  wire                     b_en,
    input  wire [3:0]               b_we,
    input  wire [$clog2(WORDS)-1:0] b_addr,
    input  wire [31:0]              b_wdata,
    output reg  [31:0]              b_rdata
);
    // Waiver: the array is written from both ports' clocks, as a two-port macro's is
    /* verilator lint_off MULTIDRIVEN */
    reg [31:0] mem [0:WORDS-1];
    /* verilator lint_on MULTIDRIVEN */
    integer ia, ib;

    always @(posedge a_clk)
        if (a_en) begin
            if (a_we == 4'b0000) a_rdata <= mem[a_addr];
            for (ia = 0; ia < 4; ia = ia + 1)
                if (a_we[ia]) mem[a_addr][8*ia +: 8] <= a_wdata[8*ia +: 8];
        end
    always @(posedge b_clk)
        if (b_en) begin
            if (b_we == 4'b0000) b_rdata <= mem[b_addr];
            for (ib = 0; ib < 4; ib = ib + 1)
                if (b_we[ib]) mem[b_addr][8*ib +: 8] <= b_wdata[8*ib +: 8];
        end
endmodule
