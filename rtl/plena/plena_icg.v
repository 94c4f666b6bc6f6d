// Integrated clock gate, the standard cell (a latch transparent while `clk` is low, and
// an AND): `gclk` pulses with `clk` in the cycles whose `en` was high at the rising edge.
// Registers on `gclk` are ordinary rising-edge registers with an enable; an idle stage
// never toggles (in hardware no dynamic power; under Verilator its logic is not evaluated).
module plena_icg (
    input  wire clk,
    input  wire en,
    output wire gclk
);
    reg en_l;
    // Waiver: this is the gate's latch, intended (transparent while clk is low).
    /* verilator lint_off LATCH */
    always @(clk or en)
        if (!clk) en_l = en;
    /* verilator lint_on LATCH */
    assign gclk = clk & en_l;
endmodule
