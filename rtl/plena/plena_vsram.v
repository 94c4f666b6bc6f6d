// plena_vsram: plena's Vector SRAM, NB banks by row (row r in bank r mod NB, at word
// r / NB), each bank three copies of a plena_sram2w (one per read port; every write goes
// to all three). Rows are VLEN elements; every read is registered (the data after the
// edge, held until the port reads again). Ports, each used at most once per cycle:
//   A  NA consecutive rows (NA = ceil(128 / VLEN): V_TOPK's logits) or one: the
//      instruction's first operand, the MAC array's A row, the shifter's source, a
//      reduction's row; the host's row while the core is idle
//   B  one row: the second operand of the VV forms
//   D  one row: a store's next beat (the DMA engine)
//   W  one row, element-masked: the instruction's writes (M_MM_WO's block too, a row
//      per step); the host's while idle
//   P  one row, element-masked: a prefetch beat
// NB is a power of two of at least NA, so A's consecutive rows fall in distinct banks; A, B and D have their own copies (A and B may name one row, D runs
// beside the instructions), and W and P the macro's two write ports (they meet in a
// bank, never in a row: the stall rule keeps instructions off a prefetch's rows).
module plena_vsram #(
    parameter integer VLEN = 64,
    parameter integer VSRAM_ROWS = 1024,
    parameter integer NA = (128 + VLEN - 1) / VLEN,
    parameter integer NBW = $clog2(NA),
    parameter integer VRW = (VSRAM_ROWS > 1) ? $clog2(VSRAM_ROWS) : 1
) (
    input  wire                 clk,
    input  wire                 a_re,
    input  wire [VRW-1:0]       a_row,
    output wire [NA*VLEN*16-1:0] a_q,      // row a_row + i at [i*VLEN*16 +: VLEN*16]
    input  wire                 b_re,
    input  wire [VRW-1:0]       b_row,
    output wire [VLEN*16-1:0]   b_q,
    input  wire                 d_re,
    input  wire [VRW-1:0]       d_row,
    output wire [VLEN*16-1:0]   d_q,
    output wire                 d_clk,    // port D's read clock (d_re's gate), for the core
    input  wire                 w_en,
    input  wire [VRW-1:0]       w_row,
    input  wire [VLEN*16-1:0]   w_data,
    input  wire [VLEN-1:0]      w_mask,
    input  wire                 w_open,   // the host may write (the core is idle)
    input  wire                 p_en,
    input  wire [VRW-1:0]       p_row,
    input  wire [VLEN*16-1:0]   p_data,
    input  wire [VLEN-1:0]      p_mask
);
    localparam integer NB = 1 << NBW;
    localparam integer RW = VLEN * 16;
    localparam integer DEPTH = (VSRAM_ROWS + NB - 1) / NB;
    localparam integer AW = (DEPTH > 1) ? $clog2(DEPTH) : 1;
    localparam integer BW = (NBW > 0) ? NBW : 1;

    // Bank of a row, and its word in the bank.
    function automatic [BW-1:0] bank_of(input [VRW-1:0] r);
        bank_of = BW'(32'(r) % NB);
    endfunction
    function automatic [AW-1:0] word_of(input [VRW-1:0] r);
        word_of = AW'(32'(r) / NB);
    endfunction

    wire [NB*RW-1:0] qa, qb, qd;     // bank n's copies' read registers at [n*RW +: RW]
    // Each port's read clock ticks only when it reads (what reads it then stays still);
    // each bank's write clock only when it may be written (g_bank).
    wire aclk, bclk, dclk;
    icg u_agate (.clk(clk), .en(a_re), .gclk(aclk));
    icg u_bgate (.clk(clk), .en(b_re), .gclk(bclk));
    icg u_dgate (.clk(clk), .en(d_re), .gclk(dclk));
    // The core registers its forwarded beat on this clock too: one gate, not two with
    // one enable (under Verilator each gated clock is a trigger checked at every edge).
    assign d_clk = dclk;
    genvar gb;
    generate
        for (gb = 0; gb < NB; gb = gb + 1) begin : g_bank
            // Which of A's rows falls in this bank: offset (gb - row) mod NB.
            wire [BW-1:0]  a_off = BW'((32'(gb) - 32'(a_row)) % NB);
            wire [VRW-1:0] a_r = a_row + VRW'(a_off);
            wire a_here = a_re && 32'(a_off) < 32'(NA);
            wire w_here = w_en && bank_of(w_row) == BW'(gb);
            wire p_here = p_en && bank_of(p_row) == BW'(gb);
            wire b_here = b_re && bank_of(b_row) == BW'(gb);
            wire d_here = d_re && bank_of(d_row) == BW'(gb);
            // The bank's write clock ticks when W or P writes it, and throughout while the
            // core is idle (w_open: the host's writes come from outside, and the gate's
            // enable must not wait on them).
            wire wclk;
            icg u_wgate (.clk(clk), .en(w_here || p_here || w_open), .gclk(wclk));
            plena_sram2w #(.DEPTH(DEPTH), .N(VLEN), .AW(AW)) u_a (
                .rclk(aclk), .wclk(wclk), .re(a_here), .raddr(word_of(a_r)), .rdata(qa[gb*RW +: RW]),
                .we0(w_here), .wmask0(w_mask), .waddr0(word_of(w_row)), .wdata0(w_data),
                .we1(p_here), .wmask1(p_mask), .waddr1(word_of(p_row)), .wdata1(p_data));
            plena_sram2w #(.DEPTH(DEPTH), .N(VLEN), .AW(AW)) u_b (
                .rclk(bclk), .wclk(wclk), .re(b_here), .raddr(word_of(b_row)), .rdata(qb[gb*RW +: RW]),
                .we0(w_here), .wmask0(w_mask), .waddr0(word_of(w_row)), .wdata0(w_data),
                .we1(p_here), .wmask1(p_mask), .waddr1(word_of(p_row)), .wdata1(p_data));
            plena_sram2w #(.DEPTH(DEPTH), .N(VLEN), .AW(AW)) u_d (
                .rclk(dclk), .wclk(wclk), .re(d_here), .raddr(word_of(d_row)), .rdata(qd[gb*RW +: RW]),
                .we0(w_here), .wmask0(w_mask), .waddr0(word_of(w_row)), .wdata0(w_data),
                .we1(p_here), .wmask1(p_mask), .waddr1(word_of(p_row)), .wdata1(p_data));
        end
    endgenerate

    // Which bank each port's data comes from: the banks of the rows it read last.
    reg [BW-1:0] a_bk, b_bk, d_bk;
    always @(posedge aclk) a_bk <= bank_of(a_row);
    always @(posedge bclk) b_bk <= bank_of(b_row);
    always @(posedge dclk) d_bk <= bank_of(d_row);
    genvar gi;
    generate
        for (gi = 0; gi < NA; gi = gi + 1) begin : g_arow
            wire [BW-1:0] bk = BW'((32'(a_bk) + gi) % NB);
            assign a_q[gi*RW +: RW] = qa[32'(bk)*RW +: RW];
        end
    endgenerate
    assign b_q = qb[32'(b_bk)*RW +: RW];
    assign d_q = qd[32'(d_bk)*RW +: RW];
endmodule
