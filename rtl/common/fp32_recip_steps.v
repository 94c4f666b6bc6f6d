// Restoring division steps of fp32_recip: quotient bits TOP down to TOP-N+1 of
// 1.0 / (m / 2^23), one per step (subtract m when the remainder allows, then shift).
// The remainder and quotient so far come in and go out, so the steps can be split
// between pipeline stages. fp32_recip starts from r = 1.0 (2^23), q = 0, TOP = 27.
// Combinational.
module fp32_recip_steps #(
    parameter integer TOP = 27,
    parameter integer N = 28
) (
    input  wire [24:0] r_in,
    input  wire [27:0] q_in,
    input  wire [23:0] m,
    output reg  [24:0] r_out,
    output reg  [27:0] q_out
);
    integer i;
    always @* begin
        r_out = r_in;
        q_out = q_in;
        for (i = TOP; i > TOP - N; i = i - 1) begin
            if (r_out >= {1'b0, m}) begin
                q_out[i] = 1'b1;
                r_out = r_out - {1'b0, m};
            end
            r_out = r_out << 1;
        end
    end
endmodule
