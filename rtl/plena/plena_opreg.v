// plena_opreg: operand isolation in front of a datapath (the MAC array's P stage, each
// vector group's lanes, the reductions' first level, V_TOPK's logits, the scalar fp unit:
// there gclk is the OR-type clock gate's output, see plena_sfpu): a register on gclk's
// falling edge. gclk is a gated clock that pulses in the cycles whose operands the
// datapath takes; d comes from registers on gclk's rising edge (still while gclk is
// high), so q takes d at the falling edge in the middle of such a cycle and holds it in
// every other cycle, whatever its sources do then (port A's read register changes with
// every vector instruction's read, and the multipliers and adders behind it would switch
// with it). The datapath's result is taken at the rising edge that ends the cycle.
//
// It was a latch transparent while gclk is high (plena_oplatch; then a falling-edge
// register under that name until it was renamed): Issue 19 asks for no latches besides
// clock gates. Same value at every rising edge as the latch, no latch; the price is in
// silicon timing, not in cycles: the latch passed d in the first half of the cycle, so
// the datapath behind it had the whole cycle (borrowing time through the open latch);
// behind this register it has the half cycle from the falling edge. A rising-edge
// register taking the same values one edge earlier (the whole cycle, one edge) needs d's
// next value before that edge, and every d here is, or comes from, an SRAM macro's read
// register (the Vector SRAM's ports A and B, the Matrix SRAM's banks, the instruction
// memory and FP_MEM for the scalar unit), whose data exists only after it
// (rtl/plena/README.md, "Synthesis", "The isolation registers").
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
