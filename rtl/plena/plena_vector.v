// plena's vector unit: element-wise operations on Vector SRAM rows, S_MAP_V_FP, and the
// V_RED_SUM / V_RED_MAX reductions into an f register, all on one clock edge.
//
// Each element-wise function has its own group of lanes (plena_vgroup): VLEN / CHUNKS
// lanes, one chunk of the row read per cycle into the group's operand register, then the
// function (one stage, or a four-stage pipeline for exp and reciprocal), each finished
// chunk written back in place at the end of its cycle; the group's `done` (its last
// chunk leaving) ends the instruction: CHUNKS + its depth cycles (plena_units.vh). The
// reductions (plena_vreduce) capture the row and f[rd] at the end of the issue cycle
// and reduce it through a registered tree, one level per cycle; the core writes f[rd]
// at the end of the cycle in which the result leaves the tree (the reduction's `done`).
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
    output wire [31:0]        res_f,
    output wire               done        // the instruction's last cycle
);
    `include "plena_isa.vh"
    `include "plena_units.vh"

    localparam integer G_ADD = 0, G_MUL = 1, G_MAX = 2, G_EXP = 3, G_RECI = 4, G_MAP = 5;
    localparam integer NG = 6;

    // Chunks per row of each function (its lanes: VLEN / chunks).
    localparam integer C_ADD = VCHUNKS_1, C_MUL = VCHUNKS_1, C_MAX = VCHUNKS_1,
                       C_MAP = VCHUNKS_1, C_EXP = VCHUNKS_4, C_RECI = VCHUNKS_4;
    initial if (VLEN % VCHUNKS_1 != 0 || VLEN % VCHUNKS_4 != 0 || MAP_LANES != VLEN / C_MAP)
        $fatal(1, "plena_vector: the rows' chunks (%0d, %0d) must divide VLEN", VCHUNKS_1,
               VCHUNKS_4);
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
    wire [NG-1:0]      g_done;

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
                .row_out(g_row[gi]), .elems_out(g_elems[gi]), .done(g_done[gi]));
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
    wire        sum_done, max_done;
    plena_vreduce #(.VLEN(VLEN), .KIND(0)) u_rsum (
        .clk(clk), .rst(rst), .gate(active && step == 32'd0 && op == VOP_RSUM),
        .valid(run && step == 32'd0 && op == VOP_RSUM), .row(row_a), .f(f), .y(sum_y),
        .done(sum_done));
    plena_vreduce #(.VLEN(VLEN), .KIND(1)) u_rmax (
        .clk(clk), .rst(rst), .gate(active && step == 32'd0 && op == VOP_RMAX),
        .valid(run && step == 32'd0 && op == VOP_RMAX), .row(row_a), .f(f), .y(max_y),
        .done(max_done));

    assign res_f = (op == VOP_RSUM) ? sum_y : max_y;
    assign done = op == VOP_RSUM ? sum_done : op == VOP_RMAX ? max_done : |(g_done & sel);
endmodule
