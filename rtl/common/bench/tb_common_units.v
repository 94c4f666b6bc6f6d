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
    wire [31:0] w0 = op[31:0], w1 = op[63:32], w4 = op[159:128];

    wire [31:0] y_add, y_mul, y_bmul, y_b2f, y_max, y_min, y_exp, y_rcp, y_sqrt, y_sum, y_dot;
    wire [15:0] y_f2b;
    fp32_add      u_add  (.a(w0), .b(w1), .sub(op[64]), .y(y_add));
    fp32_mul      u_mul  (.a(w0), .b(w1), .y(y_mul));
    bf16_mul      u_bmul (.a(w0[15:0]), .b(w1[15:0]), .y(y_bmul));
    fp32_to_bf16  u_f2b  (.a(w0), .y(y_f2b));
    bf16_to_fp32  u_b2f  (.a(w0[15:0]), .y(y_b2f));
    fp32_max      u_max  (.a(w0), .b(w1), .y(y_max));
    fp32_min      u_min  (.a(w0), .b(w1), .y(y_min));
    fp32_exp      u_exp  (.a(w0), .y(y_exp));
    fp32_recip    u_rcp  (.a(w0), .y(y_rcp));
    fp32_sqrt     u_sqrt (.a(w0), .y(y_sqrt));
    fp32_tree_sum #(.L(8)) u_sum (.x(op), .y(y_sum));
    bf16_dot_acc  #(.L(4)) u_dot (.a(op[63:0]), .b(op[127:64]), .acc(w4), .y(y_dot));

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
            $readmemh("ops.hex", ops);
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
