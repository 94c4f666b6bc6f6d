// plena's vector unit: element-wise operations on Vector SRAM rows, S_MAP_V_FP, and the
// V_RED_SUM / V_RED_MAX reductions into an f register.
//
// Each element-wise function has its own group of lanes, sized so that a row takes
// exactly the cycles of the function's timing class: VLEN / T lanes, one chunk of the
// row per cycle, each chunk written back in place at the end of its cycle (chunks are
// disjoint, so a destination that is also a source is read before it is written). The
// reductions take the whole row at once in the instruction's first cycle through a
// combinational tree (the halving order of the numerics for the sum; any order for the
// max, whose NaN and signed-zero rules make it associative) and hold the result for the
// core, which writes f[rd] at the end of the instruction.
module plena_vector #(
    /* verilator lint_off UNUSEDPARAM */
    // Waiver: the whole configuration, as every plena module (see plena_check).
    `include "plena_params.vh"
    /* verilator lint_on UNUSEDPARAM */
    , parameter integer MAP_LANES = VLEN / 2     // VLEN / T_V_MAP (S_MAP_V_FP lanes)
) (
    input  wire               clk,
    input  wire               active,     // a vector instruction occupies the unit
    input  wire [31:0]        step,       // its cycle, from 0
    input  wire [3:0]         op,
    input  wire [VLEN*16-1:0] row_a,
    input  wire [VLEN*16-1:0] row_b,
    input  wire               use_f,
    input  wire [31:0]        f,          // f[rs2] (VF forms) or f[rd] (reductions)
    input  wire [MAP_LANES*32-1:0] map_vals,   // S_MAP_V_FP: this chunk's fp32 values
    output reg  [VLEN*16-1:0] wr_data,    // this cycle's results, at their row positions
    output reg  [VLEN-1:0]    wr_elems,   // which elements they are
    output wire [31:0]        res_f
);
    `include "plena_isa.vh"
    `include "plena_units.vh"

    localparam integer G_ADD = 0, G_MUL = 1, G_MAX = 2, G_EXP = 3, G_RECI = 4, G_MAP = 5;
    localparam integer NG = 6;

    wire [NG-1:0] en;
    assign en[G_ADD]  = active && (op == VOP_ADD || op == VOP_SUB || op == VOP_RSUB);
    assign en[G_MUL]  = active && (op == VOP_MUL);
    assign en[G_MAX]  = active && (op == VOP_MAX || op == VOP_MIN);
    assign en[G_EXP]  = active && (op == VOP_EXP);
    assign en[G_RECI] = active && (op == VOP_RECI);
    assign en[G_MAP]  = active && (op == VOP_MAP);

    wire [VLEN*16-1:0] g_row [0:NG-1];
    wire [VLEN-1:0]    g_elems [0:NG-1];

    plena_vgroup #(.VLEN(VLEN), .LANES(VLEN / T_V_ADD), .KIND(G_ADD)) u_add (
        .clk(clk), .en(en[G_ADD]), .step(step), .op(op), .row_a(row_a), .row_b(row_b),
        .use_f(use_f), .f(f), .map_vals({(VLEN / T_V_ADD)*32{1'b0}}), .row_out(g_row[G_ADD]), .elems_out(g_elems[G_ADD]));
    plena_vgroup #(.VLEN(VLEN), .LANES(VLEN / T_V_MUL), .KIND(G_MUL)) u_mul (
        .clk(clk), .en(en[G_MUL]), .step(step), .op(op), .row_a(row_a), .row_b(row_b),
        .use_f(use_f), .f(f), .map_vals({(VLEN / T_V_MUL)*32{1'b0}}), .row_out(g_row[G_MUL]), .elems_out(g_elems[G_MUL]));
    plena_vgroup #(.VLEN(VLEN), .LANES(VLEN / T_V_MAX), .KIND(G_MAX)) u_max (
        .clk(clk), .en(en[G_MAX]), .step(step), .op(op), .row_a(row_a), .row_b(row_b),
        .use_f(use_f), .f(f), .map_vals({(VLEN / T_V_MAX)*32{1'b0}}), .row_out(g_row[G_MAX]), .elems_out(g_elems[G_MAX]));
    plena_vgroup #(.VLEN(VLEN), .LANES(VLEN / T_V_EXP), .KIND(G_EXP)) u_exp (
        .clk(clk), .en(en[G_EXP]), .step(step), .op(op), .row_a(row_a), .row_b(row_b),
        .use_f(use_f), .f(f), .map_vals({(VLEN / T_V_EXP)*32{1'b0}}), .row_out(g_row[G_EXP]), .elems_out(g_elems[G_EXP]));
    plena_vgroup #(.VLEN(VLEN), .LANES(VLEN / T_V_RECI), .KIND(G_RECI)) u_rcp (
        .clk(clk), .en(en[G_RECI]), .step(step), .op(op), .row_a(row_a), .row_b(row_b),
        .use_f(use_f), .f(f), .map_vals({(VLEN / T_V_RECI)*32{1'b0}}), .row_out(g_row[G_RECI]), .elems_out(g_elems[G_RECI]));
    plena_vgroup #(.VLEN(VLEN), .LANES(VLEN / T_V_MAP), .KIND(G_MAP)) u_map (
        .clk(clk), .en(en[G_MAP]), .step(step), .op(op), .row_a(row_a), .row_b(row_b),
        .use_f(use_f), .f(f), .map_vals(map_vals), .row_out(g_row[G_MAP]), .elems_out(g_elems[G_MAP]));

    // The core writes these only for element-wise operations (one of the groups).
    always @* begin
        case (op)
            VOP_MUL:          begin wr_data = g_row[G_MUL];  wr_elems = g_elems[G_MUL]; end
            VOP_MAX, VOP_MIN: begin wr_data = g_row[G_MAX];  wr_elems = g_elems[G_MAX]; end
            VOP_EXP:          begin wr_data = g_row[G_EXP];  wr_elems = g_elems[G_EXP]; end
            VOP_RECI:         begin wr_data = g_row[G_RECI]; wr_elems = g_elems[G_RECI]; end
            VOP_MAP:          begin wr_data = g_row[G_MAP];  wr_elems = g_elems[G_MAP]; end
            default:          begin wr_data = g_row[G_ADD];  wr_elems = g_elems[G_ADD]; end
        endcase
    end

    // Reductions: the row and f[rd] captured in the first cycle.
    wire rsum_clk, rmax_clk;
    plena_clkgate u_gsum (.clk(clk), .en(active && step == 32'd0 && op == VOP_RSUM), .gclk(rsum_clk));
    plena_clkgate u_gmax (.clk(clk), .en(active && step == 32'd0 && op == VOP_RMAX), .gclk(rmax_clk));
    reg [VLEN*32-1:0] sum_x, max_x;
    reg [31:0] sum_f, max_f;
    integer e;
    always @(posedge rsum_clk) begin
        sum_f <= f;
        for (e = 0; e < VLEN; e = e + 1) sum_x[32*e +: 32] <= {row_a[16*e +: 16], 16'h0000};
    end
    always @(posedge rmax_clk) begin
        max_f <= f;
        for (e = 0; e < VLEN; e = e + 1) max_x[32*e +: 32] <= {row_a[16*e +: 16], 16'h0000};
    end

    wire [31:0] row_sum, sum_y;
    fp32_tree_sum #(.L(VLEN)) u_tree (.x(sum_x), .y(row_sum));
    fp32_add u_acc (.a(sum_f), .b(row_sum), .sub(1'b0), .y(sum_y));

    // Max tree: level k reduces the VLEN >> k values of level k-1 pairwise.
    localparam integer LV = $clog2(VLEN);
    wire [31:0] max_y;
    genvar lv, j;
    generate
        for (lv = 0; lv < LV; lv = lv + 1) begin : g_mlevel
            localparam integer HALF = VLEN >> (lv + 1);
            wire [64*HALF-1:0] in_v;
            wire [32*HALF-1:0] out_v;
            if (lv == 0) begin : g_first
                assign in_v = max_x;
            end else begin : g_next
                assign in_v = g_mlevel[lv-1].out_v;
            end
            for (j = 0; j < HALF; j = j + 1) begin : g_max
                fp32_max u_m (.a(in_v[32*j +: 32]), .b(in_v[32*(j + HALF) +: 32]), .y(out_v[32*j +: 32]));
            end
        end
        if (LV == 0) begin : g_one
            fp32_max u_last (.a(max_f), .b(max_x[31:0]), .y(max_y));
        end else begin : g_many
            fp32_max u_last (.a(max_f), .b(g_mlevel[LV-1].out_v), .y(max_y));
        end
    endgenerate

    assign res_f = (op == VOP_RSUM) ? sum_y : max_y;
endmodule
