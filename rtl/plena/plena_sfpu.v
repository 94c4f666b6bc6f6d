// The scalar fp32 unit: S_ADD_FP, S_SUB_FP, S_MUL_FP, S_MAX_FP, S_EXP_FP, S_RECI_FP and
// S_SQRT_FP on f registers, by the shared units of rtl/common (the numerics of
// simulators/numerics.py, bit for bit).
//
// Clocked on the rising edge only.
// The core raises `go` while such an instruction is at issue. Its operands and function
// pass the operand isolation's AND gates (plena_opiso, enabled by `go`: zero in other
// cycles), and each group of functions sees them only when it is the one selected (held
// at zero otherwise): an idle unit does not switch, whatever the f registers and the
// instruction register do in other cycles. Each pipeline's registers are behind a clock
// gate open only while it has work. Add, subtract, multiply and max (timing class S_FP,
// one cycle) are single-cycle combinational paths from the f registers and the
// instruction register through the AND gates to the commit edge (the whole cycle). Exp,
// reciprocal and square root (S_FP_EXP, S_FP_RECI, S_FP_SQRT, four cycles) are
// four-stage pipelines (plena_exp_pipe.v, plena_recip_pipe.v, plena_sqrt_pipe.v): stage 1
// in the issue cycle, `y` valid in the fourth, whose closing edge commits it. The f
// registers do not change while an instruction is in flight (one in order), so the
// pipelines need no operand register of their own. `done` marks the
// instruction's last cycle: the issue cycle of a single-cycle function, or the cycle in
// which a pipelined one's valid bit (entered with `start`) reaches the last stage.
module plena_sfpu (
    input  wire        clk,
    input  wire        rst,
    input  wire        go,
    input  wire        start,        // the instruction at issue starts (not stalled, no error)
    input  wire [2:0]  fn,
    input  wire [31:0] a,
    input  wire [31:0] b,
    output reg  [31:0] y,
    output wire        done,
    output wire        busy          // an instruction is in the unit (start to done)
);
    `include "plena_units.vh"

    // The group of function f (one bit set of SFG_COUNT): for the clock gates from fn, for
    // the isolated operands from the function the isolation register holds.
    function automatic [SFG_COUNT-1:0] group(input [2:0] f);
        group = {SFG_COUNT{1'b0}};
        case (f)
            SFN_ADD, SFN_SUB: group[SFG_ADD] = 1'b1;
            SFN_MUL:          group[SFG_MUL] = 1'b1;
            SFN_MAX:          group[SFG_MAX] = 1'b1;
            SFN_EXP:          group[SFG_EXP] = 1'b1;
            SFN_RECI:         group[SFG_RECI] = 1'b1;
            default:          group[SFG_SQRT] = 1'b1;
        endcase
    endfunction
    reg [SFG_COUNT-1:0] sel;
    always @* sel = group(fn);
    function automatic [31:0] iso(input [31:0] v, input logic en);
        iso = en ? v : 32'd0;
    endfunction
    wire [SFG_COUNT-1:0] en = {SFG_COUNT{go}} & sel;

    // The operand isolation (plena_opiso, REG_EN = 0: AND gates enabled by `go` itself,
    // which comes from the core's rising-edge registers and the instruction memory's read
    // register and settles after the rising edge): a, b and fn pass in a cycle with `go`,
    // zeros otherwise. The functions below read only what it passes (and the selection
    // made from it), so they switch only when a scalar fp instruction is at issue. Their
    // results are taken at the closing edge of the issue cycle (a single-cycle function's
    // commit, the exp pipeline's stage 2 on exp_clk2, enable en[SFG_EXP]: go cycles
    // only). The reciprocal's and square root's stage-2 registers also load in the two
    // cycles after issue (their gates are open while the function is in the pipeline),
    // from stage 1 of zeros there: values the later stages never take into y (stage 3
    // loads at the end of cycle 2 from what stage 2 took at issue, stage 4 at the end of
    // cycle 3 from stage 3, and the pipeline's gates stay shut after cycle 3 until the
    // next such instruction, whose issue reloads stage 2). They cannot take the operands
    // one edge early, at the rising edge that starts the issue cycle: the function and
    // the register numbers are the instruction word, which the instruction memory's read
    // register presents only from that edge, and a loaded f register's value FP_MEM's
    // read register (the load's bypass).
    //
    // Simulation model (PLENA_OPISO_FLOP_MODEL, plena's Verilator build): the falling-edge
    // register this was, on a clock gate (icg, the cell) on the inverted clock: the gate's
    // latch is open while `clk` is high, where `go` settles, and closes at the falling
    // edge, so its output rises there (the register's edge: iso_clk falls) only in cycles
    // with `go` (the OR-type gate of falling-edge registers, `clk | !go` with `go`
    // latched; `go` changes while the gate's latch is open, which the gates' falling-edge
    // model cannot represent: EN_LOW, the latch simulated). At every edge that takes a
    // result it holds what the AND gates pass (rtl/plena/plena_opiso.v).
    wire [2:0]  fn_l;
    wire [31:0] a_l, b_l;
    wire iso_clk;                   // the simulation model's clock (plena_opiso) only
`ifdef PLENA_OPISO_FLOP_MODEL
    wire iso_n;                     // the gate's output: high from the falling edge of a go cycle
    icg #(.EN_LOW(1)) u_isogate (.clk(!clk), .en(go), .gclk(iso_n));
    assign iso_clk = !iso_n;
`else
    assign iso_clk = 1'b0;
`endif
    plena_opiso #(.W(3 + 64), .REG_EN(0)) u_iso (.clk(clk), .en(go), .gclk(iso_clk),
                                                 .d({fn, a, b}), .q({fn_l, a_l, b_l}));
    reg [SFG_COUNT-1:0] sel_l;      // the group of the isolated function
    always @* sel_l = group(fn_l);

    wire [31:0] y_add, y_mul, y_max, y_exp, y_rcp, y_sqr;
    fp32_add   u_add (.a(iso(a_l, sel_l[SFG_ADD])), .b(iso(b_l, sel_l[SFG_ADD])),
                      .sub(sel_l[SFG_ADD] && fn_l == SFN_SUB), .y(y_add));
    fp32_mul   u_mul (.a(iso(a_l, sel_l[SFG_MUL])), .b(iso(b_l, sel_l[SFG_MUL])), .y(y_mul));
    fp32_max   u_max (.a(iso(a_l, sel_l[SFG_MAX])), .b(iso(b_l, sel_l[SFG_MAX])), .y(y_max));
    // A pipelined function's valid bit, one register per stage after the first.
    wire piped = (fn == SFN_EXP || fn == SFN_RECI || fn == SFN_SQRT);
    reg [SFP_DEPTH-2:0] v;
    // The pipelines' registers behind clock gates (fn holds while an instruction is in
    // flight). exp's registers in front of stages 2, 3 and 4 each on a gate open in the
    // one cycle its stage before holds the operand (the issue cycle, then v[0], then
    // v[1]), so each stage's fp32 steps switch (and, under Verilator, are evaluated)
    // once per instruction, not at each of the three edges the pipeline is busy.
    // Reciprocal's and square root's registers on one gate each, open while the function
    // is at issue or in a stage before the last (their steps are integer ones, cheap
    // beside a gated clock's cost to the simulator). An idle pipeline does not toggle.
    initial if (SFP_DEPTH != 4) $fatal(1, "plena_sfpu: the pipelines have four stages");
    wire in_pipe = |v[SFP_DEPTH-3:0];
    wire exp_clk2, exp_clk3, exp_clk4, rcp_clk, sqr_clk;
    icg u_exp2gate (.clk(clk), .en(en[SFG_EXP]), .gclk(exp_clk2));
    icg u_exp3gate (.clk(clk), .en(v[0] && fn == SFN_EXP), .gclk(exp_clk3));
    icg u_exp4gate (.clk(clk), .en(v[1] && fn == SFN_EXP), .gclk(exp_clk4));
    icg u_rcpgate (.clk(clk), .en(en[SFG_RECI] || (in_pipe && fn == SFN_RECI)), .gclk(rcp_clk));
    icg u_sqrgate (.clk(clk), .en(en[SFG_SQRT] || (in_pipe && fn == SFN_SQRT)), .gclk(sqr_clk));
    plena_exp_pipe   u_exp (.clk2(exp_clk2), .clk3(exp_clk3), .clk4(exp_clk4),
                           .a(iso(a_l, sel_l[SFG_EXP])), .y(y_exp));
    plena_recip_pipe u_rcp (.clk2(rcp_clk), .clk3(rcp_clk), .clk4(rcp_clk),
                           .a(iso(a_l, sel_l[SFG_RECI])), .y(y_rcp));
    plena_sqrt_pipe  u_sqr (.clk(sqr_clk), .a(iso(a_l, sel_l[SFG_SQRT])), .y(y_sqr));

    always @(posedge clk) v <= rst ? {(SFP_DEPTH-1){1'b0}}
                                   : (SFP_DEPTH-1)'({v, start && piped});
    assign done = piped ? v[SFP_DEPTH-2] : start;
    assign busy = start || (|v);

    always @* begin
        case (fn)
            SFN_ADD, SFN_SUB: y = y_add;
            SFN_MUL:          y = y_mul;
            SFN_MAX:          y = y_max;
            SFN_EXP:          y = y_exp;
            SFN_RECI:         y = y_rcp;
            default:          y = y_sqr;
        endcase
    end
endmodule
