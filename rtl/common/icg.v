// Integrated clock gate, the standard cell's behaviour (a latch transparent while `clk`
// is low, and an AND): `gclk` pulses with `clk` in the cycles whose `en` was high before
// the rising edge. `en` comes from registers on the same rising edge and settles through
// the low phase, so gclk rises with clk, on the same edge as the rest of the design.
// Registers on `gclk` are ordinary rising-edge registers with an enable; an idle unit
// behind the gate never toggles (in silicon no dynamic power; under Verilator its logic
// is not evaluated at all, most of the simulation speed of a design with large fp
// units). Synthesis may treat it as a cell (coral's synthesis reads it as a black box).
// Used by plena (its pipelines) and coral (its fp and vector units).
module icg (
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
