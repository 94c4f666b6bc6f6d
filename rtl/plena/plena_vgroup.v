// One group of vector lanes: LANES = VLEN / CHUNKS copies of one arithmetic function
// (KIND), used over CHUNKS cycles to cover a row. In cycle `step` of an instruction
// (step < CHUNKS) the group reads elements step*LANES .. step*LANES + LANES - 1.
//
// A pipeline on one clock edge, every stage a rising-edge register behind an integrated
// clock gate (icg), so an idle group never toggles:
//   R       (cycle c)       the chunk's rows read by the Vector SRAM's ports A and B
//                           (their read registers), its position, the function and f
//                           captured at the end of cycle c; in c + 1 the chunk's
//                           elements are selected, pass the group's operand isolation
//                           (plena_opiso: AND gates, open in the cycles R's gated clock
//                           pulses) and are widened exactly to fp32
//   add, multiply, max/min, S_MAP_V_FP: one stage after R (DEPTH 1): the lanes compute
//           in cycle c + 1 and round to bf16 (round-to-nearest-even, canonical NaN)
//   exp, reciprocal: plena_exp_pipe / plena_recip_pipe after R (DEPTH 4), the
//           scalar unit's four-stage pipelines: results in cycle c + 4
// `row_out`/`elems_out` place a finished chunk at its row positions (no elements when
// none finishes this cycle; row_out then keeps the last chunk's, unwritten) for the
// core to write at the end of the cycle. The last
// chunk finishes in cycle CHUNKS - 1 + DEPTH (the instruction takes CHUNKS + DEPTH
// cycles); `done` is raised as it leaves, which ends the instruction.
// Chunks are disjoint, so a destination that is also a source is read before written.
module plena_vgroup #(
    parameter integer VLEN   = 64,
    parameter integer CHUNKS = 2,
    parameter integer KIND   = 0     // VK_* below
) (
    input  wire               clk,
    input  wire               rst,
    input  wire               gate,      // the group's instruction is at issue or in flight
    input  wire               run,       // ... and occupies the unit this cycle
    input  wire [31:0]        step,
    input  wire [3:0]         op,
    input  wire [VLEN*16-1:0] row_a,
    input  wire [VLEN*16-1:0] row_b,
    input  wire               use_f,     // second operand is the scalar f (VF forms)
    input  wire [31:0]        f,
    // KIND == VK_MAP: this chunk's fp32 values, the core's own R-stage register (loaded
    // on the same edge as this group's R); other kinds leave it unused.
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [(VLEN/CHUNKS)*32-1:0] map_vals,
    /* verilator lint_on UNUSEDSIGNAL */
    output reg  [VLEN*16-1:0] row_out,
    output reg  [VLEN-1:0]    elems_out,
    output wire               done        // the row's last chunk leaves this cycle
);
    `include "plena_units.vh"
    localparam integer VK_ADD = 0, VK_MUL = 1, VK_MAX = 2, VK_EXP = 3, VK_RECI = 4, VK_MAP = 5;
    localparam integer LANES = VLEN / CHUNKS;
    localparam integer PIPED = (KIND == VK_EXP || KIND == VK_RECI) ? 1 : 0;

    wire feed = step < 32'(CHUNKS);
    wire rclk;
    icg u_rgate (.clk(clk), .en(gate && feed), .gclk(rclk));

    // R: the chunk's rows are the Vector SRAM's port A and B read registers (read in
    // cycle c, presented in c + 1); the group registers the chunk's position, the
    // function and the scalar operand, and selects the chunk's elements.
    localparam integer CW = CHUNKS > 1 ? $clog2(CHUNKS) : 1;
    reg [CW-1:0]       c_r;                  // the chunk's index
    reg [3:0]          op_q;
    reg [31:0]         base_r, f_q;
    reg                use_f_q;
    reg                v_r;
    integer e;
    always @(posedge rclk) begin
        base_r <= step * LANES;
        c_r <= CW'(step);
        op_q <= op;
        f_q <= f;
        use_f_q <= use_f;
    end
    wire [LANES*16-1:0] ca = row_a[LANES*16*c_r +: LANES*16];
    // Waiver: the chunk's B elements, used by the two-operand kinds only.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [LANES*16-1:0] cb = row_b[LANES*16*c_r +: LANES*16];
    /* verilator lint_on UNUSEDSIGNAL */
    // The lanes' operands pass the operand isolation (plena_opiso: AND gates open in the
    // chunk's cycle, act = the gate's enable registered; zero in other cycles): port A's
    // and B's read registers change with every vector instruction's reads, and the lanes
    // would switch with them. Everything the lanes read passes it (all of it comes from
    // registers on rclk's rising edge). The lanes' results are taken only at the edge
    // ending such a cycle: the single-cycle kinds' row is written where v_r (run && feed
    // registered, a subset of the gate's enable) marks elements, the pipelines' stage 2
    // on sclk2 (enable v_r). The map kind's lanes take map_vals instead: no isolation.
    // Waiver: the function selector is used by the add and max kinds only, the chunk's B
    // elements by the two-operand kinds.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [LANES*16-1:0] ca_l, cb_l;
    wire [3:0]          op_l;
    wire [31:0]         f_l;
    wire                use_f_l;
    /* verilator lint_on UNUSEDSIGNAL */
    generate
        if (KIND == VK_ADD || KIND == VK_MUL || KIND == VK_MAX) begin : g_iso2
            plena_opiso #(.W(2*LANES*16 + 4 + 32 + 1)) u_opiso (
                .clk(clk), .en(gate && feed), .gclk(rclk), .d({ca, cb, op_q, f_q, use_f_q}),
                .q({ca_l, cb_l, op_l, f_l, use_f_l}));
        end else if (KIND != VK_MAP) begin : g_iso1
            plena_opiso #(.W(LANES*16 + 4 + 32 + 1)) u_opiso (
                .clk(clk), .en(gate && feed), .gclk(rclk), .d({ca, op_q, f_q, use_f_q}),
                .q({ca_l, op_l, f_l, use_f_l}));
            assign cb_l = {LANES*16{1'b0}};
        end else begin : g_noiso
            assign {ca_l, cb_l, op_l, f_l, use_f_l} = {ca, cb, op_q, f_q, use_f_q};
        end
    endgenerate
    // Waiver: exp and reciprocal kinds take one operand, the map kind none of these.
    /* verilator lint_off UNUSEDSIGNAL */
    reg [LANES*32-1:0] a_q, b_q;
    /* verilator lint_on UNUSEDSIGNAL */
    always @* begin
        for (e = 0; e < LANES; e = e + 1) begin
            if (op_l == VOP_RSUB)
                a_q[32*e +: 32] = f_l;
            else
                a_q[32*e +: 32] = {ca_l[16*e +: 16], 16'h0000};
            if (op_l == VOP_RSUB)
                b_q[32*e +: 32] = {ca_l[16*e +: 16], 16'h0000};
            else if (use_f_l)
                b_q[32*e +: 32] = f_l;
            else
                b_q[32*e +: 32] = {cb_l[16*e +: 16], 16'h0000};
        end
    end
    always @(posedge clk) v_r <= !rst && run && feed;

    // The chunk leaving the group this cycle: its position and whether there is one.
    wire [31:0] base_out;
    wire        v_out;
    // Waiver: the clocks of the pipelines' stages 2, 3 and 4, used by the exp and
    // reciprocal kinds only.
    /* verilator lint_off UNUSEDSIGNAL */
    wire        sclk2, sclk3, sclk4;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [LANES*32-1:0] y32;
    wire [LANES*16-1:0] y16;
    genvar l;
    generate
        if (PIPED != 0) begin : g_piped
            reg v_1, v_2, v_3;
            always @(posedge clk) begin
                v_1 <= !rst && v_r;
                v_2 <= !rst && v_1;
                v_3 <= !rst && v_2;
            end
            // The pipelines' stages (and the chunk's position beside them) each on a gate
            // of their own, open while the stage before holds a chunk: each stage's logic
            // switches once per chunk (CHUNKS times per instruction, not CHUNKS + 2).
            icg u_s2gate (.clk(clk), .en(v_r), .gclk(sclk2));
            icg u_s3gate (.clk(clk), .en(v_1), .gclk(sclk3));
            icg u_s4gate (.clk(clk), .en(v_2), .gclk(sclk4));
            reg [31:0] base_1, base_2, base_3;
            always @(posedge sclk2) base_1 <= base_r;
            always @(posedge sclk3) base_2 <= base_1;
            always @(posedge sclk4) base_3 <= base_2;
            assign base_out = base_3;
            assign v_out = v_3;
        end else begin : g_single
            assign base_out = base_r;
            assign v_out = v_r;
            assign {sclk2, sclk3, sclk4} = 3'b000;
        end
        for (l = 0; l < LANES; l = l + 1) begin : g_lane
            // Waiver: exp and reciprocal kinds take one operand, the map kind none of these.
            /* verilator lint_off UNUSEDSIGNAL */
            wire [31:0] a = a_q[32*l +: 32];
            wire [31:0] b = b_q[32*l +: 32];
            /* verilator lint_on UNUSEDSIGNAL */
            if (KIND == VK_ADD) begin : g_add
                fp32_add u_add (.a(a), .b(b), .sub(op_l != VOP_ADD), .y(y32[32*l +: 32]));
            end else if (KIND == VK_MUL) begin : g_mul
                fp32_mul u_mul (.a(a), .b(b), .y(y32[32*l +: 32]));
            end else if (KIND == VK_MAX) begin : g_max
                wire [31:0] hi, lo;
                fp32_max u_max (.a(a), .b(b), .y(hi));
                fp32_min u_min (.a(a), .b(b), .y(lo));
                assign y32[32*l +: 32] = (op_l == VOP_MIN) ? lo : hi;
            end else if (KIND == VK_EXP) begin : g_exp
                plena_exp_pipe u_exp (.clk2(sclk2), .clk3(sclk3), .clk4(sclk4), .a(a),
                                      .y(y32[32*l +: 32]));
            end else if (KIND == VK_RECI) begin : g_rcp
                plena_recip_pipe u_rcp (.clk2(sclk2), .clk3(sclk3), .clk4(sclk4), .a(a),
                                        .y(y32[32*l +: 32]));
            end else if (KIND == VK_MAP) begin : g_map
                assign y32[32*l +: 32] = map_vals[32*l +: 32];
            end
            fp32_to_bf16 u_round (.a(y32[32*l +: 32]), .y(y16[16*l +: 16]));
        end
    endgenerate

    assign done = v_out && base_out == 32'(LANES * (CHUNKS - 1));

    // The row's data does not look at v_out (a register on the ungated clock): only
    // elems_out says which elements are written, so the placement, VLEN x 16 bits wide,
    // changes only with the last stage's registers and not in every cycle. base_out is
    // c * LANES for the chunk c < CHUNKS (R loads step * LANES with step < CHUNKS): the
    // chunk's places are chosen by that match, with constant positions (a part-select at
    // base_out was a shifter of the row's width per lane in Yosys: rtl/plena/README.md).
    integer eo, em;
    always @* begin
        row_out = {VLEN*16{1'b0}};
        for (eo = 0; eo < CHUNKS; eo = eo + 1)
            if (base_out == 32'(eo * LANES))
                row_out[16*LANES*eo +: 16*LANES] = y16;
    end
    always @* begin
        elems_out = {VLEN{1'b0}};
        if (v_out)
            for (em = 0; em < CHUNKS; em = em + 1)
                if (base_out == 32'(em * LANES))
                    elems_out[LANES*em +: LANES] = {LANES{1'b1}};
    end
endmodule
