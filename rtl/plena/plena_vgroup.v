// One group of vector lanes: LANES copies of one arithmetic function (KIND), used over
// VLEN / LANES cycles to cover a row. In cycle `step` of an instruction the group takes
// elements step*LANES .. step*LANES + LANES - 1: operands are captured in the middle of
// the cycle on the group's own operand clock, the lanes compute in fp32 and round to
// bf16 (round-to-nearest-even, canonical NaN), and `row_out`/`elems_out` place the
// results in their row positions for the core to write at the end of the cycle.
module plena_vgroup #(
    parameter integer VLEN  = 64,
    parameter integer LANES = 32,
    parameter integer KIND  = 0     // VK_* below
) (
    input  wire               clk,
    input  wire               en,        // the group computes a chunk this cycle
    input  wire [31:0]        step,
    input  wire [3:0]         op,
    input  wire [VLEN*16-1:0] row_a,
    input  wire [VLEN*16-1:0] row_b,
    input  wire               use_f,     // second operand is the scalar f (VF forms)
    input  wire [31:0]        f,
    // KIND == VK_MAP: this chunk's fp32 values, held by the core's own operand register
    // for the cycle (not captured again here); other kinds leave it unused.
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [LANES*32-1:0] map_vals,
    /* verilator lint_on UNUSEDSIGNAL */
    output reg  [VLEN*16-1:0] row_out,
    output reg  [VLEN-1:0]    elems_out
);
    `include "plena_units.vh"
    localparam integer VK_ADD = 0, VK_MUL = 1, VK_MAX = 2, VK_EXP = 3, VK_RECI = 4, VK_MAP = 5;

    wire gclk;
    plena_clkgate u_gate (.clk(clk), .en(en), .gclk(gclk));

    reg [LANES*32-1:0] a_q, b_q;
    // Waiver: the function selector is used by the add and max kinds only.
    /* verilator lint_off UNUSEDSIGNAL */
    reg [3:0]          op_q;
    /* verilator lint_on UNUSEDSIGNAL */
    reg [31:0]         base_q;
    integer e;
    always @(posedge gclk) begin
        base_q <= step * LANES;
        op_q <= op;
        for (e = 0; e < LANES; e = e + 1) begin
            // bf16 operands widen exactly to fp32 (the bf16 pattern is the top half).
            if (op == VOP_RSUB)
                a_q[32*e +: 32] <= f;
            else
                a_q[32*e +: 32] <= {row_a[16*(step*LANES + e) +: 16], 16'h0000};
            if (op == VOP_RSUB)
                b_q[32*e +: 32] <= {row_a[16*(step*LANES + e) +: 16], 16'h0000};
            else if (use_f)
                b_q[32*e +: 32] <= f;
            else
                b_q[32*e +: 32] <= {row_b[16*(step*LANES + e) +: 16], 16'h0000};
        end
    end

    wire [LANES*32-1:0] y32;
    wire [LANES*16-1:0] y16;
    genvar l;
    generate
        for (l = 0; l < LANES; l = l + 1) begin : g_lane
            // Waiver: exp and reciprocal kinds take one operand, the map kind none of these.
            /* verilator lint_off UNUSEDSIGNAL */
            wire [31:0] a = a_q[32*l +: 32];
            wire [31:0] b = b_q[32*l +: 32];
            /* verilator lint_on UNUSEDSIGNAL */
            if (KIND == VK_ADD) begin : g_add
                fp32_add u_add (.a(a), .b(b), .sub(op_q != VOP_ADD), .y(y32[32*l +: 32]));
            end else if (KIND == VK_MUL) begin : g_mul
                fp32_mul u_mul (.a(a), .b(b), .y(y32[32*l +: 32]));
            end else if (KIND == VK_MAX) begin : g_max
                wire [31:0] hi, lo;
                fp32_max u_max (.a(a), .b(b), .y(hi));
                fp32_min u_min (.a(a), .b(b), .y(lo));
                assign y32[32*l +: 32] = (op_q == VOP_MIN) ? lo : hi;
            end else if (KIND == VK_EXP) begin : g_exp
                fp32_exp u_exp (.a(a), .y(y32[32*l +: 32]));
            end else if (KIND == VK_RECI) begin : g_rcp
                fp32_recip u_rcp (.a(a), .y(y32[32*l +: 32]));
            end else if (KIND == VK_MAP) begin : g_map
                assign y32[32*l +: 32] = map_vals[32*l +: 32];
            end
            fp32_to_bf16 u_round (.a(y32[32*l +: 32]), .y(y16[16*l +: 16]));
        end
    endgenerate

    always @* begin
        row_out = {VLEN*16{1'b0}};
        elems_out = {VLEN{1'b0}};
        for (e = 0; e < LANES; e = e + 1) begin
            row_out[16*(base_q + e) +: 16] = y16[16*e +: 16];
            elems_out[base_q + e] = 1'b1;
        end
    end
endmodule
