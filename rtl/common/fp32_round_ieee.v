// fp32_round_ieee: the one rounding step of the IEEE binary32 units (fp32_fma,
// fp32_divsqrt): the exact value m * 2^wbase, plus `st` (something nonzero below m's
// bit 0), rounded to binary32 in rounding mode rm, with the flags OF UF NX (tininess
// after rounding). m = 0 with st = 0 (an exact zero) is the caller's case.
//
// The leading one of m gives the exponent; the rounding position is 24 bits below it
// or the subnormal boundary 2^-149, whichever is higher; tininess rounds the same value
// at 24 bits with an unbounded exponent. The hidden bit and a rounding carry both land
// in the exponent field; overflow gives infinity or the largest finite by rm.
module fp32_round_ieee (
    input  wire               sign,
    input  wire [79:0]        m,
    input  wire               st,
    input  wire signed [11:0] wbase,
    input  wire [2:0]         rm,           // 0 rne, 1 rtz, 2 rdn, 3 rup, 4 rmm
    output reg  [31:0]        y,
    output reg  [4:0]         flags         // {NV, DZ, OF, UF, NX}: NV and DZ always 0
);
    reg [6:0]  k;                                        // the leading one of m
    reg signed [11:0] eb_msb, r, ru;
    reg [23:0] mant, mant_u;
    reg [79:0] below, below_u;
    reg        guard, sticky, inc, guard_u, sticky_u, inc_u, carry_u, tiny, normal, inexact;
    reg [32:0] packed_mag;

    // the position of v's leading one (0 when v is 0), halving the range: a binary
    // leading-one encoder (under Verilator seven tests of 64-bit words, where a scan of the
    // 80 bits was a loop of 80 steps for every lane's rounding in every cycle)
    function automatic [6:0] lead80(input [79:0] v);
        reg [63:0] w;
        begin
            lead80 = 7'd0;
            w = v[63:0];
            if (v[79:64] != 16'd0) begin
                lead80 = 7'd64;
                w = {48'd0, v[79:64]};
            end
            if (w[63:32] != 32'd0) begin lead80 = lead80 + 7'd32; w = w >> 32; end
            if (w[31:16] != 16'd0) begin lead80 = lead80 + 7'd16; w = w >> 16; end
            if (w[15:8]  != 8'd0)  begin lead80 = lead80 + 7'd8;  w = w >> 8;  end
            if (w[7:4]   != 4'd0)  begin lead80 = lead80 + 7'd4;  w = w >> 4;  end
            if (w[3:2]   != 2'd0)  begin lead80 = lead80 + 7'd2;  w = w >> 2;  end
            if (w[1])                    lead80 = lead80 + 7'd1;
        end
    endfunction

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
        k = lead80(m);
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
        if (normal && (eb_msb >= 12'sd255 || packed_mag >= 33'h0_7F80_0000)) begin
            flags = 5'b00101;                            // OF NX: infinity or the largest finite
            y = (rm == 3'd1 || (rm == 3'd2 && !sign) || (rm == 3'd3 && sign)) ?
                {sign, 31'h7F7F_FFFF} : {sign, 31'h7F80_0000};
        end else begin
            y = {sign, packed_mag[30:0]};
            flags = {3'b000, tiny && inexact, inexact};
        end
    end
endmodule
