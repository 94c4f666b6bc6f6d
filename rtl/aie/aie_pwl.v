// aie_pwl: the function unit (VPWL.EXP, VPWL.RCP, VPWL.RSQRT on the 32 fp32 lanes of an
// accumulator), pipelined over PWL_LATENCY (LAT) cycles, as simulators/aie/numerics.py's
// pwl_exp, pwl_rcp and pwl_rsqrt define each lane:
//
//   cycle t     issue: the operation and the accumulator latched at the issue edge
//               (a gated clock that ticks only then)
//   cycle t+1   front end: the table index j, the fraction u of its segment, the power
//               of two the result is scaled by, and the special results
//   cycle t+2   the table (aie_pwl.vh, generated) and y = OFF[j] + SLOPE[j] * u
//   cycle t+3   y times the power of two (one rounding, so subnormal results round as
//               ldexp does), sign and specials
//   then LAT-5 cycles of delay; the last stage is written at the edge ending cycle
//   t+LAT-1, so the result is readable at t+LAT.
//
// kill[k]: a younger load writes accumulator k in this cycle; it lands before an
// in-flight result for k, which is dropped (as in aie_reduce).
module aie_pwl #(
    parameter integer LAT = 6
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          issue,
    input  wire [1:0]    fn,          // 0 EXP, 1 RCP, 2 RSQRT
    input  wire [2:0]    d,
    input  wire [1023:0] a,
    input  wire [7:0]    kill,
    output wire          out_v,
    output wire [2:0]    out_d,
    output wire [1023:0] out_y,
    output wire          busy
);
    localparam integer NQ = LAT - 1;                  // stages 1 .. LAT-1; stage NQ writes

    wire         gclk;
    icg u_gate (.clk(clk), .en(issue), .gclk(gclk));
    reg          s1_v;
    reg  [1:0]   s1_fn;
    reg  [2:0]   s1_d;
    reg  [1023:0] s1_a;
    always @(posedge gclk) begin s1_fn <= fn; s1_d <= d; s1_a <= a; end

    always @(posedge clk) s1_v <= rst ? 1'b0 : issue;

    // The stages after the first shift only while an entry is in them (or at reset): an
    // edge with none leaves every stage as it was. Behind this gate the front end, the
    // table, the interpolation and the scale (fp32 units on all 32 lanes) are evaluated
    // by Verilator only in the cycles an operation passes, not at every clock edge.
    wire         lclk;
    icg u_gate_l (.clk(clk), .en(rst || busy), .gclk(lclk));

    // per lane: front end (stage 1 -> 2), interpolation (2 -> 3), scale (3 -> 4); each
    // stage a line of one (a younger load of d drops the entry), then the delay
    wire [32*8-1:0]  f_j;
    wire [32*32-1:0] f_u, f_k;
    wire [32*2-1:0]  f_sp;
    wire [31:0]      f_sg;
    wire             q2_v, q3_v;
    wire [2:0]       q2_d, q3_d;
    wire [32*8-1:0]  q2_j;
    wire [32*32-1:0] q2_u, q2_k;
    wire [32*2-1:0]  q2_sp;
    wire [31:0]      q2_sg;
    wire [1:0]       q2_fn;
    wire [32*32-1:0] i_y;
    wire [32*32-1:0] q3_y, q3_k;
    wire [32*2-1:0]  q3_sp;
    wire [31:0]      q3_sg;
    wire [32*32-1:0] o_y;
    localparam integer W2 = 2 + 32*8 + 2*32*32 + 32*2 + 32, W3 = 2*32*32 + 32*2 + 32;
    delay_line #(.N(1), .TW(3), .W(W2)) u_q2 (
        .clk(lclk), .rst(rst), .in_v(s1_v), .in_t(s1_d), .in_p({s1_fn, f_j, f_u, f_k, f_sp, f_sg}),
        .kill(kill), .v(q2_v), .out_t(q2_d), .out_p({q2_fn, q2_j, q2_u, q2_k, q2_sp, q2_sg}),
        .pre_v(), .pre_t(), .pre_p());
    delay_line #(.N(1), .TW(3), .W(W3)) u_q3 (
        .clk(lclk), .rst(rst), .in_v(q2_v), .in_t(q2_d), .in_p({i_y, q2_k, q2_sp, q2_sg}),
        .kill(kill), .v(q3_v), .out_t(q3_d), .out_p({q3_y, q3_k, q3_sp, q3_sg}),
        .pre_v(), .pre_t(), .pre_p());
    wire [NQ:4] q_v;
    delay_line #(.N(NQ - 3), .TW(3), .W(1024)) u_line (
        .clk(lclk), .rst(rst), .in_v(q3_v), .in_t(q3_d), .in_p(o_y),
        .kill(kill), .v(q_v), .out_t(out_d), .out_p(out_y),
        .pre_v(), .pre_t(), .pre_p());
    assign out_v = q_v[NQ];
    assign busy = s1_v || q2_v || q3_v || (|q_v);

    genvar gl;
    generate
        for (gl = 0; gl < 32; gl = gl + 1) begin : g_lane
            aie_pwl_front u_front (.x(s1_a[32*gl +: 32]), .fn(s1_fn), .j(f_j[8*gl +: 8]),
                                   .u(f_u[32*gl +: 32]), .k(f_k[32*gl +: 32]),
                                   .special(f_sp[2*gl +: 2]), .sign(f_sg[gl]));
            wire [63:0] ent = pwl_entry(q2_fn, q2_j[8*gl +: 8]);
            wire [31:0] prod;
            fp32_mul u_mul (.a(ent[31:0]), .b(q2_u[32*gl +: 32]), .y(prod));
            fp32_add u_add (.a(ent[63:32]), .b(prod), .sub(1'b0), .y(i_y[32*gl +: 32]));
            wire [31:0] scaled;
            fp32_mul u_scale (.a(q3_y[32*gl +: 32]), .b(q3_k[32*gl +: 32]), .y(scaled));
            wire [1:0] sp = q3_sp[2*gl +: 2];
            wire sg = q3_sg[gl];
            assign o_y[32*gl +: 32] = (sp == 2'd1) ? 32'h7FC0_0000
                                    : (sp == 2'd2) ? {sg, 31'h7F80_0000}
                                    : (sp == 2'd3) ? {sg, 31'd0}
                                    : {scaled[31] | sg, scaled[30:0]};
        end
    endgenerate

`include "aie_pwl.vh"
endmodule

// One lane's front end. j: the table entry; u: the fraction of its segment (fp32,
// exact); k: the power of two the interpolated value is scaled by (fp32 bits);
// special: 0 none, 1 NaN, 2 infinity, 3 zero (2, 3 with `sign`).
//   EXP:   t = fp32(x * LOG2E) and its range rules (fp32_exp_range); n = floor(t);
//          f = fp32(t - n) in [0, 1]; fs = f * 128; j = min(floor(fs), 127), u = fs - j;
//          k = 2^n.
//   RCP:   x = +-m 2^e: j = the top 7 fraction bits, u = the other 16 over 2^16, k = 2^-e
//          (2^-127 as a subnormal); zero/subnormal -> +-inf, +-inf -> +-0.
//   RSQRT: odd = e & 1: j = odd * 128 + the top 7 fraction bits, u as RCP,
//          k = 2^(-(e - odd) / 2); +-0/subnormal -> +-inf, +inf -> +0, other negatives NaN.
// Combinational.
module aie_pwl_front (
    input  wire [31:0] x,
    input  wire [1:0]  fn,
    output reg  [7:0]  j,
    output reg  [31:0] u,
    output reg  [31:0] k,
    output reg  [1:0]  special,
    output reg         sign
);
    // EXP
    wire [31:0] t, n_f, f, fs, u_exp;
    wire [1:0]  e_sp;
    wire [7:0]  n_field;
    fp32_mul u_t (.a(x), .b(32'h3FB8_AA3B), .y(t));          // LOG2E, as fp32_exp_range
    fp32_exp_range u_range (.a(x), .special(e_sp), .n_f(n_f), .n_field(n_field));
    fp32_add u_f (.a(t), .b(n_f), .sub(1'b1), .y(f));
    fp32_mul u_fs (.a(f), .b(32'h4300_0000), .y(fs));        // * 128, exact
    // floor(fs) for fs in [0, 128]
    wire [7:0]  fe = fs[30:23];
    wire [23:0] fm = {1'b1, fs[22:0]};
    wire [7:0]  jraw = (fe < 8'd127) ? 8'd0 : 8'(fm >> (8'd150 - fe));
    wire [7:0]  jexp = (jraw > 8'd127) ? 8'd127 : jraw;
    wire [31:0] jexp_f;
    aie_small_to_fp32 u_jf (.v(jexp), .y(jexp_f));
    fp32_add u_u (.a(fs), .b(jexp_f), .sub(1'b1), .y(u_exp));

    // RCP and RSQRT: the fields
    wire [7:0]  fld = x[30:23];
    wire [22:0] frac = x[22:0];
    wire        tiny = (fld == 8'd0);
    wire        infn = (fld == 8'hFF);
    wire        nan = infn && (frac != 23'd0);
    // u = frac[15:0] / 2^16: normalise the leading one
    reg  [31:0] u_lo, sh;
    integer p, b;
    always @* begin
        p = -1;
        for (b = 0; b < 16; b = b + 1) if (frac[b]) p = b;
        sh = {16'd0, frac[15:0]} << (23 - p);           // the leading one to bit 23
        if (p < 0) u_lo = 32'd0;
        else u_lo = {1'b0, 8'(111 + p), sh[22:0]};
    end
    // RSQRT: odd = e & 1 (e = fld - 127, so odd when fld is even); the scale exponent
    // -(e - odd) / 2 = (127 + odd - fld) / 2, biased by 127
    wire        odd = !fld[0];
    integer     rs_i, rs_b;
    always @* begin
        rs_i = 127 + 32'(odd) - 32'(fld);              // even
        rs_b = 127 + (rs_i >>> 1);
    end

    always @* begin
        j = 8'd0; u = u_lo; k = 32'd0; special = 2'd0; sign = 1'b0;
        case (fn)
            2'd0: begin
                j = jexp; u = u_exp; k = {1'b0, n_field, 23'd0}; special = e_sp;
            end
            2'd1: begin
                j = {1'b0, frac[22:16]};
                // 2^-e = 2^(127 - fld): biased exponent 254 - fld, or 2^-127 for fld = 254
                k = (fld == 8'd254) ? 32'h0040_0000 : {1'b0, 8'd254 - fld, 23'd0};
                sign = x[31];
                special = nan ? 2'd1 : tiny ? 2'd2 : infn ? 2'd3 : 2'd0;
            end
            default: begin
                j = {odd, frac[22:16]};
                k = {1'b0, rs_b[7:0], 23'd0};
                sign = x[31];
                special = (nan || (x[31] && !tiny)) ? 2'd1 : tiny ? 2'd2 : infn ? 2'd3 : 2'd0;
            end
        endcase
    end
endmodule

// A small unsigned integer (0..255) as an exact fp32 value.
module aie_small_to_fp32 (
    input  wire [7:0]  v,
    output reg  [31:0] y
);
    integer p, b;
    reg [31:0] sh;
    always @* begin
        p = -1;
        for (b = 0; b < 8; b = b + 1) if (v[b]) p = b;
        sh = {24'd0, v} << (23 - p);                    // the leading one to bit 23
        if (p < 0) y = 32'd0;
        else y = {1'b0, 8'(127 + p), sh[22:0]};
    end
endmodule
