// fp32 max (MIN = 0) or min (MIN = 1): NaN if either operand is NaN (canonical);
// otherwise the larger/smaller in the order -inf < ... < -0 < +0 < ... < +inf, so
// max(-0, +0) = +0 and min(-0, +0) = -0. Combinational.
module fp32_minmax #(
    parameter integer MIN = 0
) (
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    `include "fp_constants.vh"

    wire a_nan = (a[30:23] == 8'hFF) && (a[22:0] != 23'd0);
    wire b_nan = (b[30:23] == 8'hFF) && (b[22:0] != 23'd0);
    // Sign-magnitude order with -0 below +0.
    wire a_lt_b = (a[31] != b[31]) ? a[31]
                : a[31] ? (a[30:0] > b[30:0])
                :         (a[30:0] < b[30:0]);
    wire pick_b = (MIN != 0) ? !a_lt_b : a_lt_b;
    assign y = (a_nan || b_nan) ? FP32_CANON_NAN : (pick_b ? b : a);
endmodule
