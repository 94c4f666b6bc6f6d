// aie_dma's address generator (one per channel): from the position of a transfer's next
// word (i0, i1, i2 in its run, plane; its run's and plane's external word and data-memory
// byte addresses) the next words in transfer order, up to BWW a cycle, across runs and
// planes, at most `rem` and only while their rows span at most four: bw of them, their
// external addresses (g_ext) and byte offsets in the window from g_min's row (g_off), the
// window's lowest and highest byte (g_min, g_max) and the position after them (n_*).
// Combinational; a module so that synthesis maps it once for the four channels
// (rtl/aie/README.md, Synthesis).
module aie_dma_agen #(
    parameter integer BWW = 8
) (
    input  wire [31:0] i0, i1, i2, e_run, e_pl, l_run, l_pl, rem,
    input  wire [31:0] t_n0, t_n1, t_s1, t_s2, t_ls1, t_ls2,
    output reg  [31:0] n_i0, n_i1, n_i2, n_er, n_ep, n_lr, n_lp, g_min, g_max,
    output reg  [7:0]  bw,
    output reg  [BWW*32-1:0] g_ext,
    output reg  [BWW*7-1:0]  g_off
);
    reg [31:0] g_e [0:BWW-1];
    reg [31:0] g_l [0:BWW-1];
    reg [31:0] c_min, c_max;
    reg        g_stop;
    integer gj;
    always @* begin
        n_i0 = i0; n_i1 = i1; n_i2 = i2; n_er = e_run; n_ep = e_pl; n_lr = l_run; n_lp = l_pl;
        g_min = l_run + 2 * i0; g_max = g_min;
        bw = 8'd0;
        g_stop = 1'b0;
        for (gj = 0; gj < BWW; gj = gj + 1) begin
            g_e[gj] = n_er + n_i0;
            g_l[gj] = n_lr + 2 * n_i0;
            c_min = (g_l[gj] < g_min) ? g_l[gj] : g_min;
            c_max = (g_l[gj] > g_max) ? g_l[gj] : g_max;
            if (32'(gj) >= rem || (c_max >> 5) - (c_min >> 5) > 32'd3) g_stop = 1'b1;
            if (!g_stop) begin
                g_min = c_min; g_max = c_max; bw = bw + 8'd1;
            end
            if (!g_stop) begin                 // (the words after the beat stay put)
                if (n_i0 + 1 < t_n0) n_i0 = n_i0 + 1;
                else if (n_i1 + 1 < t_n1) begin
                    n_i0 = 32'd0; n_i1 = n_i1 + 1; n_er = n_er + t_s1; n_lr = n_lr + t_ls1;
                end else begin
                    n_i0 = 32'd0; n_i1 = 32'd0; n_i2 = n_i2 + 1;
                    n_ep = n_ep + t_s2; n_er = n_ep; n_lp = n_lp + t_ls2; n_lr = n_lp;
                end
            end
        end
        for (gj = 0; gj < BWW; gj = gj + 1) begin
            g_ext[32*gj +: 32] = g_e[gj];
            g_off[7*gj +: 7] = 7'(g_l[gj] - {g_min[31:5], 5'd0});
        end
    end
endmodule
