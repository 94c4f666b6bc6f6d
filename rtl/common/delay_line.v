// delay_line: N register stages carrying a pipelined unit's result (valid, the number of
// the register it will write, the value) towards its write-back. kill[t] says a younger
// write to register t lands before this one would: an entry for t is dropped as it
// moves into the next stage, so the older result never overwrites the younger. A
// stage's tag and payload load only when an entry enters it, so an idle line does not
// toggle. Stage 1 loads from in_*; stage N is the line's output.
// `pre_*` is what stage N loads at the next edge (stage N-1, or the input when N = 1):
// a last stage that does more than hold (aie_mac's accumulate) latches its operands
// from there. Used by aie_mac, aie_reduce and aie_pwl (their compute stages included:
// a stage of a unit's pipeline is a line of one).
module delay_line #(
    parameter integer N = 1,              // stages, at least 1
    parameter integer TW = 3,             // register-number bits
    parameter integer W = 32              // payload bits
) (
    input  wire                clk,
    input  wire                rst,
    input  wire                in_v,
    input  wire [TW-1:0]       in_t,
    input  wire [W-1:0]        in_p,
    input  wire [(1<<TW)-1:0]  kill,
    output wire [N:1]          v,         // each stage holds an entry
    output wire [TW-1:0]       out_t,     // stage N
    output wire [W-1:0]        out_p,
    output wire                pre_v,     // entering stage N at the next edge
    output wire [TW-1:0]       pre_t,
    output wire [W-1:0]        pre_p
);
    reg          sv [1:N];
    reg [TW-1:0] st [1:N];
    reg [W-1:0]  sp [1:N];
    integer j;
    always @(posedge clk) begin
        if (rst) begin
            for (j = 1; j <= N; j = j + 1) sv[j] <= 1'b0;
        end else begin
            for (j = N; j > 1; j = j - 1) begin
                sv[j] <= sv[j-1] && !kill[st[j-1]];
                if (sv[j-1]) begin st[j] <= st[j-1]; sp[j] <= sp[j-1]; end
            end
            sv[1] <= in_v && !kill[in_t];
            if (in_v) begin st[1] <= in_t; sp[1] <= in_p; end
        end
    end

    genvar g;
    generate
        for (g = 1; g <= N; g = g + 1) begin : g_v
            assign v[g] = sv[g];
        end
        if (N == 1) begin : g_pre_in
            assign pre_v = in_v;
            assign pre_t = in_t;
            assign pre_p = in_p;
        end else begin : g_pre_stage
            assign pre_v = sv[N-1];
            assign pre_t = st[N-1];
            assign pre_p = sp[N-1];
        end
    endgenerate
    assign out_t = st[N];
    assign out_p = sp[N];
endmodule
