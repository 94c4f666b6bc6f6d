// coral_frest: the 7-bit estimates vfrsqrt7.v and vfrec7.v of RVV 1.0 for binary32, one lane's
// (combinational, in S2 beside the F class mask). A subnormal input is normalized first
// (exponent 0 minus its fraction's leading zeros); the normalized exponent's LSB and 6
// fraction bits (rsqrt) or 7 fraction bits (rec) index a 128-entry table whose 7 bits are the
// result's high fraction bits. The tables are the model's (simulators/coral/semantics/
// vector_estimate.py derives them; they equal the specification's, which chooses per interval
// the output with the least maximum relative error: checked entry by entry). Specials as the
// model: rsqrt of +-0 is +-inf (DZ), of +inf +0, of a negative or NaN input the canonical NaN
// (NV unless a quiet NaN); rec of +-0 is +-inf (DZ), of +-inf +-0, of NaN the canonical NaN (NV
// for a signalling one), of a subnormal below 2^-127 +-inf or +-the largest finite value as rm
// rounds (OF, NX); a result exponent of 0 or -1 gives a subnormal (the leading 1 shifted in).
module coral_frest (
    input  wire        en,        // vfrsqrt7 or vfrec7 in this lane's S2 (else y, flags 0)
    input  wire [31:0] a,
    input  wire        rec,       // vfrec7 (else vfrsqrt7)
    input  wire [2:0]  rm,        // vfrec7's overflow: RNE 0, RTZ 1, RDN 2, RUP 3, RMM 4
    output reg  [31:0] y,
    output reg  [4:0]  flags      // NV DZ OF UF NX
);
    // vfrsqrt7: index {exponent LSB, 6 fraction bits}
    function automatic [6:0] rsqrt_lut(input [6:0] i);
        case (i)
            7'd0: rsqrt_lut = 7'd52; 7'd1: rsqrt_lut = 7'd51; 7'd2: rsqrt_lut = 7'd50; 7'd3: rsqrt_lut = 7'd48;
            7'd4: rsqrt_lut = 7'd47; 7'd5: rsqrt_lut = 7'd46; 7'd6: rsqrt_lut = 7'd44; 7'd7: rsqrt_lut = 7'd43;
            7'd8: rsqrt_lut = 7'd42; 7'd9: rsqrt_lut = 7'd41; 7'd10: rsqrt_lut = 7'd40; 7'd11: rsqrt_lut = 7'd39;
            7'd12: rsqrt_lut = 7'd38; 7'd13: rsqrt_lut = 7'd36; 7'd14: rsqrt_lut = 7'd35; 7'd15: rsqrt_lut = 7'd34;
            7'd16: rsqrt_lut = 7'd33; 7'd17: rsqrt_lut = 7'd32; 7'd18: rsqrt_lut = 7'd31; 7'd19: rsqrt_lut = 7'd30;
            7'd20: rsqrt_lut = 7'd30; 7'd21: rsqrt_lut = 7'd29; 7'd22: rsqrt_lut = 7'd28; 7'd23: rsqrt_lut = 7'd27;
            7'd24: rsqrt_lut = 7'd26; 7'd25: rsqrt_lut = 7'd25; 7'd26: rsqrt_lut = 7'd24; 7'd27: rsqrt_lut = 7'd23;
            7'd28: rsqrt_lut = 7'd23; 7'd29: rsqrt_lut = 7'd22; 7'd30: rsqrt_lut = 7'd21; 7'd31: rsqrt_lut = 7'd20;
            7'd32: rsqrt_lut = 7'd19; 7'd33: rsqrt_lut = 7'd19; 7'd34: rsqrt_lut = 7'd18; 7'd35: rsqrt_lut = 7'd17;
            7'd36: rsqrt_lut = 7'd16; 7'd37: rsqrt_lut = 7'd16; 7'd38: rsqrt_lut = 7'd15; 7'd39: rsqrt_lut = 7'd14;
            7'd40: rsqrt_lut = 7'd14; 7'd41: rsqrt_lut = 7'd13; 7'd42: rsqrt_lut = 7'd12; 7'd43: rsqrt_lut = 7'd12;
            7'd44: rsqrt_lut = 7'd11; 7'd45: rsqrt_lut = 7'd10; 7'd46: rsqrt_lut = 7'd10; 7'd47: rsqrt_lut = 7'd9;
            7'd48: rsqrt_lut = 7'd9; 7'd49: rsqrt_lut = 7'd8; 7'd50: rsqrt_lut = 7'd7; 7'd51: rsqrt_lut = 7'd7;
            7'd52: rsqrt_lut = 7'd6; 7'd53: rsqrt_lut = 7'd6; 7'd54: rsqrt_lut = 7'd5; 7'd55: rsqrt_lut = 7'd4;
            7'd56: rsqrt_lut = 7'd4; 7'd57: rsqrt_lut = 7'd3; 7'd58: rsqrt_lut = 7'd3; 7'd59: rsqrt_lut = 7'd2;
            7'd60: rsqrt_lut = 7'd2; 7'd61: rsqrt_lut = 7'd1; 7'd62: rsqrt_lut = 7'd1; 7'd63: rsqrt_lut = 7'd0;
            7'd64: rsqrt_lut = 7'd127; 7'd65: rsqrt_lut = 7'd125; 7'd66: rsqrt_lut = 7'd123; 7'd67: rsqrt_lut = 7'd121;
            7'd68: rsqrt_lut = 7'd119; 7'd69: rsqrt_lut = 7'd118; 7'd70: rsqrt_lut = 7'd116; 7'd71: rsqrt_lut = 7'd114;
            7'd72: rsqrt_lut = 7'd113; 7'd73: rsqrt_lut = 7'd111; 7'd74: rsqrt_lut = 7'd109; 7'd75: rsqrt_lut = 7'd108;
            7'd76: rsqrt_lut = 7'd106; 7'd77: rsqrt_lut = 7'd105; 7'd78: rsqrt_lut = 7'd103; 7'd79: rsqrt_lut = 7'd102;
            7'd80: rsqrt_lut = 7'd100; 7'd81: rsqrt_lut = 7'd99; 7'd82: rsqrt_lut = 7'd97; 7'd83: rsqrt_lut = 7'd96;
            7'd84: rsqrt_lut = 7'd95; 7'd85: rsqrt_lut = 7'd93; 7'd86: rsqrt_lut = 7'd92; 7'd87: rsqrt_lut = 7'd91;
            7'd88: rsqrt_lut = 7'd90; 7'd89: rsqrt_lut = 7'd88; 7'd90: rsqrt_lut = 7'd87; 7'd91: rsqrt_lut = 7'd86;
            7'd92: rsqrt_lut = 7'd85; 7'd93: rsqrt_lut = 7'd84; 7'd94: rsqrt_lut = 7'd83; 7'd95: rsqrt_lut = 7'd82;
            7'd96: rsqrt_lut = 7'd80; 7'd97: rsqrt_lut = 7'd79; 7'd98: rsqrt_lut = 7'd78; 7'd99: rsqrt_lut = 7'd77;
            7'd100: rsqrt_lut = 7'd76; 7'd101: rsqrt_lut = 7'd75; 7'd102: rsqrt_lut = 7'd74; 7'd103: rsqrt_lut = 7'd73;
            7'd104: rsqrt_lut = 7'd72; 7'd105: rsqrt_lut = 7'd71; 7'd106: rsqrt_lut = 7'd70; 7'd107: rsqrt_lut = 7'd70;
            7'd108: rsqrt_lut = 7'd69; 7'd109: rsqrt_lut = 7'd68; 7'd110: rsqrt_lut = 7'd67; 7'd111: rsqrt_lut = 7'd66;
            7'd112: rsqrt_lut = 7'd65; 7'd113: rsqrt_lut = 7'd64; 7'd114: rsqrt_lut = 7'd63; 7'd115: rsqrt_lut = 7'd63;
            7'd116: rsqrt_lut = 7'd62; 7'd117: rsqrt_lut = 7'd61; 7'd118: rsqrt_lut = 7'd60; 7'd119: rsqrt_lut = 7'd59;
            7'd120: rsqrt_lut = 7'd59; 7'd121: rsqrt_lut = 7'd58; 7'd122: rsqrt_lut = 7'd57; 7'd123: rsqrt_lut = 7'd56;
            7'd124: rsqrt_lut = 7'd56; 7'd125: rsqrt_lut = 7'd55; 7'd126: rsqrt_lut = 7'd54; 7'd127: rsqrt_lut = 7'd53;
            default: rsqrt_lut = 7'd0;
        endcase
    endfunction
    // vfrec7: index the 7 high fraction bits
    function automatic [6:0] rec_lut(input [6:0] i);
        case (i)
            7'd0: rec_lut = 7'd127; 7'd1: rec_lut = 7'd125; 7'd2: rec_lut = 7'd123; 7'd3: rec_lut = 7'd121;
            7'd4: rec_lut = 7'd119; 7'd5: rec_lut = 7'd117; 7'd6: rec_lut = 7'd116; 7'd7: rec_lut = 7'd114;
            7'd8: rec_lut = 7'd112; 7'd9: rec_lut = 7'd110; 7'd10: rec_lut = 7'd109; 7'd11: rec_lut = 7'd107;
            7'd12: rec_lut = 7'd105; 7'd13: rec_lut = 7'd104; 7'd14: rec_lut = 7'd102; 7'd15: rec_lut = 7'd100;
            7'd16: rec_lut = 7'd99; 7'd17: rec_lut = 7'd97; 7'd18: rec_lut = 7'd96; 7'd19: rec_lut = 7'd94;
            7'd20: rec_lut = 7'd93; 7'd21: rec_lut = 7'd91; 7'd22: rec_lut = 7'd90; 7'd23: rec_lut = 7'd88;
            7'd24: rec_lut = 7'd87; 7'd25: rec_lut = 7'd85; 7'd26: rec_lut = 7'd84; 7'd27: rec_lut = 7'd83;
            7'd28: rec_lut = 7'd81; 7'd29: rec_lut = 7'd80; 7'd30: rec_lut = 7'd79; 7'd31: rec_lut = 7'd77;
            7'd32: rec_lut = 7'd76; 7'd33: rec_lut = 7'd75; 7'd34: rec_lut = 7'd74; 7'd35: rec_lut = 7'd72;
            7'd36: rec_lut = 7'd71; 7'd37: rec_lut = 7'd70; 7'd38: rec_lut = 7'd69; 7'd39: rec_lut = 7'd68;
            7'd40: rec_lut = 7'd66; 7'd41: rec_lut = 7'd65; 7'd42: rec_lut = 7'd64; 7'd43: rec_lut = 7'd63;
            7'd44: rec_lut = 7'd62; 7'd45: rec_lut = 7'd61; 7'd46: rec_lut = 7'd60; 7'd47: rec_lut = 7'd59;
            7'd48: rec_lut = 7'd58; 7'd49: rec_lut = 7'd57; 7'd50: rec_lut = 7'd56; 7'd51: rec_lut = 7'd55;
            7'd52: rec_lut = 7'd54; 7'd53: rec_lut = 7'd53; 7'd54: rec_lut = 7'd52; 7'd55: rec_lut = 7'd51;
            7'd56: rec_lut = 7'd50; 7'd57: rec_lut = 7'd49; 7'd58: rec_lut = 7'd48; 7'd59: rec_lut = 7'd47;
            7'd60: rec_lut = 7'd46; 7'd61: rec_lut = 7'd45; 7'd62: rec_lut = 7'd44; 7'd63: rec_lut = 7'd43;
            7'd64: rec_lut = 7'd42; 7'd65: rec_lut = 7'd41; 7'd66: rec_lut = 7'd40; 7'd67: rec_lut = 7'd40;
            7'd68: rec_lut = 7'd39; 7'd69: rec_lut = 7'd38; 7'd70: rec_lut = 7'd37; 7'd71: rec_lut = 7'd36;
            7'd72: rec_lut = 7'd35; 7'd73: rec_lut = 7'd35; 7'd74: rec_lut = 7'd34; 7'd75: rec_lut = 7'd33;
            7'd76: rec_lut = 7'd32; 7'd77: rec_lut = 7'd31; 7'd78: rec_lut = 7'd31; 7'd79: rec_lut = 7'd30;
            7'd80: rec_lut = 7'd29; 7'd81: rec_lut = 7'd28; 7'd82: rec_lut = 7'd28; 7'd83: rec_lut = 7'd27;
            7'd84: rec_lut = 7'd26; 7'd85: rec_lut = 7'd25; 7'd86: rec_lut = 7'd25; 7'd87: rec_lut = 7'd24;
            7'd88: rec_lut = 7'd23; 7'd89: rec_lut = 7'd23; 7'd90: rec_lut = 7'd22; 7'd91: rec_lut = 7'd21;
            7'd92: rec_lut = 7'd21; 7'd93: rec_lut = 7'd20; 7'd94: rec_lut = 7'd19; 7'd95: rec_lut = 7'd19;
            7'd96: rec_lut = 7'd18; 7'd97: rec_lut = 7'd17; 7'd98: rec_lut = 7'd17; 7'd99: rec_lut = 7'd16;
            7'd100: rec_lut = 7'd15; 7'd101: rec_lut = 7'd15; 7'd102: rec_lut = 7'd14; 7'd103: rec_lut = 7'd14;
            7'd104: rec_lut = 7'd13; 7'd105: rec_lut = 7'd12; 7'd106: rec_lut = 7'd12; 7'd107: rec_lut = 7'd11;
            7'd108: rec_lut = 7'd11; 7'd109: rec_lut = 7'd10; 7'd110: rec_lut = 7'd9; 7'd111: rec_lut = 7'd9;
            7'd112: rec_lut = 7'd8; 7'd113: rec_lut = 7'd8; 7'd114: rec_lut = 7'd7; 7'd115: rec_lut = 7'd7;
            7'd116: rec_lut = 7'd6; 7'd117: rec_lut = 7'd5; 7'd118: rec_lut = 7'd5; 7'd119: rec_lut = 7'd4;
            7'd120: rec_lut = 7'd4; 7'd121: rec_lut = 7'd3; 7'd122: rec_lut = 7'd3; 7'd123: rec_lut = 7'd2;
            7'd124: rec_lut = 7'd2; 7'd125: rec_lut = 7'd1; 7'd126: rec_lut = 7'd1; 7'd127: rec_lut = 7'd0;
            default: rec_lut = 7'd0;
        endcase
    endfunction
    // (one always block, its work under `en`: an idle lane's simulator skips it)
    reg        sgn, zero, sub, inf, nan, snan, tiny, over, to_inf;
    reg [7:0]  ex;
    reg [22:0] fr, nfr;
    reg [4:0]  lz;
    reg signed [9:0] nexp, rs_e, rc_e;
    reg [23:0] rc_s;
    integer i;
    wire _unused = ^{nfr[15:0], rs_e[9:8], rc_s[23]};
    always @(*) begin
        y = 32'd0;
        flags = 5'd0;
        {sgn, ex, fr} = a;
        {zero, sub, inf, nan, snan, tiny, over, to_inf} = 8'd0;
        {lz, nexp, rs_e, rc_e, rc_s, nfr} = 82'd0;
        if (en) begin
            zero = ex == 8'd0 && fr == 23'd0;
            sub = ex == 8'd0 && fr != 23'd0;
            inf = ex == 8'hFF && fr == 23'd0;
            nan = ex == 8'hFF && fr != 23'd0;
            snan = nan && !fr[22];
            for (i = 0; i < 23; i = i + 1)              // leading zeros of a subnormal's fraction
                if (fr[i]) lz = 5'(22 - i);
            nexp = sub ? -$signed({5'd0, lz}) : $signed({2'b00, ex});
            nfr = sub ? 23'(fr << (lz + 5'd1)) : fr;
            rs_e = (10'sd380 - nexp) >>> 1;              // rsqrt: floor((3 * 127 - 1 - e) / 2)
            rc_e = 10'sd253 - nexp;                      // rec: 2 * 127 - 1 - e; 0 or -1: subnormal
            rc_s = {1'b1, rec_lut(nfr[22:16]), 16'd0} >> (rc_e == 10'sd0 ? 1 : 2);
            tiny = rc_e <= 10'sd0;
            over = sub && nexp < -10'sd1;
            to_inf = rm == 3'd0 || rm == 3'd4 || (rm == 3'd3 && !sgn) || (rm == 3'd2 && sgn);
            if (!rec) begin
                y = {1'b0, rs_e[7:0], rsqrt_lut({nexp[0], nfr[22:17]}), 16'd0};
                if (zero) begin y = {sgn, 31'h7F80_0000}; flags = 5'b01000; end
                else if (nan) begin y = 32'h7FC0_0000; flags = {snan, 4'd0}; end
                else if (sgn) begin y = 32'h7FC0_0000; flags = 5'b10000; end
                else if (inf) y = 32'd0;
            end else begin
                y = tiny ? {sgn, 8'd0, rc_s[22:0]} : {sgn, rc_e[7:0], rec_lut(nfr[22:16]), 16'd0};
                if (zero) begin y = {sgn, 31'h7F80_0000}; flags = 5'b01000; end
                else if (nan) begin y = 32'h7FC0_0000; flags = {snan, 4'd0}; end
                else if (inf) y = {sgn, 31'd0};
                else if (over) begin y = {sgn, to_inf ? 31'h7F80_0000 : 31'h7F7F_FFFF}; flags = 5'b00101; end
            end
        end
    end
endmodule
