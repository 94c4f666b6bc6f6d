// plena_smem: one of plena's scalar memories (FP_MEM, INT_MEM): DEPTH 32-bit words in
// NB plena_sram banks by word (word w in bank w mod NB, at bank word w / NB), NB a power
// of two of at least max(NR, NW), so a port's consecutive words fall in distinct banks.
// One read port and one write port, each used at most once per cycle:
//   R  NR consecutive words from r_addr (S_MAP_V_FP's chunk; a load and the host read
//      one, word 0), registered: the data after the edge, held until R reads again
//   W  up to NW consecutive words from w_addr (V_TOPK's weights or indices; a store and
//      the host write one), where w_en's bit i writes word w_addr + i
// A read and a write of one word at one edge return the old word (the macro's); the
// core never does both (see plena_core: a load reads at the edge it commits, a store
// writes at the edge it commits, one instruction at a time).
module plena_smem #(
    parameter integer DEPTH = 256,
    parameter integer NR = 1,
    parameter integer NW = 8,
    parameter integer NBW = $clog2((NR > NW) ? NR : NW)
) (
    input  wire             clk,
    input  wire             r_en,
    input  wire [31:0]      r_addr,     // in range whenever the core's checks pass
    output wire [NR*32-1:0] r_q,        // word r_addr + i at [i*32 +: 32]
    input  wire [NW-1:0]    w_en,
    input  wire [31:0]      w_addr,
    input  wire [NW*32-1:0] w_data,
    input  wire             w_open      // the host may write (the core is idle)
);
    localparam integer NB = 1 << NBW;
    localparam integer BW = (NBW > 0) ? NBW : 1;
    localparam integer BDEPTH = (DEPTH + NB - 1) / NB;
    localparam integer AW = (BDEPTH > 1) ? $clog2(BDEPTH) : 1;

    function automatic [BW-1:0] bank_of(input [31:0] a);
        bank_of = BW'(a % NB);
    endfunction
    function automatic [AW-1:0] word_of(input [31:0] a);
        word_of = AW'(a / NB);
    endfunction

    wire [NB*32-1:0] q;                // bank n's read register at [n*32 +: 32]
    // The read clock ticks only when R reads (its registers, and what they feed, stay
    // still otherwise); the write clock when W writes, and throughout while the core is
    // idle (w_open: the host's writes come from outside, and the gate's enable must not
    // wait on them). One write gate for all banks (each bank's `we` picks its words):
    // words are narrow and writes rare (stores, V_TOPK), so per-bank gates would save
    // little power, and under Verilator each gated clock is a trigger evaluated at every
    // edge (FP_MEM has 32 banks at the default configuration).
    wire rclk, wclk;
    icg u_rgate (.clk(clk), .en(r_en), .gclk(rclk));
    icg u_wgate (.clk(clk), .en((|w_en) || w_open), .gclk(wclk));
    genvar gb;
    generate
        for (gb = 0; gb < NB; gb = gb + 1) begin : g_bank
            // Which of R's and W's words fall in this bank: offset (gb - addr) mod NB.
            wire [BW-1:0] r_off = BW'((32'(gb) - r_addr) % NB);
            wire [BW-1:0] w_off = BW'((32'(gb) - w_addr) % NB);
            wire r_here = 32'(r_off) < 32'(NR);
            wire w_here = 32'(w_off) < 32'(NW) && w_en[32'(w_off) % NW];
            plena_sram #(.DEPTH(BDEPTH), .N(2), .AW(AW)) u_bank (
                .rclk(rclk), .wclk(wclk), .re(r_en && r_here),
                .raddr(word_of(r_addr + 32'(r_off))), .rdata(q[gb*32 +: 32]),
                .we(w_here), .wmask(2'b11), .waddr(word_of(w_addr + 32'(w_off))),
                .wdata(w_data[32*(32'(w_off) % NW) +: 32]));
        end
    endgenerate

    // The bank of the first word R read last: word i is in bank (r_bk + i) mod NB.
    reg [BW-1:0] r_bk;
    always @(posedge rclk) r_bk <= bank_of(r_addr);
    genvar gi;
    generate
        for (gi = 0; gi < NR; gi = gi + 1) begin : g_rword
            wire [BW-1:0] bk = BW'((32'(r_bk) + gi) % NB);
            assign r_q[gi*32 +: 32] = q[32'(bk)*32 +: 32];
        end
    endgenerate
endmodule
