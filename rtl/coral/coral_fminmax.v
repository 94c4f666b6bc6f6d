// coral_fminmax: RISC-V fmin.s / fmax.s (IEEE 754-2019 minimumNumber/maximumNumber):
// a NaN operand yields the other one, two NaNs the canonical NaN, -0 < +0, and NV when
// either operand is a signalling NaN. Combinational; bit for bit as
// simulators/coral/fp32.py (fmin, fmax, vminmax).
module coral_fminmax (
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire        max,
    output reg  [31:0] y,
    output wire        nv
);
    wire a_nan = a[30:23] == 8'hFF && a[22:0] != 23'd0, b_nan = b[30:23] == 8'hFF && b[22:0] != 23'd0;
    wire eq = a == b || (a[30:0] == 31'd0 && b[30:0] == 31'd0);
    wire lt = !eq && (a[31] != b[31] ? a[31] : (a[31] ? a[30:0] > b[30:0] : a[30:0] < b[30:0]));
    assign nv = (a_nan && !a[22]) || (b_nan && !b[22]);
    always @(*)
        if (a_nan && b_nan) y = 32'h7FC0_0000;
        else if (a_nan) y = b;
        else if (b_nan) y = a;
        else if (eq) y = {max ? a[31] & b[31] : a[31] | b[31], a[30:0]};
        else y = (lt != max) ? a : b;
endmodule
