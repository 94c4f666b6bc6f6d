// aie_imem: instruction memory, IMEM_WORDS 32-bit words in eight word-interleaved
// single-port banks (bank = address mod 8), so one registered read returns the eight
// consecutive words from any address: a whole bundle (header and up to six operation
// words) per cycle. The host writes one word per cycle while the core is idle.
module aie_imem #(
    parameter integer IMEM_WORDS = 4096,
    parameter integer AW = 12
) (
    input  wire          clk,
    input  wire [AW-1:0] raddr,          // first word of the bundle to fetch
    output wire [255:0]  rdata,          // words raddr .. raddr+7, word k at [32k +: 32]
    input  wire          we,
    input  wire [AW-1:0] waddr,
    input  wire [31:0]   wdata
);
    localparam integer DEPTH = IMEM_WORDS / 8;
    reg [31:0] bank [0:7][0:DEPTH-1];
    reg [31:0] q [0:7];
    reg [2:0]  rot;
    integer j;
    reg [AW-1:0] a;

    always @(posedge clk) begin
        for (j = 0; j < 8; j = j + 1) begin
            a = raddr + AW'((j - {29'd0, raddr[2:0]}) & 7);   // the word of bank j in the window
            if (we && waddr[2:0] == 3'(j))
                bank[j][waddr[AW-1:3]] <= wdata;
            else
                q[j] <= bank[j][a[AW-1:3]];
        end
        rot <= raddr[2:0];
    end

    genvar k;
    generate
        for (k = 0; k < 8; k = k + 1) begin : g_out
            assign rdata[32*k +: 32] = q[(k + rot) & 7];
        end
    endgenerate
endmodule
