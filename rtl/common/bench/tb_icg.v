// tb_icg: rtl/common's clock gate with a pseudo-random enable from a rising-edge
// register, and with CHANGE_LOW = 1 an extra change of the enable at one falling edge
// (while the clock is low); EN_LOW is the gate's parameter. Prints the cycles in which the gated clock pulsed
// (tests/rtl/common/test_icg.py runs it with the latch and with ICG_FLOP_MODEL).
module tb_icg #(
    parameter integer CHANGE_LOW = 0,
    parameter integer EN_LOW = 0       // the gate's EN_LOW (its latch simulated in every build)
);
    reg clk = 1'b0;
    // Waiver: en is driven at both edges on purpose (the falling-edge change is the test).
    /* verilator lint_off MULTIDRIVEN */
    reg en = 1'b0;
    /* verilator lint_on MULTIDRIVEN */
    reg [15:0] lfsr = 16'hACE1;
    integer cycle = 0;
    wire gclk;
    icg #(.EN_LOW(EN_LOW)) u_gate (.clk(clk), .en(en), .gclk(gclk));
    always #1 clk = ~clk;
    always @(posedge clk) begin
        lfsr <= {lfsr[14:0], lfsr[15] ^ lfsr[13] ^ lfsr[12] ^ lfsr[10]};
        en <= lfsr[0];
    end
    always @(negedge clk) begin
        cycle <= cycle + 1;
        if (CHANGE_LOW != 0 && cycle == 40) en <= ~en;
        if (cycle == 100) $finish;
    end
    always @(posedge gclk) $display("pulse %0d", cycle);
endmodule
