// coral_idiv: a vector lane's W-bit integer divider (vdiv, vdivu, vrem, vremu; W = 32, and
// 16 and 8 for the lane's other elements at SEW 16 and 8), as RISC-V M defines them: by
// zero the quotient is all ones and the remainder the dividend; -2^(W-1) / -1 is -2^(W-1)
// remainder 0 (what the magnitudes give, no special case).
// Restoring division of the magnitudes, STEPS quotient bits per clock: the edge that
// takes `start` (and the operands) already does the first STEPS steps, so the W bits
// are ready W / STEPS edges after (and including) that one; `q` and `r` hold until the
// next start. The quotient is negated when the operands' signs differ, the remainder
// takes the dividend's sign.
module coral_idiv #(
    parameter integer W     = 32,        // operand bits
    parameter integer STEPS = 4          // quotient bits per clock: a power of 2 up to W
) (
    input  wire         clk,
    input  wire         start,
    input  wire         sgn,             // signed operands
    input  wire [W-1:0] a,               // dividend
    input  wire [W-1:0] b,               // divisor
    output wire [W-1:0] q,
    output wire [W-1:0] r,
    output wire         busy             // steps still to do (its registers change only on start or busy)
);
    localparam integer ITER = W / STEPS;
    localparam integer CW = $clog2(ITER + 1);

    reg  [W-1:0] n;                      // dividend bits still to come in, quotient bits going out
    reg  [W:0]   rem;                    // partial remainder
    reg  [W-1:0] d, a0;                  // the divisor's magnitude, the dividend
    reg         nq, nr, z;               // negate quotient, negate remainder, divide by zero
    reg  [CW-1:0] left;                  // clocks of steps still to do

    wire         an = sgn && a[W-1], bn = sgn && b[W-1];
    wire [W-1:0] am = an ? -a : a, bm = bn ? -b : b;

    // STEPS restoring steps from (rem, n) with divisor dv
    reg  [W:0]   sr;
    reg  [W-1:0] sn;
    integer k;
    always @(*) begin
        sr = start ? {(W + 1){1'b0}} : rem;
        sn = start ? am : n;
        if (start || left != {CW{1'b0}})     // (so that the simulator skips the steps while idle)
            for (k = 0; k < STEPS; k = k + 1) begin
                sr = {sr[W-1:0], sn[W-1]};
                sn = {sn[W-2:0], 1'b0};
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
            z <= b == {W{1'b0}};
            left <= CW'(ITER - 1);
        end else if (left != {CW{1'b0}}) begin
            rem <= sr;
            n <= sn;
            left <= left - 1'b1;
        end

    assign busy = left != {CW{1'b0}};
    assign q = z ? {W{1'b1}} : nq ? -n : n;
    assign r = z ? a0 : nr ? -rem[W-1:0] : rem[W-1:0];
endmodule
