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
// is normalised by a leading-one search and rounded once, at 24 bits or at the
// subnormal boundary 2^-149, whichever is higher. Combinational.
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
    localparam [4:0] F_NV = 5'b10000, F_OF = 5'b00100, F_NX = 5'b00001;

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
    reg [6:0]  k;                                        // the leading one of m
    reg signed [11:0] eb_msb, r, ru;
    reg [23:0] mant, mant_u;
    reg [79:0] below, below_u;
    reg        guard, sticky, inc, guard_u, sticky_u, inc_u, carry_u, tiny, normal, inexact;
    reg [32:0] packed_mag;
    integer i;

    function automatic round_up(input [2:0] mode, input s, input lsb, input g, input stk);
        case (mode)
            3'd0: round_up = g && (stk || lsb);
            3'd1: round_up = 1'b0;
            3'd2: round_up = s && (g || stk);
            3'd3: round_up = !s && (g || stk);
            default: round_up = g;
        endcase
    endfunction

    always @(*) begin
        below = 80'd0;
        below_u = 80'd0;
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
        // --- leading one, exponent, rounding position
        k = 7'd0;
        for (i = 0; i < 80; i = i + 1)
            if (m[i]) k = i[6:0];
        eb_msb = wbase + {5'd0, k} + 12'sd127;           // biased exponent of the leading one
        normal = eb_msb >= 12'sd1;
        ru = {5'd0, k} - 12'sd23;                        // 24-bit rounding (unbounded exponent)
        r = normal ? ru : -12'sd149 - wbase;             // or at the subnormal boundary
        if (r > 12'sd80) begin                          // all of it below the boundary
            mant = 24'd0;
            guard = 1'b0;
            sticky = m != 80'd0 || st;
        end else if (r > 12'sd0) begin
            mant = 24'(m >> r);
            guard = m[r - 1];
            below = m & ~(80'hFFFF_FFFF_FFFF_FFFF_FFFF << (r - 1));
            sticky = below != 80'd0 || st;
        end else begin
            mant = 24'(m << (-r));
            guard = 1'b0;
            sticky = st;
        end
        inc = round_up(rm, sign, mant[0], guard, sticky);
        inexact = guard || sticky;
        // tininess after rounding: below 2^-126 even when rounded with an unbounded exponent
        if (ru > 12'sd0) begin
            mant_u = 24'(m >> ru);
            guard_u = m[ru - 1];
            below_u = m & ~(80'hFFFF_FFFF_FFFF_FFFF_FFFF << (ru - 1));
            sticky_u = below_u != 80'd0 || st;
        end else begin
            mant_u = 24'(m << (-ru));
            guard_u = 1'b0;
            sticky_u = st;
        end
        inc_u = round_up(rm, sign, mant_u[0], guard_u, sticky_u);
        carry_u = mant_u == 24'hFFFFFF && inc_u;
        tiny = !normal && !(eb_msb == 12'sd0 && carry_u);
        // the hidden bit carries into the exponent field; a rounding carry does too
        packed_mag = (normal ? {eb_msb[9:0] - 10'd1, 23'd0} : 33'd0) + {9'd0, mant} +
                     {32'd0, inc};
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
        end else if (normal && (eb_msb >= 12'sd255 || packed_mag >= 33'h0_7F80_0000)) begin
            flags = F_OF | F_NX;                         // overflow: infinity or the largest finite
            y = (rm == 3'd1 || (rm == 3'd2 && !sign) || (rm == 3'd3 && sign)) ?
                {sign, 31'h7F7F_FFFF} : {sign, 31'h7F80_0000};
        end else begin
            y = {sign, packed_mag[30:0]};
            flags = {2'b00, 1'b0, tiny && inexact, inexact};
        end
    end
endmodule
