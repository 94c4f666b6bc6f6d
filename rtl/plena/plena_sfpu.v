// The scalar fp32 unit: S_ADD_FP, S_SUB_FP, S_MUL_FP, S_MAX_FP, S_EXP_FP, S_RECI_FP and
// S_SQRT_FP on f registers, by the shared units of rtl/common (the numerics of
// simulators/numerics.py, bit for bit).
//
// Clocked on the rising edge only. The core raises `go` while such an instruction is
// at issue; each group of functions sees its operands only then (they are held at zero
// otherwise: operand isolation, so an idle group does not switch), and each pipeline's
// registers are behind a clock gate open only while it has work.
// Add, subtract, multiply and max (timing class S_FP, one cycle) are single-cycle
// combinational paths from the f registers to the commit edge. Exp, reciprocal and
// square root (S_FP_EXP, S_FP_RECI, S_FP_SQRT, four cycles) are four-stage pipelines
// (plena_exp_pipe.v, plena_recip_pipe.v, plena_sqrt_pipe.v): stage 1 in the issue
// cycle, `y` valid in the fourth, whose closing edge commits it. The f registers do not change while an instruction is in flight
// (one in order), so the operands need no register of their own. `done` marks the
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

    reg [SFG_COUNT-1:0] sel;
    always @* begin
        sel = {SFG_COUNT{1'b0}};
        case (fn)
            SFN_ADD, SFN_SUB: sel[SFG_ADD] = 1'b1;
            SFN_MUL:          sel[SFG_MUL] = 1'b1;
            SFN_MAX:          sel[SFG_MAX] = 1'b1;
            SFN_EXP:          sel[SFG_EXP] = 1'b1;
            SFN_RECI:         sel[SFG_RECI] = 1'b1;
            default:          sel[SFG_SQRT] = 1'b1;
        endcase
    end
    function automatic [31:0] iso(input [31:0] v, input logic en);
        iso = en ? v : 32'd0;
    endfunction
    wire [SFG_COUNT-1:0] en = {SFG_COUNT{go}} & sel;

    wire [31:0] y_add, y_mul, y_max, y_exp, y_rcp, y_sqr;
    fp32_add   u_add (.a(iso(a, en[SFG_ADD])), .b(iso(b, en[SFG_ADD])),
                      .sub(en[SFG_ADD] && fn == SFN_SUB), .y(y_add));
    fp32_mul   u_mul (.a(iso(a, en[SFG_MUL])), .b(iso(b, en[SFG_MUL])), .y(y_mul));
    fp32_max   u_max (.a(iso(a, en[SFG_MAX])), .b(iso(b, en[SFG_MAX])), .y(y_max));
    // A pipelined function's valid bit, one register per stage after the first.
    wire piped = (fn == SFN_EXP || fn == SFN_RECI || fn == SFN_SQRT);
    reg [SFP_DEPTH-2:0] v;
    // Each pipeline's registers on a clock gate, open while its function is at issue or
    // in a stage before the last (fn holds while an instruction is in flight): an idle
    // pipeline's stages do not toggle (nor, under Verilator, evaluate) every cycle.
    wire in_pipe = |v[SFP_DEPTH-3:0];
    wire exp_clk, rcp_clk, sqr_clk;
    icg u_expgate (.clk(clk), .en(en[SFG_EXP] || (in_pipe && fn == SFN_EXP)), .gclk(exp_clk));
    icg u_rcpgate (.clk(clk), .en(en[SFG_RECI] || (in_pipe && fn == SFN_RECI)), .gclk(rcp_clk));
    icg u_sqrgate (.clk(clk), .en(en[SFG_SQRT] || (in_pipe && fn == SFN_SQRT)), .gclk(sqr_clk));
    plena_exp_pipe   u_exp (.clk2(exp_clk), .clk3(exp_clk), .clk4(exp_clk),
                           .a(iso(a, en[SFG_EXP])), .y(y_exp));
    plena_recip_pipe u_rcp (.clk2(rcp_clk), .clk3(rcp_clk), .clk4(rcp_clk),
                           .a(iso(a, en[SFG_RECI])), .y(y_rcp));
    plena_sqrt_pipe  u_sqr (.clk(sqr_clk), .a(iso(a, en[SFG_SQRT])), .y(y_sqr));

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
