// Restoring square-root steps of fp32_sqrt: root bits TOP down to BOT of the radicand
// x in [2^52, 2^54), one per step (bring down two bits, subtract the trial {root, 01}
// when the remainder allows). The remainder and root so far come in and go out, so the
// steps can be split between pipeline stages; fp32_sqrt starts from zero, 26 down to 0.
// Combinational.
module fp32_sqrt_steps #(
    parameter integer TOP = 26,
    parameter integer BOT = 0
) (
    input  wire [28:0] rem_in,
    input  wire [26:0] root_in,
    input  wire [53:0] x,
    output reg  [28:0] rem_out,
    output reg  [26:0] root_out
);
    reg [28:0] trial;
    integer i;
    always @* begin
        rem_out = rem_in;
        root_out = root_in;
        trial = 29'd0;
        for (i = TOP; i >= BOT; i = i - 1) begin
            rem_out = {rem_out[26:0], x[2*i+1 -: 2]};
            trial = {root_out, 2'b01};
            if (rem_out >= trial) begin
                rem_out = rem_out - trial;
                root_out = {root_out[25:0], 1'b1};
            end else begin
                root_out = {root_out[25:0], 1'b0};
            end
        end
    end
endmodule
