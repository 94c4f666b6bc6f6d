// coral_idiv: one vector lane's 32-bit integer divider (vdiv, vdivu, vrem, vremu), as
// RISC-V M defines them: by zero the quotient is all ones and the remainder the
// dividend; -2^31 / -1 is -2^31 remainder 0 (what the magnitudes give, no special case).
// Restoring division of the magnitudes, STEPS quotient bits per clock: the edge that
// takes `start` (and the operands) already does the first STEPS steps, so the 32 bits
// are ready 32 / STEPS edges after (and including) that one; `q` and `r` hold until the
// next start. The quotient is negated when the operands' signs differ, the remainder
// takes the dividend's sign.
module coral_idiv #(
    parameter integer STEPS = 4          // quotient bits per clock: 1, 2, 4, 8, 16 or 32
) (
    input  wire        clk,
    input  wire        start,
    input  wire        sgn,              // signed operands
    input  wire [31:0] a,                // dividend
    input  wire [31:0] b,                // divisor
    output wire [31:0] q,
    output wire [31:0] r
);
    localparam integer ITER = 32 / STEPS;
    localparam integer CW = $clog2(ITER + 1);

    reg  [31:0] n;                       // dividend bits still to come in, quotient bits going out
    reg  [32:0] rem;                     // partial remainder
    reg  [31:0] d, a0;                   // the divisor's magnitude, the dividend
    reg         nq, nr, z;               // negate quotient, negate remainder, divide by zero
    reg  [CW-1:0] left;                  // clocks of steps still to do

    wire        an = sgn && a[31], bn = sgn && b[31];
    wire [31:0] am = an ? -a : a, bm = bn ? -b : b;

    // STEPS restoring steps from (rem, n) with divisor dv
    reg  [32:0] sr;
    reg  [31:0] sn;
    integer k;
    always @(*) begin
        sr = start ? 33'd0 : rem;
        sn = start ? am : n;
        if (start || left != {CW{1'b0}})     // (so that the simulator skips the steps while idle)
            for (k = 0; k < STEPS; k = k + 1) begin
                sr = {sr[31:0], sn[31]};
                sn = {sn[30:0], 1'b0};
                if (sr >= {1'b0, start ? bm : d}) begin
                    sr = sr - {1'b0, start ? bm : d};
                    sn[0] = 1'b1;
                end
            end
    end

    always @(posedge clk)
        if (start) begin
            rem <= sr;
            n <= sn;
            d <= bm;
            a0 <= a;
            nq <= an != bn;
            nr <= an;
            z <= b == 32'd0;
            left <= CW'(ITER - 1);
        end else if (left != {CW{1'b0}}) begin
            rem <= sr;
            n <= sn;
            left <= left - 1'b1;
        end

    assign q = z ? 32'hFFFF_FFFF : nq ? -n : n;
    assign r = z ? a0 : nr ? -rem[31:0] : rem[31:0];
endmodule
