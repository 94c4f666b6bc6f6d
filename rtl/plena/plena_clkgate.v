// Operand clock of an arithmetic unit: `gclk` rises at the falling edge of `clk` in the
// cycles where `en` is high, and stays low otherwise.
//
// Every unit of plena captures its operands on this edge, in the middle of the cycle in
// which the core issues (or steps) the instruction, and the core stores the unit's
// combinational result at the next rising edge of `clk`. That keeps every instruction at
// exactly the cycles of its timing class, and an idle unit never toggles (in hardware:
// no dynamic power; under Verilator: its logic is not evaluated at all, which is most of
// the simulation speed). `en` comes from registers clocked on the rising edge, so the
// latch, transparent while `clk` is high, holds a settled value through the low phase:
// the usual latch-based clock gate, with the polarity flipped.
module plena_clkgate (
    input  wire clk,
    input  wire en,
    output wire gclk
);
    reg en_l;
    // Waiver: this is the gate's latch, intended (transparent while clk is high).
    /* verilator lint_off LATCH */
    always @(clk or en)
        if (clk) en_l = en;
    /* verilator lint_on LATCH */
    assign gclk = ~clk & en_l;
endmodule
