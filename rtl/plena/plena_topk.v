// V_TOPK: select the k largest of n logits (n = 32, k = 4 with rmask = 0; n = 128, k = 8
// with rmask = 1), descending, ties to the smaller index, and their softmax weights by
// the numerics of the manual: m = the largest, e_j = exp(x_j - m) (an fp32 subtraction,
// then exp), s = the halving-tree sum of the e_j, r = 1/s, w_j = e_j * r.
//
// A small sequential engine on its own operand clock, one step per cycle of the
// instruction (the core has checked the logits for NaN at issue):
//   step 0          start (the core captured the logits in the middle of the issue cycle)
//   step 1 .. k     pick the largest key not yet taken (one argmax over n per step)
//   step 2 .. k+1   e_(s-2) = exp(x_(s-2) - x_0), one behind the selection
//   step k+2        s = tree sum of e (k < KMAX: zero entries add exactly)
//   step k+3        r = 1 / s
//   step k+4        w_j = e_j * r
// The results hold from step k+4 until the next V_TOPK; the core writes them at the end
// of the instruction (timing class V_TOPK, which must leave room: checked below).
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
    output wire [KMAX*32-1:0]  indices
);
    `include "plena_isa.vh"
    localparam integer NMAX = 128, KMAX = 8;
    localparam integer LATENCY = KMAX + 5;     // steps 0 .. KMAX+4
    initial if (T_V_TOPK < LATENCY)
        $fatal(1, "plena_topk needs %0d cycles for V_TOPK; timing class V_TOPK gives %0d (VLEN too small)",
               LATENCY, T_V_TOPK);

    wire tclk;
    plena_clkgate u_gate (.clk(clk), .en(active), .gclk(tclk));

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
    reg [KMAX*16-1:0] sel_val;    // their values
    reg [KMAX*32-1:0] e_q;        // exp(x_j - m), zero beyond k
    reg [31:0]        s_q, r_q;
    reg [KMAX*32-1:0] w_q;
    reg               big_q;

    // Argmax over the logits not yet taken: ties to the smaller index.
    reg [31:0] best;
    reg [15:0] best_key;
    reg        found;
    integer j;
    always @* begin
        best = 32'd0;
        best_key = 16'd0;
        found = 1'b0;
        for (j = 0; j < NMAX; j = j + 1)
            if ((big_q || j < 32) && !taken[j] &&
                (!found || key_of(logits[16*j +: 16]) > best_key)) begin
                best = j;
                best_key = key_of(logits[16*j +: 16]);
                found = 1'b1;
            end
    end

    // One exp per step, behind the selection: entry e_at in step e_at + 2. The index is
    // the engine's own register, so the subtraction and exp evaluate only on its clock.
    reg  [2:0]  e_at;
    wire [15:0] x_pick = sel_val[16*e_at +: 16];
    wire [31:0] d, e, s, r;
    fp32_add   u_sub (.a({x_pick, 16'h0000}), .b({sel_val[15:0], 16'h0000}), .sub(1'b1), .y(d));
    fp32_exp   u_exp (.a(d), .y(e));
    fp32_tree_sum #(.L(KMAX)) u_sum (.x(e_q), .y(s));
    fp32_recip u_rcp (.a(s_q), .y(r));
    wire [KMAX*32-1:0] w;
    genvar g;
    generate
        for (g = 0; g < KMAX; g = g + 1) begin : g_w
            fp32_mul u_mul (.a(e_q[32*g +: 32]), .b(r_q), .y(w[32*g +: 32]));
        end
    endgenerate

    wire [31:0] k = big_q ? 32'd8 : 32'd4;
    always @(posedge tclk) begin
        if (step == 32'd0) begin
            big_q <= big;
            taken <= {NMAX{1'b0}};
            e_q <= {KMAX*32{1'b0}};
            e_at <= 3'd0;
        end else begin
            if (step <= k) begin
                taken[best] <= 1'b1;
                sel_idx[32*(step - 1) +: 32] <= best;
                sel_val[16*(step - 1) +: 16] <= logits[16*best +: 16];
            end
            if (step >= 32'd2 && step <= k + 32'd1) begin
                e_q[32*e_at +: 32] <= e;
                e_at <= e_at + 3'd1;
            end
            if (step == k + 32'd2) s_q <= s;
            if (step == k + 32'd3) r_q <= r;
            if (step == k + 32'd4) w_q <= w;
        end
    end

    assign weights = w_q;
    assign indices = sel_idx;
endmodule
