// fp32_exp's last step, shared with pipelined forms of it: the polynomial p times 2^n
// (one fp32 multiplication, so a p just below 1 at n = -126 rounds into the subnormals
// as the model does), or fp32_exp_range's special result. Combinational.
module fp32_exp_scale (
    input  wire [31:0] p,
    input  wire [7:0]  n_field,
    input  wire [1:0]  special,
    output wire [31:0] y
);
    `include "fp_constants.vh"

    wire [31:0] scaled;
    fp32_mul u_scale (.a(p), .b({1'b0, n_field, 23'd0}), .y(scaled));
    assign y = special == 2'd1 ? FP32_CANON_NAN
             : special == 2'd2 ? 32'h7F80_0000
             : special == 2'd3 ? 32'h0000_0000
             : scaled;
endmodule
