// V_RED_SUM (KIND 0) or V_RED_MAX (KIND 1): a row of VLEN bf16 values reduced into an
// f register, y = f + tree sum (the numerics' halving order: level l adds x[i] + x[i + HALF])
// or y = max(f, tree max) (any order: fp32_max's NaN and signed-zero rules make it
// associative).
//
// A pipeline on one clock edge, each stage a rising-edge register behind its own
// integrated clock gate (icg), open only while a row is in the stage before:
//   R          (issue cycle)   the row and f captured
//   levels     (one register after every LPS tree levels)
//   the last   f combined with the tree's result: combinational from the last register
// The result is valid from cycle 1 + ceil(log2(VLEN) / LPS) and holds (the gates stay
// shut) until the next reduction. The reduction occupies a slot of T cycles (RED_CYCLES
// in plena_units.vh; at VLEN = 64 the tree fills it exactly): `done`, the start's valid
// bit carried T - 1 cycles, marks its last, whose edge commits y. LPS = 1 as long as the
// slot leaves a cycle per level.
module plena_vreduce #(
    parameter integer VLEN = 64,
    parameter integer KIND = 0,      // 0 sum, 1 max
    parameter integer T    = 8       // the slot: cycles from start to the commit edge
) (
    input  wire               clk,
    input  wire               rst,
    input  wire               gate,      // the reduction is at issue (R's clock enable)
    input  wire               valid,     // ... and starts now
    input  wire [VLEN*16-1:0] row,
    input  wire [31:0]        f,
    output wire [31:0]        y,
    output wire               done
);
    localparam integer LV = $clog2(VLEN);
    // Levels per registered stage: the R cycle, then the stages, all within T cycles.
    localparam integer LPS = (LV + T - 3) / (T - 2);
    initial if (T < 3 || VLEN < 2)
        $fatal(1, "plena_vreduce: a slot of %0d cycles leaves no cycle for the tree", T);

    wire rclk;
    icg u_rgate (.clk(clk), .en(gate), .gclk(rclk));
    reg  [VLEN*16-1:0] x_q;
    reg  [31:0]        f_q;
    reg                v_q;
    always @(posedge rclk) begin
        x_q <= row;
        f_q <= f;
    end
    always @(posedge clk) v_q <= !rst && valid;
    reg [T-2:0] slot;
    always @(posedge clk) slot <= rst ? {(T-1){1'b0}} : (T-1)'({slot, valid});
    assign done = slot[T-2];

    wire [VLEN*32-1:0] x32;
    genvar e, lv, j;
    generate
        // bf16 widens exactly to fp32 (the bf16 pattern is the top half).
        for (e = 0; e < VLEN; e = e + 1) begin : g_widen
            assign x32[32*e +: 32] = {x_q[16*e +: 16], 16'h0000};
        end
        for (lv = 0; lv < LV; lv = lv + 1) begin : g_lv
            localparam integer HALF = VLEN >> (lv + 1);
            wire [64*HALF-1:0] in_v;
            wire               in_ok;        // a row is in this level's inputs
            wire [32*HALF-1:0] s;
            wire [32*HALF-1:0] q;            // s, or s registered
            // Waiver: the last level's flag is not needed (the result holds until the next row).
            /* verilator lint_off UNUSEDSIGNAL */
            wire               q_ok;
            /* verilator lint_on UNUSEDSIGNAL */
            if (lv == 0) begin : g_first
                assign in_v = x32;
                assign in_ok = v_q;
            end else begin : g_next
                assign in_v = g_lv[lv-1].q;
                assign in_ok = g_lv[lv-1].q_ok;
            end
            for (j = 0; j < HALF; j = j + 1) begin : g_node
                if (KIND == 0) begin : g_add
                    fp32_add u_n (.a(in_v[32*j +: 32]), .b(in_v[32*(j + HALF) +: 32]), .sub(1'b0),
                                  .y(s[32*j +: 32]));
                end else begin : g_max
                    fp32_max u_n (.a(in_v[32*j +: 32]), .b(in_v[32*(j + HALF) +: 32]),
                                  .y(s[32*j +: 32]));
                end
            end
            if ((lv + 1) % LPS == 0 || lv == LV - 1) begin : g_reg
                wire sclk;
                icg u_gate (.clk(clk), .en(in_ok), .gclk(sclk));
                reg [32*HALF-1:0] r;
                reg               ok;
                always @(posedge sclk) r <= s;
                always @(posedge clk) ok <= !rst && in_ok;
                assign q = r;
                assign q_ok = ok;
            end else begin : g_wire
                assign q = s;
                assign q_ok = in_ok;
            end
        end
        if (KIND == 0) begin : g_sum
            fp32_add u_last (.a(f_q), .b(g_lv[LV-1].q), .sub(1'b0), .y(y));
        end else begin : g_max
            fp32_max u_last (.a(f_q), .b(g_lv[LV-1].q), .y(y));
        end
    endgenerate
endmodule
