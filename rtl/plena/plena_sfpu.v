// The scalar fp32 unit: S_ADD_FP, S_SUB_FP, S_MUL_FP, S_MAX_FP, S_EXP_FP, S_RECI_FP and
// S_SQRT_FP on f registers, by the shared units of rtl/common (the numerics of
// simulators/numerics.py, bit for bit).
//
// The core raises `go` in the first cycle of the instruction; the operands are captured
// in the middle of that cycle on the operand clock of the function's own group, so only
// that group evaluates, and `y` holds the result until the group's next `go`. The core
// stores `y` at the end of the instruction's last cycle (timing classes S_FP,
// S_FP_EXP, S_FP_RECI, S_FP_SQRT).
module plena_sfpu (
    input  wire        clk,
    input  wire        go,
    input  wire [2:0]  fn,
    input  wire [31:0] a,
    input  wire [31:0] b,
    output reg  [31:0] y
);
    `include "plena_units.vh"

    // One operand clock and operand register set per group of functions (S_SUB_FP
    // shares the adder with S_ADD_FP).
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
    wire [SFG_COUNT-1:0] gclk;
    genvar g;
    generate
        for (g = 0; g < SFG_COUNT; g = g + 1) begin : g_gate
            plena_clkgate u_gate (.clk(clk), .en(go && sel[g]), .gclk(gclk[g]));
        end
    endgenerate

    reg [31:0] add_a, add_b, mul_a, mul_b, max_a, max_b, exp_a, rcp_a, sqr_a;
    reg        add_sub;
    always @(posedge gclk[SFG_ADD]) begin add_a <= a; add_b <= b; add_sub <= (fn == SFN_SUB); end
    always @(posedge gclk[SFG_MUL]) begin mul_a <= a; mul_b <= b; end
    always @(posedge gclk[SFG_MAX]) begin max_a <= a; max_b <= b; end
    always @(posedge gclk[SFG_EXP]) exp_a <= a;
    always @(posedge gclk[SFG_RECI]) rcp_a <= a;
    always @(posedge gclk[SFG_SQRT]) sqr_a <= a;

    wire [31:0] y_add, y_mul, y_max, y_exp, y_rcp, y_sqr;
    fp32_add   u_add (.a(add_a), .b(add_b), .sub(add_sub), .y(y_add));
    fp32_mul   u_mul (.a(mul_a), .b(mul_b), .y(y_mul));
    fp32_max   u_max (.a(max_a), .b(max_b), .y(y_max));
    fp32_exp   u_exp (.a(exp_a), .y(y_exp));
    fp32_recip u_rcp (.a(rcp_a), .y(y_rcp));
    fp32_sqrt  u_sqr (.a(sqr_a), .y(y_sqr));

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
