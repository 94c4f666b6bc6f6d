// plena_acc: one of plena's fp32 accumulators in SRAM banks: HEADS heads of ROWS x COLS
// entries (entry (h, i, j) at (h*ROWS + i)*COLS + j), in HEADS x NB plena_sram banks
// (NB = COLS / BLEN): bank (h, b) holds columns b*BLEN .. b*BLEN + BLEN - 1 of head h,
// word i its row i (BLEN entries). BMM_ACC is HEADS x MLEN x MLEN, MM_ACC 1 x BLEN x BLEN
// (one bank of BLEN words). One read port and one write port each, and every access of
// a cycle is at one row, so the banks share the read address:
//   - a step (plena_matrix's T3, registered for A) reads block b of row i in every
//     head: the HEADS banks of column b; A writes the same block of every head;
//   - a write-out step reads row i of head h whole: the NB banks of head h;
//   - the host reads one entry through its bank while the core is idle or done.
// The three reads never meet (one instruction at a time; the host only while idle).
// Reads are registered: the data come the cycle after the address.
//
// Clear: a valid bit per block of a row (every head's: a step writes all of them) in
// flip-flops, cleared at one edge (reset, a write-out's last read step). A block whose
// bit is clear reads as +0 whatever its banks hold, so the first accumulation into it
// adds its sum to +0, exactly as into a cleared entry, and an SRAM needs no clear cycle.
module plena_acc #(
    parameter integer ROWS = 64,
    parameter integer COLS = 64,
    parameter integer BLEN = 4,
    parameter integer HEADS = 4,
    parameter integer RWD = (ROWS > 1) ? $clog2(ROWS) : 1,             // a row
    parameter integer CW = (COLS > 1) ? $clog2(COLS) : 1,              // a column
    parameter integer HRW = (HEADS * ROWS > 1) ? $clog2(HEADS * ROWS) : 1,  // a head's row
    parameter integer EW = (HEADS * ROWS * COLS > 1) ? $clog2(HEADS * ROWS * COLS) : 1  // an entry
) (
    input  wire                     clk,
    input  wire                     clear,    // every entry reads +0 after this edge
    // A step's read, at the edge that ends T3's cycle: row s_row, columns s_j0 ..
    // s_j0 + BLEN - 1 of every head; lane l, head h at [32*(l*HEADS + h) +: 32].
    input  wire                     s_re,
    input  wire [RWD-1:0]           s_row,
    input  wire [CW-1:0]            s_j0,
    output wire [BLEN*HEADS*32-1:0] s_q,
    // A's write of the same block (layout of s_q), at the edge that ends A's cycle.
    input  wire                     we,
    input  wire [RWD-1:0]           w_row,
    input  wire [CW-1:0]            w_j0,
    input  wire [BLEN*HEADS*32-1:0] w_data,
    // A write-out step's read: head row o_row (h*ROWS + i), entry j at [32*j +: 32].
    input  wire                     o_re,
    input  wire [HRW-1:0]           o_row,
    output wire [COLS*32-1:0]       o_q,
    // The host's read of entry h_addr (only while the core is idle or done).
    input  wire                     h_re,
    input  wire [EW-1:0]            h_addr,
    output wire [31:0]              h_q
);
    localparam integer NB = COLS / BLEN;
    localparam integer NBW = (NB > 1) ? $clog2(NB) : 1;
    localparam integer HDW = (HEADS > 1) ? $clog2(HEADS) : 1;
    localparam integer BLW = (BLEN > 1) ? $clog2(BLEN) : 1;
    localparam integer WW = BLEN * 32;                       // a bank's word
    initial if (NB * BLEN != COLS)
        $fatal(1, "plena_acc: COLS must be a multiple of BLEN");

    // The host's entry: head, row, block, lane.
    wire [HDW-1:0] hh = HDW'(32'(h_addr) / (ROWS * COLS));
    wire [RWD-1:0] hi = RWD'(32'(h_addr) / COLS);
    wire [NBW-1:0] hb = NBW'((32'(h_addr) % COLS) / BLEN);
    wire [BLW-1:0] hl = BLW'(32'(h_addr) % BLEN);
    wire [HDW-1:0] oh = HDW'(32'(o_row) / ROWS);
    wire [NBW-1:0] sb = NBW'(32'(s_j0) / BLEN);
    wire [NBW-1:0] wb = NBW'(32'(w_j0) / BLEN);
    // The row every reading bank reads this cycle.
    wire [RWD-1:0] rd_row = s_re ? s_row : o_re ? RWD'(32'(o_row) % ROWS) : hi;

    // The banks' read clock ticks only in a cycle that reads; their write clock with a
    // write or a clear (the valid bits are on it).
    wire rclk, wclk;
    icg u_rgate (.clk(clk), .en(s_re || o_re || h_re), .gclk(rclk));
    icg u_wgate (.clk(clk), .en(we || clear), .gclk(wclk));

    wire [HEADS*NB*WW-1:0] q;               // bank (h, b)'s read register at [(h*NB + b)*WW +: WW]
    genvar gh, gb, gl;
    generate
        for (gh = 0; gh < HEADS; gh = gh + 1) begin : g_head
            for (gb = 0; gb < NB; gb = gb + 1) begin : g_bank
                wire [WW-1:0] wd;            // head gh's BLEN entries of the write
                for (gl = 0; gl < BLEN; gl = gl + 1) begin : g_lane
                    assign wd[32*gl +: 32] = w_data[32*(gl*HEADS + gh) +: 32];
                end
                wire re = (s_re && sb == NBW'(gb)) || (o_re && oh == HDW'(gh))
                       || (h_re && hh == HDW'(gh) && hb == NBW'(gb));
                plena_sram #(.DEPTH(ROWS), .N(2 * BLEN), .AW(RWD)) u_bank (
                    .rclk(rclk), .wclk(wclk), .re(re), .raddr(rd_row),
                    .rdata(q[(gh*NB + gb)*WW +: WW]),
                    .we(we && wb == NBW'(gb)), .wmask({2 * BLEN{1'b1}}), .waddr(w_row),
                    .wdata(wd));
            end
        end
    endgenerate

    // Valid bits: block b of row i at i*NB + b.
    reg [ROWS*NB-1:0] vld;
    always @(posedge wclk)
        if (clear) vld <= {ROWS*NB{1'b0}};
        else if (we) vld[32'(w_row)*NB + 32'(wb)] <= 1'b1;

    // What the read registers hold: the row's valid bits (read with the banks), the step's
    // or the host's block, the write-out's or the host's head, the host's lane.
    reg [NB-1:0]  v_q;
    reg [NBW-1:0] b_q;
    reg [HDW-1:0] hd_q;
    reg [BLW-1:0] l_q;
    always @(posedge rclk) begin
        v_q <= vld[32'(rd_row)*NB +: NB];
        b_q <= s_re ? sb : hb;
        hd_q <= o_re ? oh : hh;
        l_q <= hl;
    end

    // The reads' choices are binary mux trees (rtl/common/mux_tree.v, level k halving the
    // entries by select bit k, +0 past the last), not a variable part-select of q (a
    // $shiftx that Yosys expands to a log shifter of q's whole width before `opt` trims
    // it) nor a tree of continuous assignments (which made Icarus re-evaluate every node
    // at each bank's read): rtl/plena/README.md, "Synthesis", "Simulators".
    // blk: each head's block b_q (a step's, or the host's); hsel: head hd_q's of them.
    wire [HEADS*WW-1:0] blk;
    genvar go;
    generate
        for (gh = 0; gh < HEADS; gh = gh + 1) begin : g_blk
            mux_tree #(.WIDTH(WW), .N(NB), .LEVELS(NBW)) u_mux (
                .in(q[gh*NB*WW +: NB*WW]), .sel(b_q), .out(blk[WW*gh +: WW]));
            for (gl = 0; gl < BLEN; gl = gl + 1) begin : g_lane
                assign s_q[32*(gl*HEADS + gh) +: 32] = v_q[b_q] ? blk[WW*gh + 32*gl +: 32] : 32'd0;
            end
        end
        // A write-out's row: bank go of head hd_q.
        for (go = 0; go < NB; go = go + 1) begin : g_oq
            wire [HEADS*WW-1:0] m;
            wire [WW-1:0] t;
            for (gh = 0; gh < HEADS; gh = gh + 1) begin : g_leaf
                assign m[WW*gh +: WW] = q[(gh*NB + go)*WW +: WW];
            end
            mux_tree #(.WIDTH(WW), .N(HEADS), .LEVELS(HDW)) u_mux (.in(m), .sel(hd_q), .out(t));
            assign o_q[WW*go +: WW] = v_q[go] ? t : {WW{1'b0}};
        end
    endgenerate
    // The host's entry: head hd_q's block (of blk), then lane l_q's entry of it.
    wire [WW-1:0] hblk;
    wire [31:0] hent;
    mux_tree #(.WIDTH(WW), .N(HEADS), .LEVELS(HDW)) u_hhead (.in(blk), .sel(hd_q), .out(hblk));
    mux_tree #(.WIDTH(32), .N(BLEN), .LEVELS(BLW)) u_hlane (.in(hblk), .sel(l_q), .out(hent));
    assign h_q = v_q[b_q] ? hent : 32'd0;
endmodule
