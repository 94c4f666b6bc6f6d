// plena_opiso: operand isolation in front of a datapath by AND gates (the MAC array's P
// stage, each vector group's lanes, the reductions' first level, the scalar fp unit):
// q = d & {W{act}}, act 1 exactly in the cycles whose operands the datapath takes. With
// REG_EN = 1, act is `en` registered at the rising edge of `clk` (a 1-bit register: `en`
// is the enable of the unit's clock gate, which the gate samples at that same edge, so
// act is 1 in the cycles in which the gated clock pulses, the cycles in which the
// operands, SRAM read registers loaded at that edge, are the step's); with REG_EN = 0,
// act is `en` itself (the scalar unit: its `go`, from the core's rising-edge registers).
// In other cycles the datapath sees zeros, whatever its sources do then (port A's read
// register changes with every vector instruction's read), so it switches twice per use
// (to the operands and back to zero) and not with every read. One edge, no latch, no
// falling-edge register: the datapath has the whole cycle from the rising edge to the
// rising edge that takes its result. Every consumer of a datapath behind it takes the
// result only at the edge ending an act cycle (rtl/plena/README.md, "Synthesis", "The
// isolation registers").
//
// HOLD = 1 (V_TOPK's logits, which its engine reads in every cycle of the instruction,
// not only in the act cycle): q = act ? d : h, h a rising-edge register behind a clock
// gate enabled by act, so it takes d at the edge that ends the act cycle and holds it
// until the next act cycle. Still one edge and the whole cycle for the logic behind it:
// in the act cycle the mux passes d from the rising edge on, afterwards h.
//
// It was plena_opreg, a register on the falling edge of the gated clock `gclk` (and
// before that a latch open while gclk was high), which gave the datapath half a cycle;
// V_TOPK's logits kept it until the HOLD form (2026-12-07).
// PLENA_OPISO_FLOP_MODEL (plena's Verilator build only: simulators/plena_rtl/build.py)
// keeps that register as the simulation model of this isolation: it holds at every rising
// edge that takes the datapath's result the value the AND gates (or HOLD's mux) pass then
// (d, which is
// stable from the rising edge through the act cycle), and Verilator evaluates the
// datapath behind a register only at its edge, once per use, instead of with every change
// of d (the AND form re-evaluates it at every rising edge: rtl/plena/README.md, the
// measured cost). The two builds are value-equivalent wherever a result is taken, which
// `kernelcraft rtl-check` checks with PLENA_OPISO_AND=1 in the environment (the AND form
// under Verilator). `gclk` is the model's clock only; `clk` and `en` the AND form's.
module plena_opiso #(
    parameter integer W = 1,
    // Waiver: the AND form's only (the model takes d at gclk's edge either way).
    /* verilator lint_off UNUSEDPARAM */
    parameter integer REG_EN = 1,
    parameter integer HOLD = 0
    /* verilator lint_on UNUSEDPARAM */
) (
    // Waiver: each form reads only its own inputs (the model gclk, the AND form clk, en).
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire         clk,
    input  wire         en,
    input  wire         gclk,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [W-1:0] d,
    output wire [W-1:0] q
);
`ifdef PLENA_OPISO_FLOP_MODEL
    reg [W-1:0] q_m;
    always @(negedge gclk) q_m <= d;
    assign q = q_m;
`else
    wire act;
    generate
        if (REG_EN != 0) begin : g_reg
            reg act_r;
            always @(posedge clk) act_r <= en;
            assign act = act_r;
        end else begin : g_comb
            assign act = en;
        end
        if (HOLD != 0) begin : g_hold
            wire hclk;
            reg [W-1:0] h;
            icg u_hgate (.clk(clk), .en(act), .gclk(hclk));
            always @(posedge hclk) h <= d;
            assign q = act ? d : h;
        end else begin : g_and
            assign q = d & {W{act}};
        end
    endgenerate
`endif
endmodule
