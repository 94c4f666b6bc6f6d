// plena_bmm_acc: BMM_ACC, the fp32 accumulators of M_BMM / M_BTMM (HEADS x MLEN x MLEN
// entries; entry (h, i, j) at (h*MLEN + i)*MLEN + j), in HEADS x NB plena_sram banks
// (NB = MLEN / BLEN): bank (h, b) holds columns b*BLEN .. b*BLEN + BLEN - 1 of head h,
// word i its row i (BLEN entries). One read port and one write port each, and every
// access of a cycle is at one row, so the banks share the read address:
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
module plena_bmm_acc #(
    parameter integer MLEN = 64,
    parameter integer BLEN = 4,
    parameter integer HLEN = 16,
    parameter integer HEADS = MLEN / HLEN,
    parameter integer MLW = $clog2(MLEN),
    parameter integer HRW = $clog2(HEADS * MLEN),            // a head's row: h*MLEN + i
    parameter integer BMW = $clog2(HEADS * MLEN * MLEN)      // an entry
) (
    input  wire                     clk,
    input  wire                     clear,    // every entry reads +0 after this edge
    // A step's read, at the edge that ends T3's cycle: row s_row, columns s_j0 ..
    // s_j0 + BLEN - 1 of every head; lane l, head h at [32*(l*HEADS + h) +: 32].
    input  wire                     s_re,
    input  wire [MLW-1:0]           s_row,
    input  wire [MLW-1:0]           s_j0,
    output wire [BLEN*HEADS*32-1:0] s_q,
    // A's write of the same block (layout of s_q), at the edge that ends A's cycle.
    input  wire                     we,
    input  wire [MLW-1:0]           w_row,
    input  wire [MLW-1:0]           w_j0,
    input  wire [BLEN*HEADS*32-1:0] w_data,
    // A write-out step's read: head row o_row (h*MLEN + i), entry j at [32*j +: 32].
    input  wire                     o_re,
    input  wire [HRW-1:0]           o_row,
    output wire [MLEN*32-1:0]       o_q,
    // The host's read of entry h_addr (only while the core is idle or done).
    input  wire                     h_re,
    input  wire [BMW-1:0]           h_addr,
    output wire [31:0]              h_q
);
    localparam integer NB = MLEN / BLEN;
    localparam integer NBW = (NB > 1) ? $clog2(NB) : 1;
    localparam integer HDW = (HEADS > 1) ? $clog2(HEADS) : 1;
    localparam integer BLW = (BLEN > 1) ? $clog2(BLEN) : 1;
    localparam integer WW = BLEN * 32;                       // a bank's word

    // The host's entry: head, row, block, lane.
    wire [HDW-1:0] hh = HDW'(32'(h_addr) / (MLEN * MLEN));
    wire [MLW-1:0] hi = MLW'(32'(h_addr) / MLEN);
    wire [NBW-1:0] hb = NBW'((32'(h_addr) % MLEN) / BLEN);
    wire [BLW-1:0] hl = BLW'(32'(h_addr) % BLEN);
    wire [HDW-1:0] oh = HDW'(32'(o_row) / MLEN);
    wire [NBW-1:0] sb = NBW'(32'(s_j0) / BLEN);
    wire [NBW-1:0] wb = NBW'(32'(w_j0) / BLEN);
    // The row every reading bank reads this cycle.
    wire [MLW-1:0] rd_row = s_re ? s_row : o_re ? MLW'(o_row) : hi;

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
                plena_sram #(.DEPTH(MLEN), .N(2 * BLEN), .AW(MLW)) u_bank (
                    .rclk(rclk), .wclk(wclk), .re(re), .raddr(rd_row),
                    .rdata(q[(gh*NB + gb)*WW +: WW]),
                    .we(we && wb == NBW'(gb)), .wmask({2 * BLEN{1'b1}}), .waddr(w_row),
                    .wdata(wd));
            end
        end
    endgenerate

    // Valid bits: block b of row i at i*NB + b.
    reg [MLEN*NB-1:0] vld;
    always @(posedge wclk)
        if (clear) vld <= {MLEN*NB{1'b0}};
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

    genvar go;
    generate
        for (gh = 0; gh < HEADS; gh = gh + 1) begin : g_sq
            for (gl = 0; gl < BLEN; gl = gl + 1) begin : g_lane
                assign s_q[32*(gl*HEADS + gh) +: 32] =
                    v_q[b_q] ? q[(gh*NB + 32'(b_q))*WW + 32*gl +: 32] : 32'd0;
            end
        end
        for (go = 0; go < NB; go = go + 1) begin : g_oq
            assign o_q[WW*go +: WW] = v_q[go] ? q[(32'(hd_q)*NB + go)*WW +: WW] : {WW{1'b0}};
        end
    endgenerate
    assign h_q = v_q[b_q] ? q[(32'(hd_q)*NB + 32'(b_q))*WW + 32*32'(l_q) +: 32] : 32'd0;
endmodule
