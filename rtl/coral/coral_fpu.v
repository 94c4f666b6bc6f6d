// coral_fpu: the F extension's execution unit of coral_core. One instruction at a time;
// `start` marks its first EX cycle. Latencies (the EX cycles the core holds it) are the
// timing classes: FMISC 1 (sign injection, min/max, compares, classify, moves:
// combinational from the operands), FADD/FMUL/FCVT 2 (operands registered, then the
// fused multiply-add or a conversion), FMA 3 (operands registered, the FMA's result
// registered, then written), FDIV/FSQRT 12 (fp32_divsqrt: 9 clocks of 3 restoring steps,
// then the result held). Arithmetic: rtl/common's fp32_fma, fp32_divsqrt; coral_fcvt;
// min/max: coral_fminmax (shared with the vector lanes).
// The operand registers, the FMA's second stage and the divider run on gated clocks
// (icg): they toggle only in the cycles they work.
module coral_fpu (
    input  wire        clk,
    input  wire        start,
    input  wire        fma_stage2,   // the second EX cycle of an fma instruction
    input  wire [3:0]  kind,
    input  wire [1:0]  neg,          // fma: {negate product, negate addend}
    input  wire [2:0]  f3,           // sign injection, min/max, compare selection
    input  wire        unsigned_int, // fcvt.wu.s, fcvt.s.wu
    input  wire [2:0]  rm,           // resolved rounding mode
    input  wire [31:0] a,            // f[rs1]
    input  wire [31:0] b,            // f[rs2]
    input  wire [31:0] c,            // f[rs3]
    input  wire [31:0] x,            // x[rs1]
    output reg  [31:0] result,
    output reg  [4:0]  flags
);
    localparam [3:0] K_ADD = 4'd0, K_SUB = 4'd1, K_MUL = 4'd2, K_FMA = 4'd3, K_DIV = 4'd4,
                     K_SQRT = 4'd5, K_SGNJ = 4'd6, K_MINMAX = 4'd7, K_CVT_WS = 4'd8,
                     K_CVT_SW = 4'd9, K_MVXW = 4'd10, K_MVWX = 4'd11, K_CMP = 4'd12,
                     K_CLASS = 4'd13;
    `include "coral_isa.vh"

    // --- operands registered in the first cycle (FADD, FMUL, FMA, FCVT)
    wire op_clk, fma_clk, div_clk, div_busy;
    icg u_opgate (.clk(clk), .en(start && kind != K_DIV && kind != K_SQRT), .gclk(op_clk));
    icg u_fmagate (.clk(clk), .en(fma_stage2), .gclk(fma_clk));
    icg u_divgate (.clk(clk), .en((start && (kind == K_DIV || kind == K_SQRT)) || div_busy),
                             .gclk(div_clk));
    reg [3:0]  q_kind;
    reg [1:0]  q_neg;
    reg        q_uns;
    reg [2:0]  q_rm;
    reg [31:0] q_a, q_b, q_c, q_x;
    always @(posedge op_clk) begin
            q_kind <= kind;
            q_neg <= neg;
            q_uns <= unsigned_int;
            q_rm <= rm;
            q_a <= a;
            q_b <= b;
            q_c <= c;
            q_x <= x;
        end

    // --- fused multiply-add: fadd/fsub as a * 1.0 +- c, fmul as a * b alone
    wire        is_addsub = q_kind == K_ADD || q_kind == K_SUB;
    wire [31:0] fma_y;
    wire [4:0]  fma_f;
    fp32_fma u_fma (.a(q_a), .b(is_addsub ? 32'h3F80_0000 : q_b), .c(is_addsub ? q_b : q_c),
                    .rm(q_rm), .neg_prod(q_kind == K_FMA && q_neg[1]),
                    .neg_add(q_kind == K_SUB || (q_kind == K_FMA && q_neg[0])),
                    .mul_only(q_kind == K_MUL), .y(fma_y), .flags(fma_f));
    reg [31:0] fma_r;
    reg [4:0]  fma_rf;
    always @(posedge fma_clk) begin   // FMA's second stage
        fma_r <= fma_y;
        fma_rf <= fma_f;
    end

    // --- divide and square root
    wire [31:0] div_y;
    wire [4:0]  div_f;
    wire        div_done;
    wire        _unused = div_done;
    fp32_divsqrt #(.STEPS(3)) u_div (
        .clk(div_clk), .start(start && (kind == K_DIV || kind == K_SQRT)), .sqrt(kind == K_SQRT),
        .a(a), .b(b), .rm(rm), .busy(div_busy), .done(div_done), .y(div_y), .flags(div_f));

    // --- conversions (coral_fcvt), from the registered operands
    wire [31:0] cvt_y;
    wire [4:0]  cvt_f;
    coral_fcvt u_cvt (.a(q_kind == K_CVT_WS ? q_a : q_x), .to_int(q_kind == K_CVT_WS), .uns(q_uns),
                      .rm(q_rm), .y(cvt_y), .flags(cvt_f));

    // --- single-cycle operations, from the operands as they are
    wire a_nan = a[30:23] == 8'hFF && a[22:0] != 23'd0, b_nan = b[30:23] == 8'hFF && b[22:0] != 23'd0;
    wire a_snan = a_nan && !a[22], b_snan = b_nan && !b[22];
    wire both_zero = a[30:0] == 31'd0 && b[30:0] == 31'd0;
    wire eq = a == b || both_zero;
    wire lt = !eq && (a[31] != b[31] ? a[31] : (a[31] ? a[30:0] > b[30:0] : a[30:0] < b[30:0]));
    wire [31:0] mm_y;
    wire        mm_nv;
    coral_fminmax u_minmax (.a(a), .b(b), .max(f3[0]), .y(mm_y), .nv(mm_nv));
    reg [31:0] misc;
    reg [4:0]  misc_f;
    always @(*) begin
        misc = 32'd0;
        misc_f = 5'd0;
        case (kind)
            K_SGNJ:
                misc = f3 == F3_FSGNJ_S ? {b[31], a[30:0]} : f3 == F3_FSGNJN_S ? {!b[31], a[30:0]} :
                       {a[31] ^ b[31], a[30:0]};
            K_MINMAX: begin                               // f3[0]: fmax (F3_FMAX_S), else fmin
                misc = mm_y;
                misc_f = {mm_nv, 4'd0};
            end
            K_CMP:
                if (a_nan || b_nan) misc_f = (f3 != F3_FEQ_S || a_snan || b_snan) ? 5'b10000 : 5'd0;
                else misc = {31'd0, f3 == F3_FEQ_S ? eq : f3 == F3_FLT_S ? lt : lt || eq};     // else fle
            K_CLASS:
                if (a[30:0] == 31'h7F80_0000) misc = a[31] ? 32'd1 : 32'd128;
                else if (a_nan) misc = a[22] ? 32'd512 : 32'd256;
                else if (a[30:0] == 31'd0) misc = a[31] ? 32'd8 : 32'd16;
                else if (a[30:23] == 8'd0) misc = a[31] ? 32'd4 : 32'd32;
                else misc = a[31] ? 32'd2 : 32'd64;
            K_MVXW: misc = a;
            K_MVWX: misc = x;
            default: misc = 32'd0;
        endcase
    end

    always @(*)
        case (kind)
            K_ADD, K_SUB, K_MUL: begin result = fma_y; flags = fma_f; end
            K_FMA: begin result = fma_r; flags = fma_rf; end
            K_DIV, K_SQRT: begin result = div_y; flags = div_f; end
            K_CVT_WS, K_CVT_SW: begin result = cvt_y; flags = cvt_f; end
            default: begin result = misc; flags = misc_f; end
        endcase
endmodule
