// mux_tree: a binary tree of 2-to-1 multiplexers choosing one of N entries of WIDTH bits
// (entry e at in[WIDTH*e +: WIDTH]) by `sel`, LEVELS levels deep: level k halves the
// entries by select bit k (entries 2i and 2i+1 become entry i), so entry e is chosen by
// sel == e, and entries from N to 2^LEVELS - 1 are +0 (LEVELS = 0: out is entry 0).
// Written level by level in one always block rather than as a variable part-select or
// a tree of continuous assignments, for two reasons (rtl/plena/README.md, "Synthesis"
// and "Simulators"): Yosys turns `in[sel*WIDTH +: WIDTH]` into a $shiftx that techmap
// expands to a log shifter of the whole input width before `opt` trims it, and a tree of
// continuous assignments whose nodes are parts of one net makes Icarus re-evaluate the
// whole net at each change of any input; an always block runs once per time step.
// Used by plena's Matrix SRAM column selection, its accumulators' reads (plena_acc) and
// the host's MV_ACC / BMV_ACC entries (plena_matrix).
module mux_tree #(
    parameter integer WIDTH = 32,
    parameter integer N = 2,
    parameter integer LEVELS = (N > 1) ? $clog2(N) : 0,
    parameter integer SW = (LEVELS > 0) ? LEVELS : 1       // select width (bit 0 unused at 0 levels)
) (
    input  wire [N*WIDTH-1:0] in,
    input  wire [SW-1:0]      sel,
    output wire [WIDTH-1:0]   out
);
    localparam integer L = 1 << LEVELS;                   // entries, padded with +0
    initial if (N > L)
        $fatal(1, "mux_tree: N entries need more than LEVELS levels");
    reg [L*WIDTH-1:0] t;
    integer k, i;
    always @* begin
        t[N*WIDTH-1:0] = in;
        for (i = N; i < L; i = i + 1)                    // entries from N on: +0
            t[WIDTH*i +: WIDTH] = {WIDTH{1'b0}};
        for (k = 0; k < LEVELS; k = k + 1)
            for (i = 0; i < (L >> (k + 1)); i = i + 1)
                t[WIDTH*i +: WIDTH] = sel[k] ? t[WIDTH*(2*i + 1) +: WIDTH]
                                             : t[WIDTH*(2*i) +: WIDTH];
    end
    generate
        if (LEVELS == 0) begin : g_nosel
            wire unused_sel = ^sel;                         // one entry: no select
        end
    endgenerate
    assign out = t[0 +: WIDTH];
endmodule
