// Testbench for the shared arithmetic units: streams operand words from a memory
// through every unit, one word per clock, and stores the result of the unit chosen
// by `sel`. The cocotb side writes ops.hex, pulses `start` with `count` set, waits for
// `done`, then reads res.hex: no Python runs per operand.
//
// Operand word layout (w0 = bits 31:0 ... w7 = bits 255:224), by unit:
//   two-operand fp32 units: a = w0, b = w1 (fp32_add: sub = w2[0])
//   bf16 inputs: the low 16 bits of their word
//   fp32_tree_sum: w0..w7;  bf16_dot_acc: a = w0..w1, b = w2..w3, acc = w4
module tb_common_units #(
    parameter integer DEPTH = 131072
) (
    input  wire        clk,
    input  wire        start,
    input  wire [4:0]  sel,
    input  wire [31:0] count,
    output reg         done
);
    // Unit codes for `sel`; the cocotb bench reads them by name.
    localparam [4:0] SEL_FP32_ADD     = 5'd0;
    localparam [4:0] SEL_FP32_MUL     = 5'd1;
    localparam [4:0] SEL_BF16_MUL     = 5'd2;
    localparam [4:0] SEL_FP32_TO_BF16 = 5'd3;
    localparam [4:0] SEL_BF16_TO_FP32 = 5'd4;
    localparam [4:0] SEL_FP32_MAX     = 5'd5;
    localparam [4:0] SEL_FP32_MIN     = 5'd6;
    localparam [4:0] SEL_FP32_EXP     = 5'd7;
    localparam [4:0] SEL_FP32_RECIP   = 5'd8;
    localparam [4:0] SEL_FP32_SQRT    = 5'd9;
    localparam [4:0] SEL_FP32_TREE_SUM = 5'd10;
    localparam [4:0] SEL_BF16_DOT_ACC = 5'd11;

    localparam integer AW = $clog2(DEPTH);

    reg [255:0] ops [0:DEPTH-1];
    reg [31:0]  res [0:DEPTH-1];
    reg [AW-1:0] idx;
    reg running, flush;

    wire [255:0] op = ops[idx];

    // Each unit sees the operand word only while selected, so an event-driven
    // simulator (Icarus) evaluates just that unit per clock.
    // (sel and op are arguments, not free variables: a continuous assignment
    // re-evaluates a function only when its arguments change.)
    function [255:0] gate(input [4:0] s, input [255:0] o, input [4:0] code);
        gate = (s == code) ? o : 256'd0;
    endfunction
    wire [255:0] o_add = gate(sel, op, SEL_FP32_ADD),  o_mul = gate(sel, op, SEL_FP32_MUL);
    wire [255:0] o_bmul = gate(sel, op, SEL_BF16_MUL), o_f2b = gate(sel, op, SEL_FP32_TO_BF16);
    wire [255:0] o_b2f = gate(sel, op, SEL_BF16_TO_FP32), o_max = gate(sel, op, SEL_FP32_MAX);
    wire [255:0] o_min = gate(sel, op, SEL_FP32_MIN),  o_exp = gate(sel, op, SEL_FP32_EXP);
    wire [255:0] o_rcp = gate(sel, op, SEL_FP32_RECIP), o_sqrt = gate(sel, op, SEL_FP32_SQRT);
    wire [255:0] o_sum = gate(sel, op, SEL_FP32_TREE_SUM), o_dot = gate(sel, op, SEL_BF16_DOT_ACC);

    wire [31:0] y_add, y_mul, y_bmul, y_b2f, y_max, y_min, y_exp, y_rcp, y_sqrt, y_sum, y_dot;
    wire [15:0] y_f2b;
    fp32_add      u_add  (.a(o_add[31:0]), .b(o_add[63:32]), .sub(o_add[64]), .y(y_add));
    fp32_mul      u_mul  (.a(o_mul[31:0]), .b(o_mul[63:32]), .y(y_mul));
    bf16_mul      u_bmul (.a(o_bmul[15:0]), .b(o_bmul[47:32]), .y(y_bmul));
    fp32_to_bf16  u_f2b  (.a(o_f2b[31:0]), .y(y_f2b));
    bf16_to_fp32  u_b2f  (.a(o_b2f[15:0]), .y(y_b2f));
    fp32_max      u_max  (.a(o_max[31:0]), .b(o_max[63:32]), .y(y_max));
    fp32_min      u_min  (.a(o_min[31:0]), .b(o_min[63:32]), .y(y_min));
    fp32_exp      u_exp  (.a(o_exp[31:0]), .y(y_exp));
    fp32_recip    u_rcp  (.a(o_rcp[31:0]), .y(y_rcp));
    fp32_sqrt     u_sqrt (.a(o_sqrt[31:0]), .y(y_sqrt));
    fp32_tree_sum #(.L(8)) u_sum (.x(o_sum), .y(y_sum));
    bf16_dot_acc  #(.L(4)) u_dot (.a(o_dot[63:0]), .b(o_dot[127:64]), .acc(o_dot[159:128]),
                                  .y(y_dot));

    reg [31:0] y;
    always @* begin
        case (sel)
            SEL_FP32_ADD:      y = y_add;
            SEL_FP32_MUL:      y = y_mul;
            SEL_BF16_MUL:      y = y_bmul;
            SEL_FP32_TO_BF16:  y = {16'd0, y_f2b};
            SEL_BF16_TO_FP32:  y = y_b2f;
            SEL_FP32_MAX:      y = y_max;
            SEL_FP32_MIN:      y = y_min;
            SEL_FP32_EXP:      y = y_exp;
            SEL_FP32_RECIP:    y = y_rcp;
            SEL_FP32_SQRT:     y = y_sqrt;
            SEL_FP32_TREE_SUM: y = y_sum;
            SEL_BF16_DOT_ACC:  y = y_dot;
            default:           y = 32'hDEAD_BEEF;
        endcase
    end

    initial begin
        done = 1'b0;
        running = 1'b0;
        flush = 1'b0;
        idx = {AW{1'b0}};
    end

    always @(posedge clk) begin
        if (start) begin
            $readmemh("ops.hex", ops, 0, count - 32'd1);
            idx <= {AW{1'b0}};
            running <= 1'b1;
            flush <= 1'b0;
            done <= 1'b0;
        end else if (running) begin
            res[idx] <= y;
            idx <= idx + 1'b1;
            if ({{(32-AW){1'b0}}, idx} == count - 32'd1) begin
                running <= 1'b0;
                flush <= 1'b1;
            end
        end else if (flush) begin
            $writememh("res.hex", res, 0, count - 32'd1);
            flush <= 1'b0;
            done <= 1'b1;
        end
    end
endmodule
