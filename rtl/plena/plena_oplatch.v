// plena_oplatch: operand isolation in front of a datapath (the MAC array's P stage, each
// vector group's lanes, the reductions' first level, the scalar fp unit: there gclk is
// the clock ANDed with `go`, see plena_sfpu): a latch transparent while `gclk`
// is high, holding otherwise. gclk is a gated clock that pulses in the cycles whose
// operands the datapath takes, so the operands pass in the first half of such a cycle
// and the datapath stays still in every other cycle, whatever its sources do then (port
// A's read register changes with every vector instruction's read, and the multipliers
// and adders behind it would switch with it). The path through it is the one without
// it: d must arrive while gclk is high, as it does from registers on gclk's rising edge.
module plena_oplatch #(
    parameter integer W = 1
) (
    input  wire         gclk,
    input  wire [W-1:0] d,
    output reg  [W-1:0] q
);
`ifdef ICG_FLOP_MODEL
    // Simulation model (plena's Verilator builds, as icg's): d comes from registers on
    // gclk's rising edge, so it is still while gclk is high, and what the latch holds
    // after the falling edge is d at that edge. Why: Verilator evaluates the logic after
    // a latch whenever the latch's inputs may change (here with every read of port A);
    // after a flop only at its edge, once per step.
    always @(negedge gclk) q <= d;
`else
    // Waiver: the latch, intended (transparent while gclk is high).
    /* verilator lint_off LATCH */
    always @(gclk or d)
        if (gclk) q = d;
    /* verilator lint_on LATCH */
`endif
endmodule
