// fp32 -> bf16: round to nearest even on the bit pattern (add 0x7FFF plus the LSB that
// is kept, then drop the low half); overflow gives infinity, subnormals are kept, NaN
// becomes the canonical bf16 NaN.
module fp32_to_bf16 (
    input  wire [31:0] a,
    output wire [15:0] y
);
    `include "fp_constants.vh"

    wire nan = (a[30:23] == 8'hFF) && (a[22:0] != 23'd0);
    // Waiver: the low half of the biased word is dropped by design (that is the rounding).
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] biased = a + 32'h0000_7FFF + {31'd0, a[16]};
    /* verilator lint_on UNUSEDSIGNAL */
    assign y = nan ? BF16_CANON_NAN : biased[31:16];
endmodule
