// V_TOPK: select the k largest of n logits (n = 32, k = 4 with rmask = 0; n = 128, k = 8
// with rmask = 1), descending, ties to the smaller index, and their softmax weights by
// the numerics of the manual: m = the largest, e_j = exp(x_j - m) (an fp32 subtraction,
// then exp), s = the halving-tree sum of the e_j, r = 1/s, w_j = e_j * r.
//
// A small sequential engine on one clock edge (its registers behind an integrated clock
// gate, open while the instruction is at issue or in flight), one step per cycle; the
// core captures the logits at the end of the issue cycle (step 0) and has checked them
// for NaN then. At the end of step
//   0            the engine starts (nothing taken, no weights)
//   s = 1 .. k   the s-th largest key not yet taken is chosen (one argmax over n) and
//                d = x - m computed (m the first chosen: d = 0 - exactly x - x - at s = 1)
//   s + 4        e = exp(d) leaves plena_exp_pipe (four stages, d in the first at s + 1)
//   k + 5        s = tree sum of e (k < KMAX: zero entries add exactly)
//   k + 9        r = 1 / s leaves plena_recip_pipe (four stages from k + 6)
// and w_j = e_j * r is combinational from step k + 10 on. The results hold until the next
// V_TOPK; the engine raises `done` in step k + TOPK_EXTRA - 1 (plena_units.vh: 14 for 4
// of 32, 18 for 8 of 128), whose edge commits them.
module plena_topk #(
    /* verilator lint_off UNUSEDPARAM */
    // Waiver: the whole configuration, as every plena module (see plena_check).
    `include "plena_params.vh"
    /* verilator lint_on UNUSEDPARAM */
) (
    input  wire                clk,
    input  wire                active,
    input  wire [31:0]         step,
    input  wire                big,          // rmask: 0 -> 4 of 32, 1 -> 8 of 128
    input  wire [NMAX*16-1:0]  logits,       // logit j at bits 16j, held for the instruction
    output wire [KMAX*32-1:0]  weights,
    output wire [KMAX*32-1:0]  indices,
    output wire                done
);
    `include "plena_units.vh"
    localparam integer NMAX = 128, KMAX = 8;
    initial if (TOPK_EXTRA != 11)
        $fatal(1, "plena_topk's weights are ready k + 11 cycles after issue; TOPK_EXTRA is %0d",
               TOPK_EXTRA);

    wire tclk;
    icg u_gate (.clk(clk), .en(active), .gclk(tclk));

    // Order key of a bf16 value: larger value, larger unsigned key; -0 and +0 equal.
    function automatic [15:0] key_of(input [15:0] x);
        reg [15:0] z;
        begin
            z = (x == 16'h8000) ? 16'h0000 : x;
            key_of = z[15] ? ~z : (z | 16'h8000);
        end
    endfunction

    reg [NMAX-1:0]    taken;
    reg [KMAX*32-1:0] sel_idx;    // chosen indices, in order
    reg [15:0]        m_q;        // the first chosen value (the largest)
    reg [31:0]        d_q;        // x - m of the latest chosen
    reg [KMAX*32-1:0] e_q;        // exp(x_j - m), zero beyond k
    reg [31:0]        s_q, r_q;
    reg               big_q;

    // Argmax over the logits not yet taken: the smallest index among the largest keys
    // (ties to the smaller index), index 0 when none may be taken. A balanced tree of
    // compare-and-selects, log2(NMAX) = 7 deep: a node keeps its left (lower-index)
    // child unless only the right one is valid or the right one's key is strictly
    // larger, so by induction each node holds the smallest index of the largest key
    // in its range (the leftmost leaf, index 0, when none of them is valid). That is
    // the choice of a scan from index 0 that replaces its best only on a strictly
    // larger key. A node carries the logit as read with its key (-0 and +0 have one
    // key but are passed on as read), so x_best needs no mux after the tree.
    // Written as a loop over the levels, each node in place at the lower child's half
    // index (node j of a level from nodes 2j and 2j + 1 of the one before, j ascending,
    // so nothing is overwritten before it is read): Icarus evaluates it once per change
    // of its inputs (a net per node was about a second per change there).
    localparam integer TLV = $clog2(NMAX);
    reg [NMAX-1:0]     t_ok;
    reg [16*NMAX-1:0]  t_key, t_x;
    reg [TLV*NMAX-1:0] t_idx;
    reg                pick_r;
    integer j, lv;
    always @* begin
        for (j = 0; j < NMAX; j = j + 1) begin
            t_ok[j] = (big_q || j < 32) && !taken[j];
            t_key[16*j +: 16] = key_of(logits[16*j +: 16]);
            t_x[16*j +: 16] = logits[16*j +: 16];
            t_idx[TLV*j +: TLV] = TLV'(j);
        end
        for (lv = 1; lv <= TLV; lv = lv + 1)
            for (j = 0; j < (NMAX >> lv); j = j + 1) begin
                pick_r = t_ok[2*j+1] && (!t_ok[2*j] || t_key[16*(2*j+1) +: 16] > t_key[16*(2*j) +: 16]);
                t_ok[j] = t_ok[2*j] || t_ok[2*j+1];
                t_key[16*j +: 16] = pick_r ? t_key[16*(2*j+1) +: 16] : t_key[16*(2*j) +: 16];
                t_x[16*j +: 16] = pick_r ? t_x[16*(2*j+1) +: 16] : t_x[16*(2*j) +: 16];
                t_idx[TLV*j +: TLV] = pick_r ? t_idx[TLV*(2*j+1) +: TLV] : t_idx[TLV*(2*j) +: TLV];
            end
    end
    wire [31:0] best = 32'(t_idx[TLV-1:0]);
    wire [15:0] x_best = t_x[15:0];

    // `first`: step 1 (set at step 0's edge, the engine's clock running from then on).
    // A register of the engine rather than `step == 1`: `step` is the core's and changes
    // with every instruction, and the subtraction after this choice would change with it
    // (under Verilator: be evaluated at every clock edge); its result is taken (d_q) only
    // in steps 1 .. k, where the two agree.
    reg first;
    wire [15:0] m_now = first ? x_best : m_q;
    wire [31:0] d, e, s, r;
    fp32_add   u_sub (.a({x_best, 16'h0000}), .b({m_now, 16'h0000}), .sub(1'b1), .y(d));
    plena_exp_pipe   u_exp (.clk2(tclk), .clk3(tclk), .clk4(tclk), .a(d_q), .y(e));
    fp32_tree_sum #(.L(KMAX)) u_sum (.x(e_q), .y(s));
    plena_recip_pipe u_rcp (.clk2(tclk), .clk3(tclk), .clk4(tclk), .a(s_q), .y(r));
    wire [KMAX*32-1:0] w;
    genvar g;
    generate
        for (g = 0; g < KMAX; g = g + 1) begin : g_w
            fp32_mul u_mul (.a(e_q[32*g +: 32]), .b(r_q), .y(w[32*g +: 32]));
        end
    endgenerate

    wire [31:0] k = big_q ? 32'd8 : 32'd4;
    // big_q is this instruction's from step 1 on, and the last step is at least 14.
    localparam [31:0] LAST_4 = 4 + TOPK_EXTRA - 1, LAST_8 = KMAX + TOPK_EXTRA - 1;
    assign done = active && step == (big_q ? LAST_8 : LAST_4);
    always @(posedge tclk) begin
        first <= step == 32'd0;
        if (step == 32'd0) begin
            big_q <= big;
            taken <= {NMAX{1'b0}};
            e_q <= {KMAX*32{1'b0}};
        end else begin
            if (step <= k) begin
                taken[best] <= 1'b1;
                sel_idx[32*(step - 1) +: 32] <= best;
                d_q <= d;
                if (step == 32'd1) m_q <= x_best;
            end
            if (step >= 32'd5 && step <= k + 32'd4) e_q[32*(step - 32'd5) +: 32] <= e;
            if (step == k + 32'd5) s_q <= s;
            if (step == k + 32'd9) r_q <= r;
        end
    end

    assign weights = w;
    assign indices = sel_idx;
endmodule
