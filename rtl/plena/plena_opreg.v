// plena_opreg: V_TOPK's logits' isolation register (plena_core): a register on the
// FALLING edge of gclk, a gated clock that pulses in V_TOPK's step 1; d is port A's read
// register (loaded at gclk's rising edge, still while gclk is high), so q takes d in the
// middle of step 1 and holds it in every other cycle, whatever port A reads for other
// instructions: V_TOPK's engine reads the held logits for the whole instruction. The
// other datapaths' isolation (the MAC array's P stage, the vector groups' lanes, the
// reductions' first level, the scalar fp unit), which used this register until andiso
// (2026-12-07), is AND gates (plena_opiso): their results are taken only at the edge
// ending the cycle their operands pass, so they need no held value.
//
// It was a latch transparent while gclk is high (plena_oplatch): Issue 19 asks for no
// latches besides clock gates. Same value at every rising edge as the latch, no latch;
// the price is in silicon timing, not in cycles: behind this register the logic that
// reads q in step 1 (the NaN scan) has the half cycle from the falling edge. A
// rising-edge register taking the same values one edge earlier needs d's next value
// before that edge, and d is an SRAM macro's read register, whose data exists only after
// it (rtl/plena/README.md, "Synthesis", "The isolation registers").
module plena_opreg #(
    parameter integer W = 1
) (
    input  wire         gclk,
    input  wire [W-1:0] d,
    output reg  [W-1:0] q
);
    // (Verilator evaluates the logic after a latch whenever the latch's inputs may change,
    // here with every read of port A; after a register only at its edge, once per step.)
    always @(negedge gclk) q <= d;
endmodule
