// coral_fcvt: binary32 <-> 32-bit integer conversions as RISC-V F defines them (bit for
// bit as simulators/coral/fp32.py): float -> int rounds by rm and saturates with NV (NaN
// gives the largest value), NX when inexact; int -> float rounds the magnitude once
// (rtl/common's fp32_round_ieee), 0 is +0. Combinational; the F unit and each vector
// lane have one.
module coral_fcvt (
    input  wire [31:0] a,            // the float (to_int) or the integer
    input  wire        to_int,       // 1: fcvt.w(u).s; 0: fcvt.s.w(u)
    input  wire        uns,          // unsigned integer
    input  wire [2:0]  rm,
    output reg  [31:0] y,
    output reg  [4:0]  flags
);
    // --- int -> float: the magnitude rounded once
    wire        cvt_neg = !uns && a[31];
    wire [31:0] cvt_mag = cvt_neg ? -a : a;
    wire [31:0] i2f_y;
    wire [4:0]  i2f_f;
    fp32_round_ieee u_i2f (.sign(cvt_neg), .m({48'd0, cvt_mag}), .st(1'b0), .wbase(12'sd0),
                           .rm(rm), .y(i2f_y), .flags(i2f_f));

    function automatic round_up(input [2:0] mode, input s, input lsb, input g, input stk);
        case (mode)
            3'd0: round_up = g && (stk || lsb);
            3'd1: round_up = 1'b0;
            3'd2: round_up = s && (g || stk);
            3'd3: round_up = !s && (g || stk);
            default: round_up = g;
        endcase
    endfunction

    // --- float -> int: round to an integer by rm, saturate with NV
    reg [31:0] f2i_y;
    reg [4:0]  f2i_f;
    reg [87:0] fx;
    reg [32:0] n;
    reg [7:0]  sh;
    reg        g, stk, big;
    always @(*) begin
        fx = 88'd0;
        n = 33'd0;
        g = 1'b0;
        stk = 1'b0;
        big = 1'b0;
        sh = 8'd0;
        if (a[30:23] >= 8'd150) begin                   // an integer already
            sh = a[30:23] - 8'd150;
            big = sh > 8'd8;
            n = {9'd0, 1'b1, a[22:0]} << sh[3:0];
        end else begin
            sh = 8'd150 - a[30:23];
            fx = (sh > 8'd87) ? 88'd0 : {a[30:23] != 8'd0, a[22:0], 64'd0} >> sh;
            n = {9'd0, fx[87:64]};
            g = fx[63];
            stk = fx[62:0] != 63'd0 || (sh > 8'd87 && a[30:0] != 31'd0);
            n = n + {32'd0, round_up(rm, a[31], n[0], g, stk)};
        end
        f2i_f = 5'd0;
        if (a[30:23] == 8'hFF && a[22:0] != 23'd0) begin          // NaN: the largest
            f2i_y = uns ? 32'hFFFF_FFFF : 32'h7FFF_FFFF;
            f2i_f = 5'b10000;
        end else if (a[31] && (big || (uns ? n != 33'd0 : n > 33'h0_8000_0000))) begin
            f2i_y = uns ? 32'd0 : 32'h8000_0000;
            f2i_f = 5'b10000;
        end else if (!a[31] && (big || (uns ? n > 33'h0_FFFF_FFFF : n > 33'h0_7FFF_FFFF))) begin
            f2i_y = uns ? 32'hFFFF_FFFF : 32'h7FFF_FFFF;
            f2i_f = 5'b10000;
        end else begin
            f2i_y = a[31] ? -n[31:0] : n[31:0];
            f2i_f = {4'd0, g || stk};
        end
    end

    always @(*)
        if (to_int) begin
            y = f2i_y;
            flags = f2i_f;
        end else begin
            y = cvt_mag == 32'd0 ? 32'd0 : i2f_y;
            flags = cvt_mag == 32'd0 ? 5'd0 : i2f_f;
        end
endmodule
