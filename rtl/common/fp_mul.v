// Floating-point multiply with an fp32 result: y = a * b rounded once (nearest even),
// for operands with an 8-bit exponent and FI fraction bits (FI = 23: fp32, FI = 7:
// bf16). Subnormals kept on both sides, canonical NaN, 0 * inf = NaN. Combinational.
//
// With bf16 operands the 16-bit product of significands always fits the fp32
// fraction, so the result is exact unless it overflows or falls below the normal
// range; those cases round exactly as the fp32 product of the widened operands.
module fp_mul #(
    parameter integer FI = 23
) (
    input  wire [8+FI:0] a,
    input  wire [8+FI:0] b,
    output wire [31:0]   y
);
    `include "fp_constants.vh"

    localparam integer W  = FI + 1;       // significand bits
    localparam integer PW = 2 * W;        // product bits

    wire [7:0] ea = a[7+FI:FI];
    wire [7:0] eb = b[7+FI:FI];
    wire a_nan  = (ea == 8'hFF) && (a[FI-1:0] != {FI{1'b0}});
    wire b_nan  = (eb == 8'hFF) && (b[FI-1:0] != {FI{1'b0}});
    wire a_inf  = (ea == 8'hFF) && (a[FI-1:0] == {FI{1'b0}});
    wire b_inf  = (eb == 8'hFF) && (b[FI-1:0] == {FI{1'b0}});
    wire a_zero = (a[7+FI:0] == {(8+FI){1'b0}});
    wire b_zero = (b[7+FI:0] == {(8+FI){1'b0}});
    wire sign = a[8+FI] ^ b[8+FI];

    wire [W-1:0] ma = {ea != 8'd0, a[FI-1:0]};
    wire [W-1:0] mb = {eb != 8'd0, b[FI-1:0]};
    wire [PW-1:0] prod = ma * mb;

    // Leading zeros of the product (subnormal operands leave many).
    localparam [7:0] PW8 = PW[7:0];
    function automatic [7:0] clz(input [PW-1:0] v);
        integer i;
        begin
            clz = PW8;
            for (i = 0; i < PW; i = i + 1)
                if (v[i]) clz = PW8 - 8'd1 - i[7:0];
        end
    endfunction

    wire [7:0] lz = clz(prod);
    wire [PW-1:0] norm = prod << lz;
    // Leading one at bit PW-1 means 1.x * 2^(ea + eb - 254 + 1), biased: ea + eb - 126.
    wire signed [11:0] exp = $signed({4'd0, (ea == 8'd0) ? 8'd1 : ea})
                           + $signed({4'd0, (eb == 8'd0) ? 8'd1 : eb})
                           - 12'sd126 - $signed({4'd0, lz});

    wire [26:0] sig;
    wire sticky;
    generate
        if (PW >= 27) begin : g_wide
            assign sig = norm[PW-1 -: 27];
            if (PW > 27) begin : g_rest
                assign sticky = |norm[PW-28:0];
            end else begin : g_none
                assign sticky = 1'b0;
            end
        end else begin : g_narrow
            assign sig = {norm, {(27-PW){1'b0}}};
            assign sticky = 1'b0;
        end
    endgenerate

    wire [31:0] rounded;
    fp32_round_pack u_round (.sign(sign), .exp(exp), .sig(sig), .sticky(sticky), .y(rounded));

    assign y = (a_nan || b_nan || (a_inf && b_zero) || (b_inf && a_zero)) ? FP32_CANON_NAN
             : (a_inf || b_inf) ? {sign, 8'hFF, 23'd0}
             : (a_zero || b_zero) ? {sign, 31'd0}
             : rounded;
endmodule
