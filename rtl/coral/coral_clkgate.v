// coral_clkgate: an integrated clock gate (the standard cell's behaviour): `gclk` follows
// `clk` in the cycles where `en` was high before the rising edge. The latch is
// transparent while clk is low, so `en` (from registers clocked on the same rising
// edge) settles through the low phase and gclk rises with clk, on the same edge as the
// rest of the design. An idle unit behind it does not toggle: no dynamic power in
// silicon, and under Verilator its logic is not evaluated at all (most of the
// simulation speed of a core with a large fp unit). Synthesis treats it as a cell
// (simulators/coral_rtl/synth.py reads it as a black box, like the SRAM banks).
module coral_clkgate (
    input  wire clk,
    input  wire en,
    output wire gclk
);
    reg en_l;
    // Waiver: the gate's latch, intended (transparent while clk is low).
    /* verilator lint_off LATCH */
    always @(clk or en)
        if (!clk) en_l = en;
    /* verilator lint_on LATCH */
    assign gclk = clk & en_l;
endmodule
