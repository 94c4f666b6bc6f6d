// coral_top: the coral scalar core with its ITCM and DTCM (one single-port SRAM bank
// each) and the host interface a system (or the testbench) drives:
//
//   host_en/host_we/host_sel/host_addr/host_wdata -> host_rdata (one cycle later):
//       word access to ITCM (sel 0), DTCM (sel 1), the integer (sel 2) or fp (sel 3)
//       registers, the vector registers' words (sel 2, address 0x10000 + reg * VLEN/32 + word),
//       allowed while the core is not running (the core owns the ports while it runs);
//   start (accepted while `ready`), end_pc, the budgets and `halt` in; `done`, how the
//       run stopped, counters and the fp/fixed-point CSRs out;
//   the retirement port (rt_*), for tracing, and the vector unit's DTCM writes (vst_*).
//
// The DTCM is VLEN/32 dual-port banks, word-interleaved (word w in bank w mod VLEN/32):
// port A serves the host and the scalar core, port B the vector unit, a beat of VLEN bits
// at any word-aligned address in one cycle.
//
// Parameters are the hardware configuration of isa/coral/hardware.toml (bytes).
module coral_top #(
    parameter integer ITCM_SIZE = 8192,
    parameter [31:0]  DTCM_BASE = 32'h0001_0000,
    parameter integer DTCM_SIZE = 65536,
    parameter integer VLEN      = 128,
    parameter integer VQ_DEPTH  = 8
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        host_en,
    input  wire        host_we,
    input  wire [1:0]  host_sel,
    input  wire [31:0] host_addr,
    input  wire [31:0] host_wdata,
    output reg  [31:0] host_rdata,
    input  wire        start,
    input  wire [31:0] end_pc,
    input  wire [63:0] max_retire,
    input  wire [63:0] max_cycles,
    input  wire        halt,
    output wire        ready,
    output wire        running,
    output wire        done,
    output wire [1:0]  stop,
    output wire [3:0]  err_code,
    output wire [31:0] err_pc,
    output wire [31:0] err_addr,
    output wire [63:0] err_cycle,
    output wire [63:0] cycles,
    output wire [63:0] retired,
    output wire [12*64-1:0] unit_busy,
    output wire [63:0] stall_full,
    output wire [63:0] stall_sync,
    output wire [$clog2(VLEN):0] vl,
    output wire [31:0] vtype,
    output wire [4:0]  fflags,
    output wire [2:0]  frm,
    output wire [1:0]  vxrm,
    output wire        vxsat,
    output wire        rt_valid,
    output wire [31:0] rt_pc,
    output wire [63:0] rt_cycle,
    output wire        rt_rd_we,
    output wire        rt_fd_we,
    output wire [4:0]  rt_rd,
    output wire [31:0] rt_rd_val,
    output wire        rt_st,
    output wire [31:0] rt_st_addr,
    output wire [2:0]  rt_st_size,
    output wire [31:0] rt_st_data,
    output wire        rt_csr,
    output wire [4:0]  rt_fpf,
    output wire        rt_vset,
    // the vector unit's DTCM writes (bank k's row written when its byte enables are set)
    output wire [VLEN/8-1:0] vst_we,
    output wire [VLEN/32*($clog2(DTCM_SIZE/4)-$clog2(VLEN/32))-1:0] vst_row,
    output wire [VLEN-1:0] vst_wdata,
    output wire [3:0]      vst_xwe,           // ... and the one through port A (an unaligned store's last word)
    output wire [$clog2(DTCM_SIZE/4)-1:0] vst_xword,
    output wire [31:0]     vst_xdata,
    // the vector unit's trace port (coral_vec)
    output wire [31:0] vt_s1seq,
    output wire [31:0] vt_s2seq,
    output wire        vt_we,
    output wire [4:0]  vt_reg,
    output wire [VLEN-1:0] vt_val,
    output wire [31:0] vt_marks,
    output wire [5:0]  vt_flags              // fp flags, bit 5 vxsat set
);
    localparam integer ITCM_WORDS = ITCM_SIZE / 4;
    localparam integer DTCM_WORDS = DTCM_SIZE / 4;
    localparam integer IA = $clog2(ITCM_WORDS);
    localparam integer DA = $clog2(DTCM_WORDS);
    localparam integer NB = VLEN / 32;               // DTCM banks, word-interleaved
    localparam integer LNB = $clog2(NB);
    localparam integer RA = DA - LNB;

    wire host = host_en && !running;
    wire host_i = host && host_sel == 2'd0;
    wire host_d = host && host_sel == 2'd1;
    wire host_x = host && host_sel[1];              // x (2) or f (3)

    wire          c_i_en, c_d_en;
    wire [IA-1:0] c_i_addr;
    wire [DA-1:0] c_d_addr;
    wire [3:0]    c_d_we;
    wire [31:0]   c_d_wdata, i_rdata, d_rdata, x_rdata;

    coral_sram #(.WORDS(ITCM_WORDS)) u_itcm (
        .clk(clk), .en(host_i | c_i_en), .we(host_i && host_we ? 4'hF : 4'h0),
        .addr(host_i ? host_addr[IA-1:0] : c_i_addr), .wdata(host_wdata), .rdata(i_rdata));

    // DTCM: NB dual-port banks, word w in bank w mod NB; port A for the host and the
    // scalar core (one word), port B for the vector unit (one word per bank: a beat)
    // (the vector unit's extra store word: the core does not use port A meanwhile)
    wire [3:0]       vx_we;
    wire [DA-1:0]    vx_word;
    wire [31:0]      vx_wdata;
    wire             vx = vx_we != 4'd0;
    wire [DA-1:0]    a_word = host_d ? host_addr[DA-1:0] : vx ? vx_word : c_d_addr;
    wire             v_clk;          // the vector unit's gated clock: port B's
    wire [NB-1:0]    v_en;
    wire [4*NB-1:0]  v_we;
    wire [RA*NB-1:0] v_addr;
    wire [32*NB-1:0] v_wdata, v_rdata, a_rdata;
    reg  [LNB-1:0]   a_bank_q;
    genvar gb;
    generate
        for (gb = 0; gb < NB; gb = gb + 1) begin : g_dtcm
            wire a_sel = a_word[LNB-1:0] == gb[LNB-1:0];
            coral_sram_dp #(.WORDS(DTCM_WORDS / NB)) u_bank (
                .a_clk(clk), .a_en((host_d | c_d_en | vx) && a_sel),
                .a_we(host_d ? (host_we ? 4'hF : 4'h0) : vx ? vx_we : c_d_we), .a_addr(a_word[DA-1:LNB]),
                .a_wdata(host_d ? host_wdata : vx ? vx_wdata : c_d_wdata), .a_rdata(a_rdata[32*gb +: 32]),
                .b_clk(v_clk), .b_en(v_en[gb]), .b_we(v_we[4*gb +: 4]), .b_addr(v_addr[RA*gb +: RA]),
                .b_wdata(v_wdata[32*gb +: 32]), .b_rdata(v_rdata[32*gb +: 32]));
        end
    endgenerate
    always @(posedge clk)
        if (host_d | c_d_en) a_bank_q <= a_word[LNB-1:0];
    assign d_rdata = a_rdata[32*a_bank_q +: 32];
    wire _unused_host = ^host_addr;    // the bits a word index needs depend on the sizes
    assign vst_we = v_we;
    assign vst_row = v_addr;
    assign vst_wdata = v_wdata;
    assign vst_xwe = vx_we;
    assign vst_xword = vx_word;
    assign vst_xdata = vx_wdata;

    coral_core #(.ITCM_WORDS(ITCM_WORDS), .DTCM_WORDS(DTCM_WORDS), .DTCM_BASE(DTCM_BASE),
                 .DTCM_SIZE(DTCM_SIZE), .VLEN(VLEN), .VQ_DEPTH(VQ_DEPTH)) u_core (
        .clk(clk), .rst(rst), .start(start), .end_pc(end_pc), .max_retire(max_retire),
        .max_cycles(max_cycles), .halt(halt), .ready(ready), .running(running), .done(done),
        .stop(stop), .err_code(err_code), .err_pc(err_pc), .err_addr(err_addr),
        .err_cycle(err_cycle), .cycles(cycles), .retired(retired), .unit_busy(unit_busy),
        .stall_full(stall_full), .stall_sync(stall_sync), .vl_o(vl), .vtype_o(vtype),
        .fflags(fflags), .frm(frm), .vxrm(vxrm), .vxsat(vxsat),
        .host_itcm(host_i), .i_en(c_i_en), .i_addr(c_i_addr), .i_rdata(i_rdata),
        .d_en(c_d_en), .d_we(c_d_we), .d_addr(c_d_addr), .d_wdata(c_d_wdata), .d_rdata(d_rdata),
        .v_clk(v_clk), .v_en(v_en), .v_we(v_we), .v_addr(v_addr), .v_wdata(v_wdata), .v_rdata(v_rdata),
        .vx_we(vx_we), .vx_word(vx_word), .vx_wdata(vx_wdata),
        .dbg_f(host_sel[0]), .dbg_we(host_x && host_we), .dbg_addr(host_addr[16:0]), .dbg_wdata(host_wdata),
        .dbg_rdata(x_rdata),
        .rt_valid(rt_valid), .rt_pc(rt_pc), .rt_cycle(rt_cycle), .rt_rd_we(rt_rd_we), .rt_fd_we(rt_fd_we), .rt_rd(rt_rd),
        .rt_rd_val(rt_rd_val), .rt_st(rt_st), .rt_st_addr(rt_st_addr), .rt_st_size(rt_st_size),
        .rt_st_data(rt_st_data), .rt_csr(rt_csr), .rt_fpf(rt_fpf), .rt_vset(rt_vset),
        .vt_s1seq(vt_s1seq), .vt_s2seq(vt_s2seq), .vt_we(vt_we), .vt_reg(vt_reg), .vt_val(vt_val),
        .vt_marks(vt_marks), .vt_flags(vt_flags));

    // The host's read data, one cycle after its request, like the SRAMs'.
    reg [1:0] rsel;
    reg [31:0] x_q;
    always @(posedge clk) begin
        rsel <= host_sel;
        x_q <= x_rdata;
    end
    always @(*)
        case (rsel)
            2'd0: host_rdata = i_rdata;
            2'd1: host_rdata = d_rdata;
            default: host_rdata = x_q;
        endcase
endmodule
