// fp32_divsqrt: IEEE 754 binary32 division a / b and square root sqrt(a) as RISC-V F
// defines them (five rounding modes, flags NV DZ OF UF NX, canonical NaN), bit for bit
// as simulators/coral/fp32.py (fdiv, fsqrt). Iterative and clocked: `start` (with the
// operands) sets up, then STEPS restoring steps per clock produce the 27 quotient or
// root bits; `done` rises 27 / STEPS clocks after the edge that took `start` and `y`,
// `flags` hold until the next start.
//
// Set-up normalises subnormal significands (leading-zero shift). Division: restoring,
// the remainder's non-zero-ness is the sticky bit. Square root: the exponent made even
// by shifting the radicand 28 or 29 places, a bit-serial restoring root of the 54-bit
// radicand, remainder as sticky. Then fp32_round_ieee rounds once.
module fp32_divsqrt #(
    parameter integer STEPS = 3          // result bits per clock: 1, 3, 9 or 27
) (
    input  wire        clk,
    input  wire        start,
    input  wire        sqrt,             // 1: sqrt(a); 0: a / b
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire [2:0]  rm,
    output reg         busy,
    output reg         done,
    output wire [31:0] y,
    output wire [4:0]  flags
);
    localparam integer ITER = 27 / STEPS;
    localparam [31:0] CANON = 32'h7FC0_0000;

    // --- set-up, from the operands at `start`
    wire [7:0] ea = a[30:23], eb = b[30:23];
    wire a_zero = a[30:0] == 31'd0, b_zero = b[30:0] == 31'd0;
    wire a_inf = a[30:0] == 31'h7F80_0000, b_inf = b[30:0] == 31'h7F80_0000;
    wire a_nan = ea == 8'hFF && a[22:0] != 23'd0, b_nan = eb == 8'hFF && b[22:0] != 23'd0;
    wire a_snan = a_nan && !a[22], b_snan = b_nan && !b[22];

    // leading zeros (v != 0; 0 for v = 0), from the leading one's position found by halving
    function automatic [4:0] lz24(input [23:0] v);
        reg [23:0] w;
        reg [4:0]  p;
        begin
            p = 5'd0;
            w = v;
            if (w[23:16] != 8'd0) begin p = 5'd16; w = w >> 16; end
            if (w[15:8] != 8'd0)  begin p = p + 5'd8; w = w >> 8; end
            if (w[7:4] != 4'd0)   begin p = p + 5'd4; w = w >> 4; end
            if (w[3:2] != 2'd0)   begin p = p + 5'd2; w = w >> 2; end
            if (w[1])                   p = p + 5'd1;
            lz24 = v == 24'd0 ? 5'd0 : 5'd23 - p;
        end
    endfunction

    wire [23:0] fa = {ea != 8'd0, a[22:0]}, fb = {eb != 8'd0, b[22:0]};
    wire [4:0]  la = lz24(fa), lb = lz24(fb);
    wire [23:0] na = fa << la, nb = fb << lb;           // leading one at bit 23
    // a = na * 2^xa, b = nb * 2^xb
    wire signed [11:0] xa = (ea == 8'd0 ? 12'sd1 : $signed({4'd0, ea})) - 12'sd150 - $signed({7'd0, la});
    wire signed [11:0] xb = (eb == 8'd0 ? 12'sd1 : $signed({4'd0, eb})) - 12'sd150 - $signed({7'd0, lb});
    wire               odd = xa[0];
    wire signed [11:0] sq_base = (xa - (odd ? 12'sd29 : 12'sd28)) >>> 1;

    // specials: the result is known at set-up
    reg        sp;
    reg [31:0] sp_y;
    reg [4:0]  sp_f;
    always @(*) begin
        sp = 1'b1;
        sp_f = 5'd0;
        sp_y = CANON;
        if (sqrt) begin
            if (a_nan) sp_f = a_snan ? 5'b10000 : 5'd0;
            else if (a_zero || (a_inf && !a[31])) sp_y = a;
            else if (a[31]) sp_f = 5'b10000;
            else sp = 1'b0;
        end else begin
            if (a_nan || b_nan) sp_f = (a_snan || b_snan) ? 5'b10000 : 5'd0;
            else if ((a_zero && b_zero) || (a_inf && b_inf)) sp_f = 5'b10000;
            else if (a_inf) sp_y = {a[31] ^ b[31], 31'h7F80_0000};
            else if (b_zero) begin
                sp_y = {a[31] ^ b[31], 31'h7F80_0000};
                sp_f = 5'b01000;                         // DZ
            end else if (b_inf || a_zero) sp_y = {a[31] ^ b[31], 31'd0};
            else sp = 1'b0;
        end
    end

    // --- the iteration state
    reg        op_sqrt, special, sign;
    reg [2:0]  mode;
    reg [31:0] s_y;
    reg [4:0]  s_f;
    reg signed [11:0] base;
    reg [26:0] q;                    // quotient or root bits so far
    reg [29:0] rem;                  // division: the partial remainder; sqrt: the remainder
    reg [23:0] dvs;                  // division: the normalised divisor
    reg [53:0] rad;                  // sqrt: radicand bits still to bring down, two per step
    reg [4:0]  left;

    // STEPS restoring steps, combinational from the state
    reg [26:0] q_n;
    reg [29:0] r_n;
    reg [53:0] rad_n;
    reg [29:0] trial;
    integer s;
    always @(*) begin
        q_n = q;
        r_n = rem;
        rad_n = rad;
        for (s = 0; s < STEPS; s = s + 1) begin
            if (op_sqrt) begin
                r_n = {r_n[27:0], rad_n[53:52]};
                rad_n = {rad_n[51:0], 2'b00};
                trial = {1'b0, q_n, 2'b01};
                if (r_n >= trial) begin
                    r_n = r_n - trial;
                    q_n = {q_n[25:0], 1'b1};
                end else q_n = {q_n[25:0], 1'b0};
            end else begin
                trial = {6'd0, dvs};
                if (r_n >= trial) begin
                    q_n = {q_n[25:0], 1'b1};
                    r_n = (r_n - trial) << 1;
                end else begin
                    q_n = {q_n[25:0], 1'b0};
                    r_n = r_n << 1;
                end
            end
        end
    end

    always @(posedge clk) begin
        if (start) begin
            op_sqrt <= sqrt;
            mode <= rm;
            special <= sp;
            s_y <= sp_y;
            s_f <= sp_f;
            sign <= sqrt ? 1'b0 : a[31] ^ b[31];
            base <= sqrt ? sq_base : xa - xb - 12'sd26;
            q <= 27'd0;
            rem <= sqrt ? 30'd0 : {6'd0, na};
            dvs <= nb;
            rad <= odd ? {1'b0, na, 29'd0} : {2'b00, na, 28'd0};
            left <= 5'(ITER);
            busy <= !sp;
            done <= sp;
        end else if (busy) begin
            q <= q_n;
            rem <= r_n;
            rad <= rad_n;
            left <= left - 5'd1;
            if (left == 5'd1) begin
                busy <= 1'b0;
                done <= 1'b1;
            end
        end
    end

    wire [31:0] r_y;
    wire [4:0]  r_f;
    fp32_round_ieee u_round (.sign(sign), .m({53'd0, q}), .st(rem != 30'd0), .wbase(base),
                             .rm(mode), .y(r_y), .flags(r_f));
    assign y = special ? s_y : r_y;
    assign flags = special ? s_f : r_f;
endmodule
