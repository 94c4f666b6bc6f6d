// plena's vector unit: element-wise operations on Vector SRAM rows, S_MAP_V_FP, and the
// V_RED_SUM / V_RED_MAX reductions into an f register, all on one clock edge.
//
// Each element-wise function has its own group of lanes (plena_vgroup): VLEN / CHUNKS
// lanes, one chunk of the row read per cycle into the group's operand register, then the
// function (one stage, or a four-stage pipeline for exp and reciprocal), each finished
// chunk written back in place at the end of its cycle. A function's timing class is
// CHUNKS + its depth (VDEPTH_* in plena_units.vh), checked below. The reductions
// (plena_vreduce) capture the row and f[rd] at the end of the issue cycle and reduce it
// through a registered tree; the core writes f[rd] at the end of the instruction.
module plena_vector #(
    /* verilator lint_off UNUSEDPARAM */
    // Waiver: the whole configuration, as every plena module (see plena_check).
    `include "plena_params.vh"
    /* verilator lint_on UNUSEDPARAM */
    , parameter integer MAP_LANES = VLEN / 2     // S_MAP_V_FP lanes (the core's register)
) (
    input  wire               clk,
    input  wire               rst,
    input  wire               active,     // a vector instruction is at issue or in flight
    input  wire               run,        // ... and occupies the unit this cycle
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

    // Chunks per row of each function: its timing class less its pipeline depth.
    localparam integer C_ADD = T_V_ADD - VDEPTH_1, C_MUL = T_V_MUL - VDEPTH_1,
                       C_MAX = T_V_MAX - VDEPTH_1, C_MAP = T_V_MAP - VDEPTH_1,
                       C_EXP = T_V_EXP - VDEPTH_4, C_RECI = T_V_RECI - VDEPTH_4;
    initial if (C_ADD < 1 || C_MUL < 1 || C_MAX < 1 || C_MAP < 1 || C_EXP < 1 || C_RECI < 1
                || VLEN % C_ADD != 0 || VLEN % C_MUL != 0 || VLEN % C_MAX != 0
                || VLEN % C_MAP != 0 || VLEN % C_EXP != 0 || VLEN % C_RECI != 0
                || MAP_LANES != VLEN / C_MAP)
        $fatal(1, "plena_vector: the vector timing classes must be chunks + pipeline depth (%0d for exp and reciprocal, %0d for the rest), the chunks dividing VLEN",
               VDEPTH_4, VDEPTH_1);

    wire [NG-1:0] sel;
    assign sel[G_ADD]  = (op == VOP_ADD || op == VOP_SUB || op == VOP_RSUB);
    assign sel[G_MUL]  = (op == VOP_MUL);
    assign sel[G_MAX]  = (op == VOP_MAX || op == VOP_MIN);
    assign sel[G_EXP]  = (op == VOP_EXP);
    assign sel[G_RECI] = (op == VOP_RECI);
    assign sel[G_MAP]  = (op == VOP_MAP);
    wire [NG-1:0] gate = {NG{active}} & sel;
    wire [NG-1:0] go = {NG{run}} & sel;

    wire [VLEN*16-1:0] g_row [0:NG-1];
    wire [VLEN-1:0]    g_elems [0:NG-1];

    function automatic integer chunks_of(input integer g);
        chunks_of = g == G_ADD ? C_ADD : g == G_MUL ? C_MUL : g == G_MAX ? C_MAX
                  : g == G_EXP ? C_EXP : g == G_RECI ? C_RECI : C_MAP;
    endfunction
    genvar gi;
    generate
        for (gi = 0; gi < NG; gi = gi + 1) begin : g_group
            localparam integer C = chunks_of(gi);
            wire [(VLEN / C)*32-1:0] mv;
            if (gi == G_MAP) begin : g_map
                assign mv = map_vals;
            end else begin : g_nomap
                assign mv = {(VLEN / C)*32{1'b0}};
            end
            plena_vgroup #(.VLEN(VLEN), .CHUNKS(C), .KIND(gi)) u_group (
                .clk(clk), .rst(rst), .gate(gate[gi]), .run(go[gi]), .step(step), .op(op),
                .row_a(row_a), .row_b(row_b), .use_f(use_f), .f(f), .map_vals(mv),
                .row_out(g_row[gi]), .elems_out(g_elems[gi]));
        end
    endgenerate

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

    // Reductions: the row and f[rd] captured at the end of the issue cycle.
    wire [31:0] sum_y, max_y;
    plena_vreduce #(.VLEN(VLEN), .KIND(0), .T(T_V_RED_SUM)) u_rsum (
        .clk(clk), .rst(rst), .gate(active && step == 32'd0 && op == VOP_RSUM),
        .valid(run && step == 32'd0 && op == VOP_RSUM), .row(row_a), .f(f), .y(sum_y));
    plena_vreduce #(.VLEN(VLEN), .KIND(1), .T(T_V_RED_MAX)) u_rmax (
        .clk(clk), .rst(rst), .gate(active && step == 32'd0 && op == VOP_RMAX),
        .valid(run && step == 32'd0 && op == VOP_RMAX), .row(row_a), .f(f), .y(max_y));

    assign res_f = (op == VOP_RSUM) ? sum_y : max_y;
endmodule
