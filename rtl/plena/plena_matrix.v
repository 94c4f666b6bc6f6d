// plena's matrix unit: the Matrix SRAM (plena_msram), the BLEN x MLEN MAC array (BLEN
// plena_mac_lane lanes), its fp32 accumulators MV_ACC, BMV_ACC (flip-flops), MM_ACC and
// BMM_ACC (plena_acc: SRAM banks), and the write-outs that round an accumulator to
// bf16 for the core to store in Vector SRAM.
//
// The array takes one step per cycle and is a five-stage pipeline, every stage a
// rising-edge register on its own clock gate (icg), open only while a step is in it:
//   R   (issue or step cycle c)  the A row into the Vector SRAM's port A read register,
//                                the tile's rows into the Matrix SRAM banks' read registers
//   P   (c + 1)  the BLEN columns (rows) selected from the banks' words, BLEN x MLEN bf16
//                products, first tree levels                    (plena_mac_lane)
//   T2  (c + 2)  middle tree levels
//   T3  (c + 3)  last tree levels; the step's accumulator entries read
//   A   (c + 4)  one fp32 addition per entry, written at the end of the cycle
// so a step's sums are in the accumulators MAC_DEPTH = 4 cycles after its own cycle.
// An instruction feeds its steps and then drains the array: it takes its steps +
// MAC_DEPTH cycles, and `done` (a flag that travels with its last step) is raised in the
// cycle its last sums are added, whose edge commits it.
//   M_MM / M_TMM    BLEN steps: step i takes A row i; lane l the tile column (row) c+l
//   M_MV / M_TMV    MLEN/BLEN steps: lane l computes output j = step*BLEN + l
//   M_BMM / M_BTMM  MLEN*MLEN/BLEN steps: A row i = step / (MLEN/BLEN), outputs j as for
//                   M_MV, every head at once (head-interleaved operands, see plena_mac_lane)
//   M_BMV / M_BTMV  MLEN/BLEN steps, one A row
//   M_MM_WO one row of the block per step (BLEN), M_MV_WO one step; M_BMM_WO one row
//                   per step (HEADS*MLEN), M_BMV_WO HEADS
// Within an instruction every step writes different accumulator entries, so reading
// them in T3 and writing them in A needs no forwarding. A write-out is a two-stage
// pipeline on one edge: in step s its accumulator entries are read into the write-out
// register (behind a clock gate; M_MM_WO's and M_BMM_WO's row into their banks' read
// registers), in the next cycle they are rounded to bf16 for the core to write; it
// takes its steps + 1 cycles (`done` with the last row rounded), and the accumulator is
// cleared at the end of its last read step (MM_ACC, BMM_ACC: their valid bits).
//
// Which accumulators are SRAM: BMM_ACC (HEADS x MLEN x MLEN entries, 512 kbit at the
// default configuration) is read and written a block of BLEN entries per head per step
// and a row per write-out step, so it banks into HEADS x MLEN/BLEN macros MLEN words
// deep (plena_acc). MM_ACC (BLEN x BLEN) is one plena_acc bank of BLEN words: a step
// writes its row i, and M_MM_WO streams it out a row per step (BLEN steps), as a 1R1W
// macro reads one word a cycle. MV_ACC and BMV_ACC are still flip-flops (2 kbit and
// 8 kbit at the default configuration), read whole by M_MV_WO's one step and a head's
// row per M_BMV_WO step; banking them means streaming those write-outs a block per
// step, a timing change not made yet.
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
    output wire               vrow_re,    // ... when a step reads one (port A) ...
    input  wire [MLEN*16-1:0] vrow,       // ... and its contents, the cycle after (the
                                          // port's read register: the R stage's A)
    output wire [MLEN*16-1:0] wo_row,     // M_MV_WO / M_BMM_WO / M_BMV_WO: a rounded row ...
    output reg                wo_valid,   // ... there is one this cycle ...
    output reg  [VRW-1:0]     wo_step,    // ... read in this step (its row offset)
    output wire [BLEN*16-1:0] wo_block,   // M_MM_WO: row wo_step of the block
    output wire               done,       // the instruction's last cycle
    // H_PREFETCH_M (plena_dma), or the host while the core is idle: a beat of data for
    // Matrix SRAM row `fill_row`.
    input  wire               fill,
    input  wire               fill_open,  // the host may write (the core is idle)
    input  wire [TRW-1:0]     fill_row,
    input  wire [MLEN*16-1:0] fill_data,
    input  wire [MLEN-1:0]    fill_mask,
    // Host reads (plena_core's host port): a Matrix SRAM row, read at the edge that ends
    // a cycle with h_re (only while the core is idle: it shares the array's read ports)
    // and presented the cycle after; an accumulator entry (h_acc_sel: HS_MM .. HS_BMV).
    input  wire               h_re,
    input  wire [TRW-1:0]     h_row,
    output wire [MLEN*16-1:0] h_mrow,
    // (HS_MV, HS_BMV: read combinationally; HS_MM, HS_BMM: read through their banks at
    // the edge that ends a cycle with h_acc_re, only while the core is idle or done, and
    // presented the cycle after, as a Matrix SRAM row.)
    input  wire [3:0]         h_acc_sel,
    input  wire [BMW-1:0]     h_acc_addr,
    input  wire               h_acc_re,
    output wire [31:0]        h_acc,
    // MM_ACC's and BMM_ACC's writes and clears, for the trace's copy (their banks cannot
    // be read while the trace holds the core's clock): block db_j0 of row db_row of every
    // head (lane l, head h at [32*(l*HEADS + h) +: 32]) of accumulator db_acc (the step's
    // kind: 0 MM_ACC, 2 BMM_ACC), or MM_ACC (db_clr[0]) or BMM_ACC (db_clr[1]) cleared.
    output wire               db_en,
    output wire [1:0]         db_acc,
    output wire [MLW-1:0]     db_row,
    output wire [MLW-1:0]     db_j0,
    output wire [BLEN*(MLEN/HLEN)*32-1:0] db_data,
    output wire [1:0]         db_clr
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
    localparam integer MRW = BLEN > 1 ? $clog2(BLEN) : 1;   // MM_ACC's row (and column)
    localparam integer MCW = MRW;
    localparam integer BMW = $clog2(HEADS * MLEN * MLEN);
    localparam integer BVW = $clog2(HEADS * MLEN) > 0 ? $clog2(HEADS * MLEN) : 1;

    // MAC_DEPTH and WO_DEPTH (plena_units.vh) are this structure's: the R, P, T2 and T3
    // registers before A, and the write-out register before the rounding.
    initial if (MAC_DEPTH != 4 || WO_DEPTH != 1)
        $fatal(1, "plena_matrix: MAC_DEPTH and WO_DEPTH no longer describe the array");
    initial if (MLEN < 8)
        $fatal(1, "plena_matrix: the array's three tree stages need MLEN >= 8");

    // --- storage (the Matrix SRAM is plena_msram's, MM_ACC and BMM_ACC plena_acc's, below)
    // MV_ACC and BMV_ACC are flat vectors (entry j at [32*j +: 32]; BMV_ACC's head h, entry
    // j at [32*(h*MLEN + j) +: 32]) whose every access has a constant position or an
    // explicit selection: indexed arrays became memories of hundreds of write ports in
    // Yosys, and variable part-selects log-shifters of their whole width (rtl/plena/README.md,
    // "Synthesis").
    reg [MLEN*32-1:0] mv_acc;
    reg [HEADS*MLEN*32-1:0] bmv_acc;
    wire [31:0] mm_h, bmm_h;                          // MM_ACC's, BMM_ACC's host reads (registered)
    // The host's MV_ACC and BMV_ACC entries: binary mux trees (rtl/common/mux_tree.v,
    // computed level by level in an always block: written as continuous assignments,
    // every node was re-evaluated by Icarus at each accumulator write; rtl/plena/README.md,
    // "Simulators"). BMV_ACC's entry h*MLEN + j: first head h (the address's bits above
    // MLW; heads padded with +0 to a power of two), then entry j, so that no level's loop
    // is over Verilator's unroll count at the default configuration (a loop over the
    // 8192-bit vector, run at every clock edge, since h_acc_addr is the harness's); the
    // same mux bits as one tree over all entries.
    localparam integer HBW = BVW - MLW;                 // head bits of the host's address
    wire [31:0] mv_t, bmv_t;
    wire [MLEN*32-1:0] bmv_h;
    mux_tree #(.WIDTH(32), .N(MLEN), .LEVELS(MLW)) u_mv_host (
        .in(mv_acc), .sel(h_acc_addr[MLW-1:0]), .out(mv_t));
    mux_tree #(.WIDTH(MLEN*32), .N(HEADS), .LEVELS(HBW)) u_bmv_head (
        .in(bmv_acc), .sel(h_acc_addr[MLW +: (HBW > 0 ? HBW : 1)]), .out(bmv_h));
    mux_tree #(.WIDTH(32), .N(MLEN), .LEVELS(MLW)) u_bmv_host (
        .in(bmv_h), .sel(h_acc_addr[MLW-1:0]), .out(bmv_t));

    assign h_acc = h_acc_sel == HS_MM ? mm_h
                 : h_acc_sel == HS_MV ? mv_t
                 : h_acc_sel == HS_BMM ? bmm_h : bmv_t;

    wire is_mm  = (op == MOP_MM || op == MOP_TMM);
    wire is_mv  = (op == MOP_MV || op == MOP_TMV);
    wire is_bmm = (op == MOP_BMM || op == MOP_BTMM);
    // Steps of the instruction: it feeds the array in its first `steps` cycles.
    wire [31:0] steps = is_mm ? 32'(BLEN) : is_bmm ? 32'(MLEN * NB) : 32'(NB);
    wire feed = step < steps;
    wire compute = active && op <= MOP_BTMV && feed;
    wire writeout = active && op >= MOP_MM_WO;
    wire compute_gate = gate && op <= MOP_BTMV && feed;
    wire writeout_gate = gate && op >= MOP_MM_WO;
    // Write-out steps (rows read): M_BMM_WO every head's rows, M_BMV_WO one per head.
    wire [31:0] wo_steps = op == MOP_BMM_WO ? 32'(HEADS * MLEN)
                         : op == MOP_BMV_WO ? 32'(HEADS) : op == MOP_MM_WO ? 32'(BLEN) : 32'd1;
    wire wo_feed = step < wo_steps;
    wire transposed = (op == MOP_TMM || op == MOP_BTMM || op == MOP_TMV || op == MOP_BTMV);
    wire head_mode = (op == MOP_BMM || op == MOP_BTMM || op == MOP_BMV || op == MOP_BTMV);

    // The A row and the first output column of this step.
    wire [MLW-1:0] a_i = MLW'(is_mm ? step : is_bmm ? step / NB : 32'd0);
    wire [MLW-1:0] j0 = MLW'(is_mm ? 32'(col) : (is_bmm ? step % NB : step) * BLEN);
    assign vrow_idx = vrow0 + VRW'(a_i);
    assign vrow_re = compute_gate;

    // --- R: operands, on the rising edge that ends the step's cycle ------------------
    // A step's control travels with it: kind (0 MM, 1 MV, 2 BMM, 3 BMV; bit 1 is head
    // mode), its A row and its first output column.
    localparam [1:0] K_MM = 2'd0, K_MV = 2'd1, K_BMM = 2'd2;
    wire [1:0] kind = is_mm ? K_MM : is_mv ? K_MV : is_bmm ? K_BMM : 2'd3;
    reg v_r, v_p, v_2, v_3;                  // a step is in R, P, T2, T3
    reg l_r, l_p, l_2, l_3;                  // ... and it is its instruction's last
    reg [1:0] k_r, k_p, k_2, k_3;
    reg [MLW-1:0] i_r, i_p, i_2, i_3, j_r, j_p, j_2, j_3;
    always @(posedge clk) begin
        v_r <= !rst && compute;
        v_p <= !rst && v_r;
        v_2 <= !rst && v_p;
        v_3 <= !rst && v_2;
        l_r <= !rst && compute && step == steps - 32'd1;
        l_p <= !rst && l_r;
        l_2 <= !rst && l_p;
        l_3 <= !rst && l_2;
    end
    wire rclk, pclk, t2clk, t3clk, aclk;
    icg u_rgate (.clk(clk), .en(compute_gate), .gclk(rclk));
    icg u_pgate (.clk(clk), .en(v_r), .gclk(pclk));
    icg u_t2gate (.clk(clk), .en(v_p), .gclk(t2clk));
    icg u_t3gate (.clk(clk), .en(v_2), .gclk(t3clk));
    // The flip-flop accumulators: A's writes, a write-out's clear, and reset, one edge
    // late: the gate's enable comes from a register, as every clock enable here does (an
    // enable straight from the testbench's reset missed the gate's latch under the
    // simulator). MM_ACC's and BMM_ACC's steps and write-outs leave them still (their
    // banks have their own clocks).
    reg rst_q;
    always @(posedge clk) rst_q <= rst;
    wire in_banks = k_3 == K_MM || k_3 == K_BMM;
    icg u_agate (.clk(clk), .en((v_3 && !in_banks)
                                || (writeout_gate && (op == MOP_MV_WO || op == MOP_BMV_WO))
                                || rst_q), .gclk(aclk));

    // A: the Vector SRAM's port A read register holds the step's row (R); P takes it
    // head-interleaved in head mode: position p holds element p, or with head
    // interleaving (position g + k*HEADS holds head g's element k) g*HLEN + k.
    wire [MLEN*16-1:0] a_q;
    always @(posedge rclk) begin
        k_r <= kind;
        i_r <= MLW'(a_i);
        j_r <= j0;
    end
    genvar gp;
    generate
        for (gp = 0; gp < MLEN; gp = gp + 1) begin : g_a
            // (each position a 2-to-1 choice of two constant positions)
            localparam integer SH = (gp % HEADS) * HLEN + gp / HEADS;
            assign a_q[16*gp +: 16] = k_r[1] ? vrow[16*SH +: 16] : vrow[16*gp +: 16];
        end
    endgenerate

    // The Matrix SRAM: its banks' read registers are R's B operand (the step's tile is
    // read at the edge that ends its cycle, with a_q), and P selects the columns.
    wire [BLEN*MLEN*16-1:0] b_op;
    plena_msram #(.MLEN(MLEN), .BLEN(BLEN), .HLEN(HLEN), .MSRAM_TILES(MSRAM_TILES)) u_msram (
        .clk(clk), .rd_en(compute_gate), .rd_tile(tile), .rd_j0(j0),
        .rd_tr(transposed), .rd_hm(head_mode), .b(b_op),
        .we(fill), .w_open(fill_open), .w_row(fill_row), .w_data(fill_data), .w_mask(fill_mask),
        .h_re(h_re), .h_row(h_row), .h_data(h_mrow));
    always @(posedge pclk) begin k_p <= k_r; i_p <= i_r; j_p <= j_r; end
    always @(posedge t2clk) begin k_2 <= k_p; i_2 <= i_p; j_2 <= j_p; end

    // --- P, T2, T3: the lanes ---------------------------------------------------------
    // P's operands pass the operand isolation (plena_opiso: AND gates open in a step's P
    // cycle, the cycle rclk pulses, zero otherwise), so the array does not switch with
    // port A's reads for other units. Its operands are the Vector and Matrix SRAM's read
    // registers, which have the step's data only from the rising edge that starts P; P's
    // register (pclk: v_r, compute registered, a subset of compute_gate) takes the
    // lanes' first levels only at the edge ending such a cycle.
    wire [MLEN*16-1:0]      a_l;
    wire [BLEN*MLEN*16-1:0] b_l;
    wire                    hm_l;
    plena_opiso #(.W(MLEN*16 + BLEN*MLEN*16 + 1)) u_opiso (
        .clk(clk), .en(compute_gate), .gclk(rclk), .d({a_q, b_op, k_r[1]}),
        .q({a_l, b_l, hm_l}));
    wire [BLEN*HEADS*32-1:0] sums;           // T3's registers
    genvar gl;
    generate
        for (gl = 0; gl < BLEN; gl = gl + 1) begin : g_lane
            plena_mac_lane #(.MLEN(MLEN), .HLEN(HLEN)) u_lane (
                .clk_p(pclk), .clk_t2(t2clk), .clk_t3(t3clk),
                .a(a_l), .b(b_l[MLEN*16*gl +: MLEN*16]),
                .hm_r(hm_l), .hm_p(k_p[1]), .hm_2(k_2[1]),
                .y(sums[HEADS*32*gl +: HEADS*32]));
        end
    endgenerate

    // T3 also reads the step's accumulator entries (lane l, head h): into acc_q, or
    // MM_ACC's and BMM_ACC's into their banks' read registers (mm_s, bmm_s) ...
    reg [BLEN*HEADS*32-1:0] acc_q;
    wire [BLEN*32-1:0] mm_s;
    wire [BLEN*HEADS*32-1:0] bmm_s, mm_old;
    generate
        for (gl = 0; gl < BLEN; gl = gl + 1) begin : g_mm_old
            assign mm_old[32*HEADS*gl +: 32*HEADS] = (32*HEADS)'(mm_s[32*gl +: 32]);
        end
    endgenerate
    // An M_MV / M_BMV step's first output column is step * BLEN (step < MLEN / BLEN): its
    // entries are block j / BLEN of MV_ACC (of each head's BMV_ACC), never past MLEN - 1,
    // chosen AND-OR by the block's one-hot match (T3: j_2, A: j_3). The choice is a function
    // evaluated where T3 loads it: as continuous assignments, Icarus re-evaluated the
    // AND-OR network at every accumulator write.
    wire [NB-1:0] blk_2, blk_3;
    genvar gb;
    generate
        for (gb = 0; gb < NB; gb = gb + 1) begin : g_blk_hit
            assign blk_2[gb] = j_2 == MLW'(gb * BLEN);
            assign blk_3[gb] = j_3 == MLW'(gb * BLEN);
        end
    endgenerate
    // lane l at [32*l*HEADS] (head 0's position; the other heads' +0)
    function automatic [BLEN*HEADS*32-1:0] mv_block(input [MLEN*32-1:0] acc,
                                                    input [NB-1:0] hit);
        integer fb, fl;
        begin
            mv_block = {BLEN*HEADS*32{1'b0}};
            for (fb = 0; fb < NB; fb = fb + 1)
                for (fl = 0; fl < BLEN; fl = fl + 1)
                    mv_block[32*fl*HEADS +: 32] = mv_block[32*fl*HEADS +: 32]
                        | ({32{hit[fb]}} & acc[32*(fb*BLEN + fl) +: 32]);
        end
    endfunction
    // lane l, head h at [32*(l*HEADS + h)]
    function automatic [BLEN*HEADS*32-1:0] bmv_block(input [HEADS*MLEN*32-1:0] acc,
                                                     input [NB-1:0] hit);
        integer fb, fl, fh;
        begin
            bmv_block = {BLEN*HEADS*32{1'b0}};
            for (fb = 0; fb < NB; fb = fb + 1)
                for (fl = 0; fl < BLEN; fl = fl + 1)
                    for (fh = 0; fh < HEADS; fh = fh + 1)
                        bmv_block[32*(fl*HEADS + fh) +: 32] = bmv_block[32*(fl*HEADS + fh) +: 32]
                            | ({32{hit[fb]}} & acc[32*(fh*MLEN + fb*BLEN + fl) +: 32]);
        end
    endfunction
    always @(posedge t3clk) begin
        k_3 <= k_2;
        i_3 <= i_2;
        j_3 <= j_2;
        if (k_2 == K_MV || k_2 == 2'd3)
            acc_q <= k_2 == K_MV ? mv_block(mv_acc, blk_2) : bmv_block(bmv_acc, blk_2);
    end
    wire [BLEN*HEADS*32-1:0] acc_old = k_3 == K_BMM ? bmm_s : k_3 == K_MM ? mm_old : acc_q;
    // ... and A adds: acc += the full sum (entry 0), or each head's sum.
    wire [BLEN*HEADS*32-1:0] acc_new;
    genvar gh;
    generate
        for (gl = 0; gl < BLEN; gl = gl + 1) begin : g_acc
            for (gh = 0; gh < HEADS; gh = gh + 1) begin : g_head
                fp32_add u_add (.a(acc_old[32*(gl*HEADS + gh) +: 32]),
                                .b(sums[32*(gl*HEADS + gh) +: 32]), .sub(1'b0),
                                .y(acc_new[32*(gl*HEADS + gh) +: 32]));
            end
        end
    endgenerate

    // --- write-outs: accumulator entries read into a register, then rounded to bf16 ---
    wire wclk;
    icg u_wgate (.clk(clk), .en(writeout_gate && wo_feed), .gclk(wclk));
    reg [MLEN*32-1:0]      wo_q;
    // M_BMV_WO's step (< HEADS) is the head whose row it reads: AND-OR by the one-hot match,
    // a function evaluated where the write-out register loads it (as an always block on
    // `step`, Icarus ran it every cycle).
    function automatic [MLEN*32-1:0] bmv_row(input [HEADS*MLEN*32-1:0] acc, input [31:0] s);
        integer fh;
        begin
            bmv_row = {MLEN*32{1'b0}};
            for (fh = 0; fh < HEADS; fh = fh + 1)
                bmv_row = bmv_row | ({MLEN*32{s == 32'(fh)}} & acc[MLEN*32*fh +: MLEN*32]);
        end
    endfunction
    reg wo_last;                             // the row in the register is the last
    always @(posedge clk) begin
        wo_valid <= !rst && writeout && wo_feed;
        wo_last <= !rst && writeout && step == wo_steps - 32'd1;
    end
    // The instruction's last cycle: its last step's sums are added (A), or its last row
    // is rounded; the edge that ends it writes them.
    assign done = l_3 || (wo_valid && wo_last);
    // Which register the rounding reads, kept beside the row: a select from `op` would
    // change with every instruction at issue, and the MLEN roundings behind it with it
    // (under Verilator: evaluated every cycle); the row is used only in the cycle after
    // its read step, in which this is the same instruction's.
    reg wo_bmm;
    always @(posedge wclk) begin
        wo_step <= VRW'(step);
        wo_bmm <= op == MOP_BMM_WO;
        if (op == MOP_MV_WO || op == MOP_BMV_WO)
            wo_q <= (op == MOP_MV_WO) ? mv_acc : bmv_row(bmv_acc, step);
    end
    // M_BMM_WO's row is in BMM_ACC's banks' read registers, M_MM_WO's (BLEN entries) in
    // MM_ACC's (read at the same edge).
    wire [MLEN*32-1:0] bmm_o;
    wire [BLEN*32-1:0] mm_o;
    wire [MLEN*32-1:0] wo_src = wo_bmm ? bmm_o : wo_q;
    genvar gw;
    generate
        for (gw = 0; gw < MLEN; gw = gw + 1) begin : g_wo
            fp32_to_bf16 u_round (.a(wo_src[32*gw +: 32]), .y(wo_row[16*gw +: 16]));
        end
        for (gw = 0; gw < BLEN; gw = gw + 1) begin : g_blk
            fp32_to_bf16 u_round (.a(mm_o[32*gw +: 32]), .y(wo_block[16*gw +: 16]));
        end
    endgenerate

    // --- state updates ----------------------------------------------------------------
    wire last_wo_step = step == wo_steps - 32'd1;
    // BMM_ACC: T3 reads a step's block of every head, A writes it; a write-out step reads
    // a head's row (the step is its index h*MLEN + i); the host an entry. Cleared (its
    // valid bits) at reset and at the end of M_BMM_WO's last read step.
    wire bmm_we = v_3 && k_3 == K_BMM;
    wire bmm_clr = rst_q || (writeout && last_wo_step && op == MOP_BMM_WO);
    plena_acc #(.ROWS(MLEN), .COLS(MLEN), .BLEN(BLEN), .HEADS(HEADS)) u_bmm (
        .clk(clk), .clear(bmm_clr),
        .s_re(v_2 && k_2 == K_BMM), .s_row(i_2), .s_j0(j_2), .s_q(bmm_s),
        .we(bmm_we), .w_row(i_3), .w_j0(j_3), .w_data(acc_new),
        .o_re(writeout_gate && wo_feed && op == MOP_BMM_WO), .o_row(BVW'(step)), .o_q(bmm_o),
        .h_re(h_acc_re && h_acc_sel == HS_BMM), .h_addr(h_acc_addr), .h_q(bmm_h));
    // MM_ACC: one bank of BLEN words (row i of the block each), the step's row read in T3
    // and written by A; M_MM_WO reads row `step`; cleared like BMM_ACC.
    wire mm_we = v_3 && k_3 == K_MM;
    wire mm_clr = rst_q || (writeout && last_wo_step && op == MOP_MM_WO);
    wire [BLEN*32-1:0] mm_w;
    generate
        for (gl = 0; gl < BLEN; gl = gl + 1) begin : g_mm_w
            assign mm_w[32*gl +: 32] = acc_new[32*HEADS*gl +: 32];
        end
    endgenerate
    plena_acc #(.ROWS(BLEN), .COLS(BLEN), .BLEN(BLEN), .HEADS(1)) u_mm (
        .clk(clk), .clear(mm_clr),
        .s_re(v_2 && k_2 == K_MM), .s_row(MRW'(i_2)), .s_j0(MCW'(0)), .s_q(mm_s),
        .we(mm_we), .w_row(MRW'(i_3)), .w_j0(MCW'(0)), .w_data(mm_w),
        .o_re(writeout_gate && wo_feed && op == MOP_MM_WO), .o_row(MRW'(step)), .o_q(mm_o),
        .h_re(h_acc_re && h_acc_sel == HS_MM), .h_addr(MMW'(h_acc_addr)), .h_q(mm_h));
    // The trace's copy: which accumulator (the step's kind: K_MM or K_BMM) a write is of,
    // and each accumulator's clear.
    assign db_en = bmm_we || mm_we;
    assign db_acc = k_3;
    assign db_row = i_3;
    assign db_j0 = j_3;
    assign db_data = acc_new;
    assign db_clr = {bmm_clr, mm_clr};

    // A's writes: lane r's sums to entry j_3 + r (of every head) of the step's block.
    integer b, r, h;
    always @(posedge aclk) begin
        if (rst_q) begin
            mv_acc <= {MLEN*32{1'b0}};
            bmv_acc <= {HEADS*MLEN*32{1'b0}};
        end else if (v_3) begin
            for (b = 0; b < NB; b = b + 1)
                if (blk_3[b])
                    for (r = 0; r < BLEN; r = r + 1) begin
                        if (k_3 == K_MV)
                            mv_acc[32*(b*BLEN + r) +: 32] <= acc_new[32*(r*HEADS) +: 32];
                        else if (!in_banks)
                            for (h = 0; h < HEADS; h = h + 1)
                                bmv_acc[32*(h*MLEN + b*BLEN + r) +: 32]
                                    <= acc_new[32*(r*HEADS + h) +: 32];
                    end
        end else if (writeout && last_wo_step) begin
            case (op)
                MOP_MV_WO:  mv_acc <= {MLEN*32{1'b0}};
                MOP_BMV_WO: bmv_acc <= {HEADS*MLEN*32{1'b0}};
                default: ;
            endcase
        end
    end
endmodule
