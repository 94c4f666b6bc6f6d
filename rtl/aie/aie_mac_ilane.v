// One integer lane of aie_mac: VMUL/VMAC's product (int8 or int16) or VMMAC's dot
// product of 16 int8 or 8 int16 terms (a chain of 32-bit sums, wrapping); zero unless
// `en` (an integer operation in stage 1). m8, m16, mm8: the operation's kind (none of
// them: VMMAC.I16).
module aie_mac_ilane (
    input  wire [7:0]   a8,
    input  wire [7:0]   b8,
    input  wire [15:0]  a16,
    input  wire [15:0]  b16,
    input  wire [127:0] a8v,          // VMMAC.I8: term k's operands in bytes k
    input  wire [127:0] b8v,
    input  wire [127:0] a16v,         // VMMAC.I16: term k's in half-words k
    input  wire [127:0] b16v,
    input  wire         en,
    input  wire         m8,
    input  wire         m16,
    input  wire         mm8,
    output wire [31:0]  y
);
    wire signed [31:0] p8 = $signed(a8) * $signed(b8);
    wire signed [31:0] p16 = $signed(a16) * $signed(b16);
    wire [32*17-1:0] c8;
    wire [32*9-1:0]  c16;
    assign c8[31:0] = 32'd0;
    assign c16[31:0] = 32'd0;
    genvar gk;
    generate
        for (gk = 0; gk < 16; gk = gk + 1) begin : g_k8
            wire signed [31:0] p = $signed(a8v[8*gk +: 8]) * $signed(b8v[8*gk +: 8]);
            assign c8[32*(gk+1) +: 32] = c8[32*gk +: 32] + p;
        end
        for (gk = 0; gk < 8; gk = gk + 1) begin : g_k16
            wire signed [31:0] p = $signed(a16v[16*gk +: 16]) * $signed(b16v[16*gk +: 16]);
            assign c16[32*(gk+1) +: 32] = c16[32*gk +: 32] + p;
        end
    endgenerate
    assign y = !en ? 32'd0 : m8 ? p8 : m16 ? p16 : mm8 ? c8[32*16 +: 32] : c16[32*8 +: 32];
endmodule
