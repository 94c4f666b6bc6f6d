// plena's matrix unit: the Matrix SRAM, the BLEN-lane systolic array (plena_mlane) and
// its fp32 accumulators MM_ACC, MV_ACC, BMM_ACC and BMV_ACC, and the write-outs that
// round an accumulator to bf16 for the core to store in Vector SRAM.
//
// One instruction step per cycle; the number of steps is the timing class:
//   M_MM / M_TMM    BLEN steps: step i takes A row i; lane l the tile column (row) c+l
//   M_MV / M_TMV    MLEN/BLEN steps: lane l computes output j = step*BLEN + l
//   M_BMM / M_BTMM  MLEN*MLEN/BLEN steps: A row i = step / (MLEN/BLEN), outputs j as for
//                   M_MV, every head at once (head-interleaved operands, see plena_mlane)
//   M_BMV / M_BTMV  MLEN/BLEN steps, one A row
//   M_MM_WO, M_MV_WO one step; M_BMM_WO one row per step (HEADS*MLEN), M_BMV_WO HEADS
// Operands (the A row from the core, tile columns or rows, accumulator entries) are
// captured in the middle of the cycle on the array's operand clock; the new accumulator
// values are stored at the end of the cycle. An accumulator is cleared at the end of its
// write-out's last step.
module plena_matrix #(
    /* verilator lint_off UNUSEDPARAM */
    // Waiver: the whole configuration, as every plena module (see plena_check).
    `include "plena_params.vh"
    /* verilator lint_on UNUSEDPARAM */
) (
    input  wire               clk,
    input  wire               rst,
    input  wire               active,     // an instruction of this unit runs this cycle
    input  wire               gate,       // ... or is at issue (operand clocks only)
    input  wire [31:0]        step,
    input  wire [3:0]         op,
    input  wire [MTW-1:0]     tile,       // tile of the B operand
    input  wire [MLW-1:0]     col,        // M_MM / M_TMM: first column (row) of the block
    input  wire [VRW-1:0]     vrow0,      // first Vector SRAM row of the A operand
    output wire [VRW-1:0]     vrow_idx,   // the Vector SRAM row read this cycle ...
    input  wire [MLEN*16-1:0] vrow,       // ... and its contents
    output wire [MLEN*16-1:0] wo_row,     // M_MV_WO / M_BMM_WO / M_BMV_WO: this step's row
    output wire [BLEN*BLEN*16-1:0] wo_block,  // M_MM_WO: the block, row-major
    // H_PREFETCH_M (plena_dma): a beat of data for Matrix SRAM row `fill_row`.
    input  wire               fill,
    input  wire [TRW-1:0]     fill_row,
    input  wire [MLEN*16-1:0] fill_data,
    input  wire [MLEN-1:0]    fill_mask,
    // Host reads (plena_core's host port): a Matrix SRAM row, an accumulator entry
    // (h_acc_sel: HS_MM .. HS_BMV).
    input  wire [TRW-1:0]     h_row,
    output wire [MLEN*16-1:0] h_mrow,
    input  wire [3:0]         h_acc_sel,
    input  wire [BMW-1:0]     h_acc_addr,
    output wire [31:0]        h_acc
);
    `include "plena_isa.vh"
    `include "plena_units.vh"

    localparam integer VRW = (VSRAM_ROWS > 1) ? $clog2(VSRAM_ROWS) : 1;
    localparam integer MTW = (MSRAM_TILES > 1) ? $clog2(MSRAM_TILES) : 1;
    localparam integer MLW = $clog2(MLEN);
    localparam integer HEADS = MLEN / HLEN;
    localparam integer NB = MLEN / BLEN;           // output blocks per row
    localparam integer TRW = $clog2(MSRAM_TILES * MLEN);   // Matrix SRAM row index
    localparam integer MMW = $clog2(BLEN * BLEN) > 0 ? $clog2(BLEN * BLEN) : 1;
    localparam integer BMW = $clog2(HEADS * MLEN * MLEN);
    localparam integer BVW = $clog2(HEADS * MLEN) > 0 ? $clog2(HEADS * MLEN) : 1;

    // The unit computes one step per cycle: its structure fixes these timing classes.
    initial if (T_M_MM != BLEN || T_M_MV != NB || T_M_BMM != MLEN * NB || T_M_BMV != NB
                || T_M_MM_WO != 1 || T_M_MV_WO != 1 || T_M_BMM_WO != HEADS * MLEN
                || T_M_BMV_WO != HEADS)
        $fatal(1, "plena_matrix: hardware.toml's matrix timing classes no longer match the array");

    // --- storage --------------------------------------------------------------------
    reg [MLEN*16-1:0] msram [0:MSRAM_TILES*MLEN-1];   // tile t, row r at t*MLEN + r
    reg [31:0] mm_acc  [0:BLEN*BLEN-1];               // [i*BLEN + j]
    reg [31:0] mv_acc  [0:MLEN-1];
    reg [31:0] bmm_acc [0:HEADS*MLEN*MLEN-1];         // [(h*MLEN + i)*MLEN + j]
    reg [31:0] bmv_acc [0:HEADS*MLEN-1];              // [h*MLEN + j]

    assign h_mrow = msram[h_row];
    assign h_acc = h_acc_sel == HS_MM ? mm_acc[MMW'(h_acc_addr)]
                 : h_acc_sel == HS_MV ? mv_acc[MLW'(h_acc_addr)]
                 : h_acc_sel == HS_BMM ? bmm_acc[BMW'(h_acc_addr)] : bmv_acc[BVW'(h_acc_addr)];

    wire compute = active && op <= MOP_BTMV;
    wire writeout = active && op >= MOP_MM_WO;
    wire compute_gate = gate && op <= MOP_BTMV;
    wire writeout_gate = gate && op >= MOP_MM_WO;
    wire is_mm  = (op == MOP_MM || op == MOP_TMM);
    wire is_mv  = (op == MOP_MV || op == MOP_TMV);
    wire is_bmm = (op == MOP_BMM || op == MOP_BTMM);
    wire transposed = (op == MOP_TMM || op == MOP_BTMM || op == MOP_TMV || op == MOP_BTMV);
    wire head_mode = (op == MOP_BMM || op == MOP_BTMM || op == MOP_BMV || op == MOP_BTMV);

    // The A row and the first output column of this step.
    wire [31:0] a_i = is_mm ? step : is_bmm ? step / NB : 32'd0;
    wire [31:0] j0 = is_mm ? 32'(col) : (is_bmm ? step % NB : step) * BLEN;
    assign vrow_idx = vrow0 + VRW'(a_i);

    function automatic [TRW-1:0] trow(input [MTW-1:0] t, input [MLW-1:0] r);
        trow = TRW'({t, r});
    endfunction
    function automatic [MMW-1:0] mm_at(input integer i, input integer j);
        mm_at = MMW'(i * BLEN + j);
    endfunction
    function automatic [BMW-1:0] bmm_at(input integer h, input integer i, input integer j);
        bmm_at = BMW'((h * MLEN + i) * MLEN + j);
    endfunction
    function automatic [BVW-1:0] bmv_at(input integer h, input integer j);
        bmv_at = BVW'(h * MLEN + j);
    endfunction
    // Natural element index of lane position p: p itself, or with head interleaving
    // (position g + k*HEADS holds head g's element k) g*HLEN + k.
    function automatic integer src_of(input integer p, input logic hm);
        src_of = hm ? (p % HEADS) * HLEN + p / HEADS : p;
    endfunction

    // --- operands, captured on the array's operand clock ----------------------------
    // Loop variables index the accumulators by part-select (jj[MLW-1:0]), not a size
    // cast: a cast of a signed integer stays signed, and Icarus reads index -8 as X.
    wire mclk;
    plena_clkgate u_gate (.clk(clk), .en(compute_gate), .gclk(mclk));

    reg [MLEN*16-1:0]       a_q;
    reg [BLEN*MLEN*16-1:0]  b_q;
    reg [BLEN*HEADS*32-1:0] acc_q;
    reg                     heads_q;
    integer p, l, h, jj;
    always @(posedge mclk) begin
        heads_q <= head_mode;
        for (p = 0; p < MLEN; p = p + 1)
            a_q[16*p +: 16] <= vrow[16*src_of(p, head_mode) +: 16];
        for (l = 0; l < BLEN; l = l + 1) begin
            jj = 32'(j0) + l;
            for (p = 0; p < MLEN; p = p + 1)
                // B[k, j]: tile row k, column j; transposed: tile row j, column k.
                b_q[16*(l*MLEN + p) +: 16] <= transposed
                    ? msram[trow(tile, MLW'(jj))][16*src_of(p, head_mode) +: 16]
                    : msram[trow(tile, MLW'(src_of(p, head_mode)))][16*jj +: 16];
            for (h = 0; h < HEADS; h = h + 1)
                acc_q[32*(l*HEADS + h) +: 32] <=
                      is_mm ? (h == 0 ? mm_acc[mm_at(a_i, l)] : 32'd0)
                    : is_mv ? (h == 0 ? mv_acc[jj[MLW-1:0]] : 32'd0)
                    : is_bmm ? bmm_acc[bmm_at(h, a_i, jj)]
                    : bmv_acc[bmv_at(h, jj)];
        end
    end

    wire [BLEN*HEADS*32-1:0] acc_new;
    genvar gl;
    generate
        for (gl = 0; gl < BLEN; gl = gl + 1) begin : g_lane
            plena_mlane #(.MLEN(MLEN), .HLEN(HLEN)) u_lane (
                .a(a_q), .b(b_q[MLEN*16*gl +: MLEN*16]), .acc(acc_q[HEADS*32*gl +: HEADS*32]),
                .heads(heads_q), .y(acc_new[HEADS*32*gl +: HEADS*32]));
        end
    endgenerate

    // --- write-outs: accumulator entries captured, rounded to bf16 ------------------
    wire wclk;
    plena_clkgate u_wgate (.clk(clk), .en(writeout_gate), .gclk(wclk));
    reg [MLEN*32-1:0]      wo_q;
    reg [BLEN*BLEN*32-1:0] blk_q;
    always @(posedge wclk) begin
        for (jj = 0; jj < MLEN; jj = jj + 1)
            wo_q[32*jj +: 32] <= (op == MOP_MV_WO) ? mv_acc[jj[MLW-1:0]]
                               : (op == MOP_BMM_WO) ? bmm_acc[BMW'(step * MLEN + 32'(jj))]
                               : bmv_acc[BVW'(step * MLEN + 32'(jj))];
        for (jj = 0; jj < BLEN*BLEN; jj = jj + 1)
            blk_q[32*jj +: 32] <= mm_acc[jj[MMW-1:0]];
    end
    genvar gw;
    generate
        for (gw = 0; gw < MLEN; gw = gw + 1) begin : g_wo
            fp32_to_bf16 u_round (.a(wo_q[32*gw +: 32]), .y(wo_row[16*gw +: 16]));
        end
        for (gw = 0; gw < BLEN*BLEN; gw = gw + 1) begin : g_blk
            fp32_to_bf16 u_round (.a(blk_q[32*gw +: 32]), .y(wo_block[16*gw +: 16]));
        end
    endgenerate

    // --- state updates ----------------------------------------------------------------
    wire last_wo_step = (op == MOP_BMM_WO) ? (step == 32'(T_M_BMM_WO - 1))
                      : (op == MOP_BMV_WO) ? (step == 32'(T_M_BMV_WO - 1)) : 1'b1;
    integer r;
    always @(posedge clk) begin
        if (rst) begin
            for (r = 0; r < BLEN*BLEN; r = r + 1) mm_acc[r] <= 32'd0;
            for (r = 0; r < MLEN; r = r + 1) mv_acc[r] <= 32'd0;
            for (r = 0; r < HEADS*MLEN*MLEN; r = r + 1) bmm_acc[r] <= 32'd0;
            for (r = 0; r < HEADS*MLEN; r = r + 1) bmv_acc[r] <= 32'd0;
        end else if (compute) begin
            for (r = 0; r < BLEN; r = r + 1) begin
                if (is_mm) mm_acc[mm_at(a_i, r)] <= acc_new[32*(r*HEADS) +: 32];
                else if (is_mv) mv_acc[MLW'(32'(j0) + r)] <= acc_new[32*(r*HEADS) +: 32];
                else
                    for (h = 0; h < HEADS; h = h + 1)
                        if (is_bmm) bmm_acc[bmm_at(h, a_i, 32'(j0) + r)] <= acc_new[32*(r*HEADS + h) +: 32];
                        else bmv_acc[bmv_at(h, 32'(j0) + r)] <= acc_new[32*(r*HEADS + h) +: 32];
            end
        end else if (writeout && last_wo_step) begin
            case (op)
                MOP_MM_WO:  for (r = 0; r < BLEN*BLEN; r = r + 1) mm_acc[r] <= 32'd0;
                MOP_MV_WO:  for (r = 0; r < MLEN; r = r + 1) mv_acc[r] <= 32'd0;
                MOP_BMM_WO: for (r = 0; r < HEADS*MLEN*MLEN; r = r + 1) bmm_acc[r] <= 32'd0;
                default:    for (r = 0; r < HEADS*MLEN; r = r + 1) bmv_acc[r] <= 32'd0;
            endcase
        end
        if (fill)
            for (r = 0; r < MLEN; r = r + 1)
                if (fill_mask[r]) msram[fill_row][16*r +: 16] <= fill_data[16*r +: 16];
    end
endmodule
