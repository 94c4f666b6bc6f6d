// The scalar unit's pipelines (plena_exp_pipe, plena_recip_pipe, plena_sqrt_pipe) against
// rtl/common's combinational fp32_exp, fp32_recip and fp32_sqrt, a new operand every
// cycle: each pipeline's output in cycle t + 3 must equal its unit's result for the
// operand of cycle t. Operands: random words, and words with the exponent field drawn
// from the edges (0, 1, 0x7F-0x86, 0xFE, 0xFF) so zeros, subnormals, the exp range
// limits, infinities and NaNs come up often. Prints "checked N mismatches M".
module tb_fpipe;
    reg clk = 1'b0;
    reg [31:0] a, d1, d2, d3;
    wire [31:0] pe, pr, ps, ce, cr, cs;
    plena_exp_pipe   u_pe (.clk2(clk), .clk3(clk), .clk4(clk), .a(a), .y(pe));
    plena_recip_pipe u_pr (.clk2(clk), .clk3(clk), .clk4(clk), .a(a), .y(pr));
    plena_sqrt_pipe  u_ps (.clk(clk), .a(a), .y(ps));
    fp32_exp   u_ce (.a(d3), .y(ce));
    fp32_recip u_cr (.a(d3), .y(cr));
    fp32_sqrt  u_cs (.a(d3), .y(cs));

    integer n, t, bad, nvec;
    reg [31:0] r;
    reg [7:0] edges [0:11];
    initial begin
        edges[0] = 8'h00; edges[1] = 8'h01; edges[2] = 8'h7F; edges[3] = 8'h80;
        edges[4] = 8'h83; edges[5] = 8'h84; edges[6] = 8'h85; edges[7] = 8'h86;
        edges[8] = 8'hFE; edges[9] = 8'hFF; edges[10] = 8'h3F; edges[11] = 8'hC0;
        if (!$value$plusargs("n=%d", nvec)) nvec = 100000;
        bad = 0;
        n = 0;
        a = 32'd0; d1 = 32'd0; d2 = 32'd0; d3 = 32'd0;
        for (t = 0; t < nvec + 3; t = t + 1) begin
            r = $urandom;
            if (t % 2 == 1) r[30:23] = edges[$urandom % 12];
            if (t % 16 == 5) r[22:0] = (t % 32 == 5) ? 23'd0 : 23'd1;
            a = r;
            #1 clk = 1'b1;            // the pipelines take `a`; d3 follows three edges behind
            d3 = d2; d2 = d1; d1 = a;
            #1 clk = 1'b0;
            if (t >= 3) begin
                n = n + 1;
                if (pe !== ce || pr !== cr || ps !== cs) begin
                    if (bad < 5) $display("operand %h: exp %h/%h recip %h/%h sqrt %h/%h",
                                          d3, pe, ce, pr, cr, ps, cs);
                    bad = bad + 1;
                end
            end
        end
        $display("checked %0d mismatches %0d", n, bad);
        $finish;
    end
endmodule
