// Testbench for the IEEE binary32 units of the coral RTL (fp32_fma): streams operand
// words from a memory through the unit, one per clock, and stores {flags, y}. The
// cocotb side writes ieee_ops.hex, pulses `start` with `count` set, waits for `done`,
// then reads ieee_res.hex: no Python runs per operand.
//
// Operand word: a = bits 31:0, b = 63:32, c = 95:64, control = 127:96
// (rm = 2:0, neg_prod = 3, neg_add = 4, mul_only = 5).
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
    reg running, fin;

    wire [127:0] op = ops[idx];
    wire [31:0] y;
    wire [4:0]  flags;
    fp32_fma u_fma (.a(op[31:0]), .b(op[63:32]), .c(op[95:64]), .rm(op[98:96]),
                    .neg_prod(op[99]), .neg_add(op[100]), .mul_only(op[101]), .y(y), .flags(flags));

    initial begin
        done = 1'b0;
        running = 1'b0;
        fin = 1'b0;
        idx = {AW{1'b0}};
    end

    always @(posedge clk) begin
        if (start) begin
            $readmemh("ieee_ops.hex", ops, 0, count - 1);
            idx <= {AW{1'b0}};
            running <= 1'b1;
            done <= 1'b0;
        end else if (running) begin
            res[idx] <= {27'd0, flags, y};
            if ({{(32 - AW){1'b0}}, idx} == count - 1) begin
                running <= 1'b0;
                fin <= 1'b1;
            end
            idx <= idx + 1'b1;
        end else if (fin) begin          // the last result has landed
            $writememh("ieee_res.hex", res, 0, count - 1);
            fin <= 1'b0;
            done <= 1'b1;
        end
    end
endmodule
