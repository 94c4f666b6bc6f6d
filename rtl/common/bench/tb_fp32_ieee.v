// Testbench for the IEEE binary32 units of the coral RTL (fp32_fma, fp32_divsqrt):
// streams operand words from a memory through them and stores {flags, y} per word. The
// cocotb side writes ieee_ops.hex, pulses `start` with `count` set, waits for `done`,
// then reads ieee_res.hex: no Python runs per operand.
//
// Operand word: a = bits 31:0, b = 63:32, c = 95:64, control = 127:96: rm = 2:0,
// neg_prod = 3, neg_add = 4, mul_only = 5 (fp32_fma, one word per clock); bit 8 selects
// fp32_divsqrt (bit 9: sqrt), which takes a word at a time until its `done`.
module tb_fp32_ieee #(
    parameter integer DEPTH = 1048576
) (
    input  wire        clk,
    input  wire        start,
    input  wire [31:0] count,
    output reg         done
);
    localparam integer AW = $clog2(DEPTH);
    reg [127:0] ops [0:DEPTH-1];
    reg [63:0]  res [0:DEPTH-1];
    reg [AW-1:0] idx;
    reg running, fin, waiting;

    wire [127:0] op = ops[idx];
    wire [31:0] y, dy;
    wire [4:0]  flags, dflags;
    wire        dbusy, ddone;
    wire        use_div = op[104];
    fp32_fma u_fma (.a(op[31:0]), .b(op[63:32]), .c(op[95:64]), .rm(op[98:96]),
                    .neg_prod(op[99]), .neg_add(op[100]), .mul_only(op[101]), .y(y), .flags(flags));
    fp32_divsqrt u_div (.clk(clk), .start(running && use_div && !waiting), .sqrt(op[105]),
                        .a(op[31:0]), .b(op[63:32]), .rm(op[98:96]), .busy(dbusy), .done(ddone),
                        .y(dy), .flags(dflags));

    initial begin
        done = 1'b0;
        running = 1'b0;
        fin = 1'b0;
        waiting = 1'b0;
        idx = {AW{1'b0}};
    end

    wire last = {{(32 - AW){1'b0}}, idx} == count - 1;
    always @(posedge clk) begin
        if (start) begin
            $readmemh("ieee_ops.hex", ops, 0, count - 1);
            idx <= {AW{1'b0}};
            running <= 1'b1;
            done <= 1'b0;
            waiting <= 1'b0;
        end else if (running) begin
            if (use_div && !waiting) waiting <= 1'b1;          // started this edge
            else if (!use_div || (ddone && !dbusy)) begin
                res[idx] <= {27'd0, use_div ? dflags : flags, use_div ? dy : y};
                waiting <= 1'b0;
                if (last) begin
                    running <= 1'b0;
                    fin <= 1'b1;
                end
                idx <= idx + 1'b1;
            end
        end else if (fin) begin          // the last result has landed
            $writememh("ieee_res.hex", res, 0, count - 1);
            fin <= 1'b0;
            done <= 1'b1;
        end
    end
endmodule
