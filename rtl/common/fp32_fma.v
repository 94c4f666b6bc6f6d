// fp32_fma: IEEE 754 binary32 fused multiply-add as RISC-V F defines it:
// y = (+-a * b) +- c rounded once, in any of the five rounding modes, with the flags
// NV DZ OF UF NX (tininess after rounding; DZ is always 0 here). `mul_only` gives a * b
// (c ignored, as fmul.s); fadd.s/fsub.s are a * 1.0 +- c. NaN results are the
// canonical NaN. Bit for bit as simulators/coral/fp32.py (fma, fmul, fadd).
//
// How: the exact product (48 bits) and the addend are placed in one 80-bit window
// (3 bits below the product for guard and sticky); an addend far above the product
// leaves the product as a sticky bit, one far below becomes sticky itself. The exact
// sum or difference (a sticky bit subtracts as "slightly more than its integer part")
// is rounded once by fp32_round_ieee. Combinational.
module fp32_fma (
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire [31:0] c,
    input  wire [2:0]  rm,          // 0 rne, 1 rtz, 2 rdn, 3 rup, 4 rmm
    input  wire        neg_prod,
    input  wire        neg_add,
    input  wire        mul_only,
    output reg  [31:0] y,
    output reg  [4:0]  flags        // {NV, DZ, OF, UF, NX}
);
    localparam [31:0] CANON = 32'h7FC0_0000;
    localparam [4:0] F_NV = 5'b10000;

    wire [7:0] ea = a[30:23], eb = b[30:23], ec = c[30:23];
    wire a_zero = a[30:0] == 31'd0, b_zero = b[30:0] == 31'd0;
    wire c_zero = mul_only || c[30:0] == 31'd0;
    wire a_inf = a[30:0] == 31'h7F80_0000, b_inf = b[30:0] == 31'h7F80_0000;
    wire c_inf = !mul_only && c[30:0] == 31'h7F80_0000;
    wire a_nan = ea == 8'hFF && a[22:0] != 23'd0, b_nan = eb == 8'hFF && b[22:0] != 23'd0;
    wire c_nan = !mul_only && ec == 8'hFF && c[22:0] != 23'd0;
    wire snan = (a_nan && !a[22]) || (b_nan && !b[22]) || (c_nan && !c[22]);
    wire inv_mul = (a_inf && b_zero) || (b_inf && a_zero);
    wire p_sign = a[31] ^ b[31] ^ neg_prod;
    wire c_sign = mul_only ? p_sign : c[31] ^ neg_add;
    wire sub = p_sign != c_sign;

    // significands with the hidden bit; exponents with subnormals at 1
    wire [23:0] ma = {ea != 8'd0, a[22:0]}, mb = {eb != 8'd0, b[22:0]};
    wire [23:0] mc = c_zero ? 24'd0 : {ec != 8'd0, c[22:0]};
    wire signed [11:0] xa = {4'd0, (ea == 8'd0) ? 8'd1 : ea};
    wire signed [11:0] xb = {4'd0, (eb == 8'd0) ? 8'd1 : eb};
    wire signed [11:0] xc = {4'd0, (ec == 8'd0) ? 8'd1 : ec};
    wire [47:0] prod = ma * mb;
    wire signed [11:0] ep = xa + xb - 12'sd300;          // weight of the product's bit 0
    wire signed [11:0] ecw = xc - 12'sd150;              // weight of the addend's bit 0
    wire signed [11:0] posw = ecw - ep + 12'sd3;         // the addend's bit 0 in the window

    reg [79:0] pw, aw, m;
    reg        pst, ast, st, sign, neg;
    reg signed [11:0] wbase;                             // weight of the window's bit 0
    reg [80:0] t;

    always @(*) begin
        // --- place product and addend in the window
        pst = 1'b0;
        ast = 1'b0;
        if (c_zero) begin                                // the product alone
            pw = {29'd0, prod, 3'd0};
            aw = 80'd0;
            wbase = ep - 12'sd3;
        end else if (a_zero || b_zero) begin             // the addend alone
            pw = 80'd0;
            aw = {56'd0, mc};
            wbase = ecw;
        end else if (posw > 12'sd54) begin               // addend far above: product is sticky
            pw = 80'd0;
            pst = prod != 48'd0;
            aw = {56'd0, mc} << 54;
            wbase = ecw - 12'sd54;
        end else if (posw >= 12'sd0) begin
            pw = {29'd0, prod, 3'd0};
            aw = {56'd0, mc} << posw;
            wbase = ep - 12'sd3;
        end else if (posw > -12'sd27) begin              // addend partly below the window
            pw = {29'd0, prod, 3'd0};
            aw = {56'd0, mc >> (-posw)};
            ast = (mc & ~(24'hFFFFFF << (-posw))) != 24'd0;
            wbase = ep - 12'sd3;
        end else begin                                   // addend entirely below: sticky
            pw = {29'd0, prod, 3'd0};
            aw = 80'd0;
            ast = mc != 24'd0;
            wbase = ep - 12'sd3;
        end
        st = pst || ast;
        // --- exact sum or difference: magnitude m (+ sticky), sign
        t = 81'd0;
        neg = 1'b0;
        if (!sub) begin
            m = pw + aw;
            sign = p_sign;
        end else begin
            t = {1'b0, pw} - {1'b0, aw} - {80'd0, ast};
            neg = t[80];
            m = neg ? (~t[79:0] + 80'd1 - {79'd0, st}) : t[79:0];
            sign = neg ? c_sign : p_sign;
        end
    end

    // one rounding of the exact magnitude m (+ sticky) scaled by 2^wbase
    wire [31:0] r_y;
    wire [4:0]  r_flags;
    fp32_round_ieee u_round (.sign(sign), .m(m), .st(st), .wbase(wbase), .rm(rm), .y(r_y),
                             .flags(r_flags));

    always @(*) begin
        // --- result
        flags = 5'd0;
        if (a_nan || b_nan || c_nan) begin
            y = CANON;
            if (snan || inv_mul) flags = F_NV;
        end else if (inv_mul) begin
            y = CANON;
            flags = F_NV;
        end else if (a_inf || b_inf || c_inf) begin
            if ((a_inf || b_inf) && c_inf && sub) begin
                y = CANON;
                flags = F_NV;
            end else y = {(a_inf || b_inf) ? p_sign : c_sign, 31'h7F80_0000};
        end else if (m == 80'd0 && !st) begin            // an exact zero
            y = {mul_only ? a[31] ^ b[31] : sub ? rm == 3'd2 : p_sign, 31'd0};
        end else begin
            y = r_y;
            flags = r_flags;
        end
    end
endmodule
