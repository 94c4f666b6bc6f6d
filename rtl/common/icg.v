// Integrated clock gate, the standard cell's behaviour (a latch transparent while `clk`
// is low, and an AND): `gclk` pulses with `clk` in the cycles whose `en` was high before
// the rising edge. `en` comes from registers on the same rising edge and settles through
// the low phase, so gclk rises with clk, on the same edge as the rest of the design.
// Registers on `gclk` are ordinary rising-edge registers with an enable; an idle unit
// behind the gate never toggles (in silicon no dynamic power; under Verilator its logic
// is not evaluated at all, most of the simulation speed of a design with large fp
// units). Synthesis may treat it as a cell (coral's synthesis reads it as a black box).
// Used by plena (its pipelines) and coral (its fp and vector units).
//
// EN_LOW = 1: an enable that changes while `clk` is low (in the latch's open phase; it
// settles before `clk` rises, as the cell requires): the gate on the inverted clock in
// plena_sfpu's simulation model of its operand isolation (PLENA_OPISO_FLOP_MODEL: a
// falling-edge register standing in for the circuit's AND gates), whose enable comes from
// the rising-edge registers. The falling-edge model (below) cannot stand in for the latch
// then, so such a gate simulates the latch in every build. The same cell: the parameter
// is the simulation model's, not the circuit's.
module icg #(
    parameter integer EN_LOW = 0
) (
    input  wire clk,
    input  wire en,
    output wire gclk
);
    reg en_l;
    generate
        if (EN_LOW != 0) begin : g_latch
            // Waiver: this is the gate's latch, intended (transparent while clk is low).
            /* verilator lint_off LATCH */
            always @(clk or en)
                if (!clk) en_l = en;
            /* verilator lint_on LATCH */
        end else begin : g_model
`ifdef ICG_FLOP_MODEL
    // Simulation model of the latch, for builds whose enables change only while `clk` is
    // high (plena's Verilator builds: simulators/plena_rtl/build.py): `en` sampled at the
    // falling edge is what the latch holds at the rising edge when `en` stays put while
    // `clk` is low, and the check below stops the simulation at the first rising edge
    // where it did not. Why: the latch is sensitive to `en`, so Verilator evaluates the
    // enable's whole fan-in with the clock triggers at both edges; a flop's input is read
    // at its edge only (rtl/plena/README.md, "Where a simulated cycle goes"). Until its
    // first falling edge the gate is shut (the latch would pass `en` from time 0); the
    // harness resets the core long after that.
`ifdef ICG_ARMED
    // One flag for all gates instead of each gate's own `fell` (a store per gate at every
    // falling edge): ICG_ARMED names it, a register of the harness set at the first
    // falling edge of the clock every gate of the design runs on. Only plena's Verilator
    // build defines it (simulators/plena_rtl/build.py); coral's and aie's keep `fell`.
    initial en_l = 1'b0;
    always @(negedge clk)
        en_l <= en;
    always @(posedge clk)
        if (`ICG_ARMED && en != en_l)
            $fatal(1, "icg %m: en changed from %0d to %0d while clk was low; the falling-edge model of the latch (ICG_FLOP_MODEL) needs it stable", en_l, en);
`else
    reg fell;
    initial begin
        en_l = 1'b0;
        fell = 1'b0;
    end
    always @(negedge clk) begin
        en_l <= en;
        fell <= 1'b1;
    end
    always @(posedge clk)
        if (fell && en != en_l)
            $fatal(1, "icg %m: en changed from %0d to %0d while clk was low; the falling-edge model of the latch (ICG_FLOP_MODEL) needs it stable", en_l, en);
`endif
`else
    // Waiver: this is the gate's latch, intended (transparent while clk is low).
    /* verilator lint_off LATCH */
    always @(clk or en)
        if (!clk) en_l = en;
    /* verilator lint_on LATCH */
`endif
        end
    endgenerate
    assign gclk = clk & en_l;
endmodule
