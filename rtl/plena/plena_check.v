// Run-time checks of the instruction at issue, and what it touches.
//
// Every check of isa/plena/README.md, in the order the functional model makes them, so
// both report the same first problem: an address outside its memory (ERR_RANGE) or
// breaking an alignment rule (ERR_ALIGN), a shift amount out of range, a loop nested
// too deep or ended without a start, an illegal word. (V_TOPK's NaN logit is the one
// check made later, in its step 1 from the logits it read: plena_core's late_err.) `addr` is the
// address the model names (the operand's first element; for HBM the lowest start when
// one is negative, else the first row that runs past the end).
//
// The footprint is what the DMA stall rule looks at: up to three ranges of Vector SRAM
// rows and one Matrix SRAM tile. For an H_ instruction, slot 0 (or the tile) is its
// SRAM side, and `h_base`/`h_stride` describe its HBM rows.
// Combinational.
module plena_check #(
    /* verilator lint_off UNUSEDPARAM */
    // Waiver: every plena module takes the whole configuration so that plena_isa.vh's
    // constants are defined; not every module needs every parameter.
    `include "plena_params.vh"
    /* verilator lint_on UNUSEDPARAM */
) (
    input  wire [5:0]         op,
    input  wire               legal,
    input  wire               rmask,
    input  wire               rstride,
    input  wire [31:0]        imm,
    input  wire [31:0]        g_rd,       // gp[rd], gp[rs1], gp[rs2]
    input  wire [31:0]        g_rs1,
    input  wire [31:0]        g_rs2,
    input  wire [63:0]        a_rs2,      // a[rs2]
    input  wire [31:0]        stride,     // STRIDE
    input  wire [31:0]        loop_sp,    // open hardware loops
    output reg  [3:0]         code,
    output reg  [2:0]         mem,
    output reg  signed [67:0] addr,
    output reg  [VRW-1:0]     fv_row0, fv_row1, fv_row2,
    output reg  [31:0]        fv_n0, fv_n1, fv_n2,
    output reg                ft_en,
    output reg  [MTW-1:0]     ft_tile,
    output wire [63:0]        h_base,     // valid when the checks pass
    output wire [63:0]        h_stride
);
    `include "plena_isa.vh"
    `include "plena_units.vh"
    localparam integer VRW = (VSRAM_ROWS > 1) ? $clog2(VSRAM_ROWS) : 1;
    localparam integer MTW = (MSRAM_TILES > 1) ? $clog2(MSRAM_TILES) : 1;
    localparam integer VLW = $clog2(VLEN);
    localparam integer TLW = $clog2(MLEN * MLEN);
    localparam integer HEADS = MLEN / HLEN;

    typedef logic signed [39:0] s40;
    typedef logic signed [67:0] s68;
    localparam s40 ONE = 40'sd1;
    localparam s40 W_VLEN = $signed(40'(VLEN));
    localparam s40 W_BLEN = $signed(40'(BLEN));
    localparam s40 W_MLEN = $signed(40'(MLEN));
    localparam s40 W_TILE = $signed(40'(MLEN * MLEN));

    // Operands without wrap-around: gp is signed 32-bit, imm up to 22 bits.
    wire s40 rd_v = $signed(40'($signed(g_rd)));
    wire s40 rs1_v = $signed(40'($signed(g_rs1)));
    wire s40 rs2_v = $signed(40'($signed(g_rs2)));
    wire s40 rs1_imm = rs1_v + $signed(40'($signed(imm)));
    wire s40 rd_imm = rd_v + $signed(40'($signed(imm)));

    function automatic [6:0] chk_rows(input s40 adr, input s40 rows, input s40 width, input s40 align);
        if (adr < 0 || adr + (rows - ONE) * W_VLEN + width > $signed(40'(MEM_VSRAM_SIZE)))
            chk_rows = {ERR_RANGE, MEM_VSRAM_ID};
        else if ((adr & (align - ONE)) != 0)
            chk_rows = {ERR_ALIGN, MEM_VSRAM_ID};
        else
            chk_rows = {ERR_NONE, 3'd0};
    endfunction
    function automatic [6:0] chk_tile(input s40 adr, input logic column_block);
        s40 c;
        c = adr & (W_TILE - ONE);
        if (adr < 0 || adr >= $signed(40'(MEM_MSRAM_SIZE))) chk_tile = {ERR_RANGE, MEM_MSRAM_ID};
        else if (column_block ? ((c & (W_BLEN - ONE)) != 0 || c >= W_MLEN) : (c != 0))
            chk_tile = {ERR_ALIGN, MEM_MSRAM_ID};
        else chk_tile = {ERR_NONE, 3'd0};
    endfunction
    function automatic [6:0] chk_span(input s40 adr, input s40 n, input s40 size, input [2:0] m);
        chk_span = (adr < 0 || adr + n > size) ? {ERR_RANGE, m} : {ERR_NONE, 3'd0};
    endfunction

    // --- HBM side of a transfer -----------------------------------------------------------
    wire is_pm = (op == OP_H_PREFETCH_M);
    wire is_dma = is_pm || op == OP_H_PREFETCH_V || op == OP_H_STORE_V;
    wire [31:0] h_rows = is_pm ? MLEN : (op == OP_H_STORE_V) ? HBM_V_WRITEBACK_AMOUNT
                                                        : HBM_V_PREFETCH_AMOUNT;
    localparam integer MAX_XROWS = (MLEN > HBM_V_PREFETCH_AMOUNT)
        ? ((MLEN > HBM_V_WRITEBACK_AMOUNT) ? MLEN : HBM_V_WRITEBACK_AMOUNT)
        : ((HBM_V_PREFETCH_AMOUNT > HBM_V_WRITEBACK_AMOUNT) ? HBM_V_PREFETCH_AMOUNT
                                                            : HBM_V_WRITEBACK_AMOUNT);
    wire s68 x_base = $signed(68'(a_rs2)) + $signed(68'($signed(g_rs1)));
    wire s68 x_stride = rstride ? $signed(68'($signed(stride))) : $signed(68'(VLEN));   // rows are VLEN == MLEN
    assign h_base = 64'(x_base);
    assign h_stride = 64'(x_stride);
    // Row r < h_rows of the transfer starts at x_base + r * x_stride (exact in 68 bits:
    // |x_base| < 2^65, |r * x_stride| < 2^31 * MAX_XROWS). The model checks every row in
    // order and names the lowest row address when one is negative, else the first row
    // past the end (h_at + VLEN > HBM_SIZE, i.e. h_at > H_LAST). The rows are an
    // arithmetic progression, so without a scan:
    //  - the lowest row is the first (stride >= 0) or the last (stride < 0), the highest
    //    the other one, and a row is outside 0..H_LAST exactly when the lowest is below 0
    //    or the highest above H_LAST (the rows between lie between them);
    //  - with no row below 0, the first row past the end is the first row when it is
    //    (stride <= 0: the first row is the highest), else (stride > 0, the first row in
    //    range) row q, the smallest q with q * stride > H_LAST - x_base: the multiples
    //    of the stride are compared with H_LAST - x_base in parallel, and q is where the
    //    comparisons (false, ..., false, true, ...) turn true.
    // h_rows >= 1: hardware.toml's parameters are positive.
    localparam integer MW = 32 + $clog2(MAX_XROWS + 1);     // r * |stride|, r < MAX_XROWS
    localparam s68 H_LAST = $signed(68'(HBM_SIZE)) - $signed(68'(VLEN));
    wire        s_neg = x_stride < 0;
    wire [31:0] s_mag = 32'(s_neg ? -x_stride : x_stride);   // |stride| <= 2^31
    wire s68 h_room = H_LAST - x_base;
    // --- checks and footprint of each instruction -----------------------------------------
    wire s40 topk_n = rmask ? 40'sd128 : 40'sd32;
    wire s40 topk_k = rmask ? 40'sd8 : 40'sd4;
    wire s40 topk_rows = (topk_n + W_VLEN - ONE) / W_VLEN;
    wire s40 topk_width = (topk_n < W_VLEN) ? topk_n : W_VLEN;

    task automatic fail(input [6:0] e, input s40 adr);
        if (code == ERR_NONE && e[6:3] != ERR_NONE) begin
            code = e[6:3];
            mem = e[2:0];
            addr = $signed(68'(adr));
        end
    endtask
    // The HBM check's result as arguments: a simulator's @* sees what a task is passed,
    // not what its body reads (Icarus evaluated this block before h_err was settled).
    task automatic hbm_fail(input err, input s68 bad);
        if (code == ERR_NONE && err) begin
            code = ERR_RANGE;
            mem = MEM_HBM_ID;
            addr = bad;
        end
    endtask
    function automatic [VRW-1:0] row_of(input s40 adr);
        row_of = VRW'(adr >>> VLW);
    endfunction

    wire mm  = (op == OP_M_MM || op == OP_M_TMM);
    wire bmm = (op == OP_M_BMM || op == OP_M_BTMM);
    wire s40 m_rows = mm ? W_BLEN : bmm ? W_MLEN : ONE;

    // The HBM range check of a transfer: {h_err, h_bad}. A function of its own, called
    // only for a transfer: its wide temporaries (the multiples, MW * MAX_XROWS bits, and
    // their OR tree) are its locals, which Verilator (no_inline_task: a C++ function of
    // its own) clears and fills only when it is called; inlined into the checks' block,
    // they were cleared and assigned at every evaluation, every cycle (about 4% of the
    // default configuration's scalar code). Every input is an argument (a simulator's @*
    // sees what a function is passed).
    localparam integer XP = 1 << $clog2(MAX_XROWS);         // the rows, to a power of 2
    function automatic [68:0] hbm_range(input logic pm, input logic st, input s68 base,
                                        input logic neg, input [31:0] mag, input s68 room);
        /*verilator no_inline_task*/
        reg [MW*MAX_XROWS-1:0] s_mul;
        reg [MAX_XROWS-1:0]    past, turn;
        reg [MW-1:0]           m_cross, m_last;
        reg [MW*XP-1:0]        x_or;
        s68                    x_last, h_low, h_high, h_bad;
        reg                    h_err;
        integer                xr, xl;
        s_mul = {MW*MAX_XROWS{1'b0}};
        past = {MAX_XROWS{1'b0}};
        for (xr = 0; xr < MAX_XROWS; xr = xr + 1) begin
            s_mul[MW*xr +: MW] = MW'(xr) * MW'(mag);
            past[xr] = $signed(68'(s_mul[MW*xr +: MW])) > room;
        end
        // Row q's multiple: past[] turns true once (stride > 0), at q >= 1 (past[0]
        // is false when x_base <= H_LAST); the OR over the rows of (turns here) & the
        // row's multiple (word by word: a bit-by-bit form cost simulators 2,432
        // steps an evaluation; a tree: a chain of ORs was 52 levels deeper).
        turn = past & ~((past << 1) | MAX_XROWS'(1));
        x_or = {MW*XP{1'b0}};
        for (xr = 0; xr < MAX_XROWS; xr = xr + 1)
            x_or[MW*xr +: MW] = {MW{turn[xr]}} & s_mul[MW*xr +: MW];
        for (xl = XP / 2; xl >= 1; xl = xl / 2)          // an OR tree, log2(XP) deep
            for (xr = 0; xr < xl; xr = xr + 1)
                x_or[MW*xr +: MW] = x_or[MW*(2*xr) +: MW] | x_or[MW*(2*xr + 1) +: MW];
        m_cross = x_or[0 +: MW];
        // The last row's multiple: h_rows is one of three constants.
        m_last = pm ? s_mul[MW*(MLEN - 1) +: MW]
               : st ? s_mul[MW*(HBM_V_WRITEBACK_AMOUNT - 1) +: MW]
                    : s_mul[MW*(HBM_V_PREFETCH_AMOUNT - 1) +: MW];
        x_last = neg ? base - $signed(68'(m_last)) : base + $signed(68'(m_last));
        h_low = neg ? x_last : base;
        h_high = neg ? base : x_last;
        h_err = h_low < 0 || h_high > H_LAST;
        h_bad = (h_low < 0) ? h_low
              : (neg || base > H_LAST) ? base : base + $signed(68'(m_cross));
        hbm_range = {h_err, h_bad};
    endfunction
    reg h_err;
    s68 h_bad;
    // The HBM range check is computed in the checks' own block, before the checks: as a
    // block of its own (and nets after it) Icarus could run the checks on its stale
    // result and not run them again (a standalone testbench at the default configuration
    // left the code or address stale in 6,791 of 40,000 draws; none with this form).
    // Only for a transfer: the simulators then skip the multiples in every other
    // instruction (evaluated every cycle, they halved Verilator's speed on scalar code);
    // every variable has its value on both paths, so no latch.
    always @* begin
        h_err = 1'b0;
        h_bad = 68'sd0;
        if (is_dma)
            {h_err, h_bad} = hbm_range(is_pm, op == OP_H_STORE_V, x_base, s_neg, s_mag, h_room);
        code = ERR_NONE;
        mem = 3'd0;
        addr = 68'sd0;
        fv_row0 = row_of(rd_v);
        fv_row1 = row_of(rs1_v);
        fv_row2 = row_of(rs2_v);
        fv_n0 = 32'd0;
        fv_n1 = 32'd0;
        fv_n2 = 32'd0;
        ft_en = 1'b0;
        ft_tile = rs1_v[TLW +: MTW];
        if (!legal) begin
            code = ERR_ILLEGAL;
        end else case (op)
            OP_S_LD_INT, OP_S_ST_INT:
                fail(chk_span(rs1_imm, ONE, $signed(40'(MEM_INT_MEM_SIZE)), MEM_INT_MEM_ID), rs1_imm);
            OP_S_LD_FP, OP_S_ST_FP:
                fail(chk_span(rs1_imm, ONE, $signed(40'(MEM_FP_MEM_SIZE)), MEM_FP_MEM_ID), rs1_imm);
            OP_S_MAP_V_FP: begin
                fail(chk_rows(rd_v, ONE, W_VLEN, W_VLEN), rd_v);
                fail(chk_span(rs1_imm, W_VLEN, $signed(40'(MEM_FP_MEM_SIZE)), MEM_FP_MEM_ID), rs1_imm);
                fv_n0 = 32'd1;
            end
            OP_V_ADD_VV, OP_V_SUB_VV, OP_V_MUL_VV: begin
                fail(chk_rows(rd_v, ONE, W_VLEN, W_VLEN), rd_v);
                fail(chk_rows(rs1_v, ONE, W_VLEN, W_VLEN), rs1_v);
                fail(chk_rows(rs2_v, ONE, W_VLEN, W_VLEN), rs2_v);
                fv_n0 = 32'd1; fv_n1 = 32'd1; fv_n2 = 32'd1;
            end
            OP_V_ADD_VF, OP_V_SUB_VF, OP_V_MUL_VF, OP_V_MAX_VF, OP_V_MIN_VF, OP_V_EXP_V,
            OP_V_RECI_V: begin
                fail(chk_rows(rd_v, ONE, W_VLEN, W_VLEN), rd_v);
                fail(chk_rows(rs1_v, ONE, W_VLEN, W_VLEN), rs1_v);
                fv_n0 = 32'd1; fv_n1 = 32'd1;
            end
            OP_V_RED_SUM, OP_V_RED_MAX: begin
                fail(chk_rows(rs1_v, ONE, W_VLEN, W_VLEN), rs1_v);
                fv_n1 = 32'd1;
            end
            OP_V_SHFT_V: begin
                fail(chk_rows(rd_v, ONE, W_VLEN, W_VLEN), rd_v);
                fail(chk_rows(rs1_v, ONE, W_VLEN, W_VLEN), rs1_v);
                if (rs2_v < 0 || rs2_v > W_VLEN) fail({ERR_SHIFT, 3'd0}, rs2_v);
                fv_n0 = 32'd1; fv_n1 = 32'd1;
            end
            OP_V_TOPK: begin
                fail(chk_rows(rs1_v, topk_rows, topk_width, W_VLEN), rs1_v);
                fail(chk_span(rd_v, topk_k, $signed(40'(MEM_FP_MEM_SIZE)), MEM_FP_MEM_ID), rd_v);
                fail(chk_span(rs2_v, topk_k, $signed(40'(MEM_INT_MEM_SIZE)), MEM_INT_MEM_ID), rs2_v);
                fv_n1 = 32'(topk_rows);
            end
            OP_M_MM, OP_M_TMM, OP_M_BMM, OP_M_BTMM, OP_M_MV, OP_M_TMV, OP_M_BMV, OP_M_BTMV: begin
                fail(chk_tile(rs1_v, mm), rs1_v);
                fail(chk_rows(rs2_v, m_rows, W_VLEN, W_VLEN), rs2_v);
                ft_en = 1'b1;
                fv_n2 = 32'(m_rows);
            end
            OP_M_MM_WO: begin
                fail(chk_rows(rd_imm, W_BLEN, W_BLEN, W_BLEN), rd_imm);
                fv_row0 = row_of(rd_imm);
                fv_n0 = 32'(BLEN);
            end
            OP_M_MV_WO, OP_M_BMM_WO, OP_M_BMV_WO: begin
                fail(chk_rows(rd_imm, (op == OP_M_MV_WO) ? ONE : (op == OP_M_BMV_WO) ? $signed(40'(HEADS))
                              : $signed(40'(HEADS * MLEN)), W_VLEN, W_VLEN), rd_imm);
                fv_row0 = row_of(rd_imm);
                fv_n0 = (op == OP_M_MV_WO) ? 32'd1 : (op == OP_M_BMV_WO) ? 32'(HEADS)
                                                                        : 32'(HEADS * MLEN);
            end
            OP_H_PREFETCH_V, OP_H_STORE_V: begin
                fail(chk_rows(rd_v, $signed(40'(h_rows)), W_VLEN, W_VLEN), rd_v);
                hbm_fail(h_err, h_bad);
                fv_n0 = h_rows;
            end
            OP_H_PREFETCH_M: begin
                fail(chk_tile(rd_v, 1'b0), rd_v);
                hbm_fail(h_err, h_bad);
                ft_en = 1'b1;
                ft_tile = rd_v[TLW +: MTW];
            end
            OP_C_LOOP_START:
                if (loop_sp >= 32'(LOOP_DEPTH)) code = ERR_LOOP_DEEP;
            OP_C_LOOP_END:
                if (loop_sp == 32'd0) code = ERR_LOOP_NONE;
            default: ;
        endcase
    end
endmodule
