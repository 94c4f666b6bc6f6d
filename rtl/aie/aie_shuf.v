// The shuffle unit of the aie vector slot: VSHUF, VALIGN and VBCL.16 as one
// combinational select network on the 1024-bit pair {b, a} (a in the low half, as the
// model's concatenation of xa then xb).
//   VSHUF   mode 0..15: each mode is a fixed wiring of the pair (aie_shuf.vh, generated
//           from isa/aie/shuffles.toml), then a 16-way select per output bit
//   VALIGN  byte offset 0..63: a six-stage byte shifter of the pair (shift by 32, 16,
//           8, 4, 2, 1 bytes by the offset's bits), the low 64 bytes
//   VBCL.16 lane 0..31: a 32-way select of one 16-bit lane of a, copied to every lane
// The core feeds it the operands it latched at the issue edge and writes y at the next
// edge, as its other vector lanes; the scoreboard keeps readers away for SHUFFLE_LATENCY.
// No state, no clock: nothing here is evaluated unless those latched operands change.
module aie_shuf (
    input  wire [1:0]   kind,       // 0 VSHUF, 1 VALIGN, 2 VBCL.16
    input  wire [5:0]   imm,        // the mode, the byte offset or the lane
    input  wire [511:0] a,
    input  wire [511:0] b,
    output reg  [511:0] y
);
`include "aie_shuf.vh"
    wire [1023:0] pair = {b, a};
    reg  [1023:0] sh;
    reg  [15:0]   lane;
    integer k;
    always @* begin
        sh = pair;
        for (k = 5; k >= 0; k = k - 1)
            if (imm[k]) sh = sh >> (8 * (1 << k));
        lane = a[16 * imm[4:0] +: 16];
        case (kind)
            2'd0: y = shuf_mode(imm[3:0], pair);
            2'd1: y = sh[511:0];
            2'd2: y = {32{lane}};
            default: y = 512'd0;
        endcase
    end
endmodule
