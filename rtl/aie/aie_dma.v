// aie_dma: the tile's DMA engine (isa/aie/dma.toml, the manual's "DMA"): two input and
// two output channels (in0, in1, out0, out1), each with a queue of DMA_QUEUE transfers,
// a descriptor table the host writes, its own external-memory port (valid/ready) and
// its own data-memory requester.
//
//   DMAIN/DMAOUT -> queue -> setup (DMA_SETUP cycles) -> beats -> ext port / data memory
//
// A transfer moves n0 x n1 x n2 16-bit words. A beat moves the next DMA_BW bytes of
// them in transfer order, across runs and planes (one-word runs gather eight words),
// one beat per cycle, ending early before a word that would take its rows past a span
// of four. Its external side is a request naming each word's address; its data-memory
// side one access of the consecutive rows from its lowest word's row, at most four
// (one per macro of a bank):
//  - input: the beat is a read request on the external port; its data comes back in
//    request order and is written into data memory in the cycle it arrives. The
//    transfer completes with its last beat's data (the port's read latency is
//    EXT_LATENCY, so that is EXT_LATENCY cycles after the last beat).
//  - output: the beat reads its bytes from data memory; the next cycle they go out as
//    a write request. The transfer completes at its last beat (its source has been
//    read); the run waits for the port's write acknowledgements.
// At completion the descriptor's release lock is released (core and DMA releases of one
// lock in one cycle add up) and the transfer leaves the queue.
//
// A channel starts a transfer in the first cycle it is idle and has one queued whose
// lock is taken, counting the cycle a DMAIN/DMAOUT issues as the first setup cycle of a
// transfer it queues on an idle channel: the core's push reaches the channel the same
// cycle.
//
// Locks (`acq`): a queued transfer whose descriptor names an acquire lock takes it
// (subtracts acq_n) once the lock holds acq_n and every transfer before it in its
// channel has taken its own; it may take it while the channel still runs an earlier
// transfer, and it starts when the channel is free. Each cycle the queued transfers try
// in channel order (in0, in1, out0, out1), each channel's in queue order, on the lock
// values of the cycle (the core's register, which has this cycle's completions'
// releases from the edge before); then, after a REL the core issues this cycle, those
// still waiting try again; then the transfer the core queues this cycle. That is the
// functional model's order (a transfer is scheduled at completions, at REL and when
// queued), and what the core's ACQ sees: lk_q, the locks after the first round (the DMA
// takes a lock before the core in the same cycle). lk_a is the locks after all of them.
// `quiet`: no transfer has its lock and is unfinished, and none takes one this cycle:
// nothing the DMA does can change a lock any more (the core's deadlock test).
// After an error (`halt`, from the cycle after the failing one) no transfer starts or
// takes its lock; started ones run to completion (their beats are under way).
//
// The core checks a transfer's ranges when it issues DMAIN/DMAOUT: q_err says whether
// the selected descriptor with the offsets runs off external memory (1) or data memory
// (2), q_eaddr the address the model names.
module aie_dma #(
`include "aie_params.vh"
) (
    input  wire            clk,
    input  wire            start,             // a run begins: queues and counters clear
    input  wire            halt,              // the run has stopped with an error: no
                                              // transfer starts or takes its lock any more
    // host: descriptor table, word f of descriptor b at address 16*b + f
    input  wire            bd_we,
    input  wire [7:0]      bd_addr,
    input  wire [31:0]     bd_wdata,
    // core: the DMAIN/DMAOUT at issue
    input  wire            q_out,             // DMAOUT
    input  wire            q_ch,
    input  wire [3:0]      q_bd,
    input  wire signed [31:0] q_ra,           // external offset, words
    input  wire signed [31:0] q_rb,           // data-memory offset, bytes
    input  wire            q_push,            // the operation takes effect this cycle
    output wire            q_full,
    output reg  [1:0]      q_err,
    output reg  signed [63:0] q_eaddr,
    // locks: the core's values, its REL of this cycle; the values after the DMA's
    // acquires (lk_q: of queued transfers, before the REL; lk_a: all, the REL included)
    input  wire [95:0]     lk,
    input  wire            core_rel_v,
    input  wire [3:0]      core_rel_l,
    input  wire [5:0]      core_rel_n,
    output reg  [95:0]     lk_q,
    output reg  [95:0]     lk_a,
    output wire            quiet,
    // lock releases of this cycle, per channel
    output wire [3:0]      rel_v,
    output wire [15:0]     rel_l,
    output wire [23:0]     rel_n,
    output wire            idle,              // nothing moving or unacknowledged, none can start
    output wire            empty,             // no transfer left to complete
    output reg  [143:0]    pend,              // per lock (9 bits): what queued transfers will release
    output wire [255:0]    busy,              // cycles each channel spent in setup or beats
    // data memory: one requester per channel
    output wire [3:0]      dm_v,
    output wire [4*RW-1:0] dm_row,
    output wire [11:0]     dm_nrows,
    output wire [3:0]      dm_we,
    output wire [511:0]    dm_be,
    output wire [4095:0]   dm_wdata,
    input  wire [4095:0]   dm_rdata,
    // external memory: one port per channel (addresses in 16-bit words)
    output wire [3:0]      m_valid,
    input  wire [3:0]      m_ready,
    output wire [3:0]      m_write,
    output wire [4*DMA_BW*16-1:0] m_addr,     // per channel, each word's address (a gather)
    output wire [31:0]     m_len,             // words in this beat
    output wire [4*BB-1:0] m_wdata,
    input  wire [3:0]      r_valid,           // read data, in request order
    input  wire [4*BB-1:0] r_data,
    input  wire [3:0]      b_valid,           // write acknowledgement
    output wire            wide               // a beat's words span more than four rows (never)
);
    localparam integer RW = $clog2(DM_SIZE) - 5;
    localparam integer BB = DMA_BW * 8;             // bits of a beat
    localparam integer BWW = DMA_BW / 2;            // words of a beat
    localparam integer QW = $clog2(DMA_QUEUE + 1);
    localparam integer FD = 1 << $clog2(EXT_LATENCY + 4);   // beats in flight per channel
    localparam integer FW = $clog2(FD);

    assign m_write = 4'b1100;

    // --- descriptor table: ext loc n0 n1 s1 n2 s2 ls1 ls2 rel rel_n acq acq_n -----------
    // 16 descriptors of 16 words (three spare): the host writes a word, the queueing
    // DMAIN/DMAOUT and each channel's take read a whole descriptor (five read ports)
    reg [511:0] bd [0:15];
    always @(posedge clk) if (bd_we) bd[bd_addr[7:4]][32*bd_addr[3:0] +: 32] <= bd_wdata;
    wire [511:0] qd = bd[q_bd];

    function automatic signed [63:0] sx(input [31:0] v);
        sx = 64'($signed(v));
    endfunction
    function automatic signed [63:0] lo_of(input signed [63:0] n, input signed [63:0] s);
        lo_of = ((n - 1) * s < 0) ? (n - 1) * s : 64'sd0;
    endfunction
    function automatic signed [63:0] hi_of(input signed [63:0] n, input signed [63:0] s);
        hi_of = ((n - 1) * s > 0) ? (n - 1) * s : 64'sd0;
    endfunction

    // --- the range check at issue ------------------------------------------------------
    reg signed [63:0] elo, ehi, llo, lhi, n0q, n1q, n2q;
    always @* begin
        n0q = sx(qd[64 +: 32]); n1q = sx(qd[96 +: 32]); n2q = sx(qd[160 +: 32]);
        elo = sx(qd[31:0]) + 64'(q_ra) + lo_of(n1q, sx(qd[128 +: 32])) + lo_of(n2q, sx(qd[192 +: 32]));
        ehi = sx(qd[31:0]) + 64'(q_ra) + hi_of(n1q, sx(qd[128 +: 32])) + hi_of(n2q, sx(qd[192 +: 32])) + n0q - 1;
        llo = sx(qd[32 +: 32]) + 64'(q_rb) + lo_of(n1q, sx(qd[224 +: 32])) + lo_of(n2q, sx(qd[256 +: 32]));
        lhi = sx(qd[32 +: 32]) + 64'(q_rb) + hi_of(n1q, sx(qd[224 +: 32])) + hi_of(n2q, sx(qd[256 +: 32])) + 2 * n0q - 1;
        q_err = 2'd0;
        q_eaddr = 64'sd0;
        if (elo < 0 || ehi >= EXT_SIZE) begin q_err = 2'd1; q_eaddr = (elo < 0) ? elo : ehi; end
        else if (llo < 0 || lhi >= DM_SIZE || q_rb[0]) begin q_err = 2'd2; q_eaddr = llo; end
    end

    wire [1:0] q_c = {q_out, q_ch};               // channel number 0..3
    wire [3:0] qn_full;
    assign q_full = qn_full[q_c];

    wire [3:0] ch_idle, ch_empty, ch_wide;
    assign wide = |ch_wide;
    wire [8:0] ch_pend [0:3][0:15];
    integer pl, pc;
    always @* begin
        for (pl = 0; pl < 16; pl = pl + 1) begin
            pend[9*pl +: 9] = 9'd0;
            for (pc = 0; pc < 4; pc = pc + 1) pend[9*pl +: 9] = pend[9*pl +: 9] + ch_pend[pc][pl];
        end
    end
    assign idle = &ch_idle;
    assign empty = &ch_empty;

    // --- lock acquires (see the top) ---------------------------------------------------
    // aq_all: each channel's waiting transfers from its head, {acq?, lock, acq_n} each
    localparam integer AQ = 11;
    wire [4*AQ*DMA_QUEUE-1:0] aq_all;
    wire [4*QW-1:0] wcnt_all, wacq_all;
    wire [3:0] ch_quiet;
    reg  [4*QW-1:0] gain1, gain2, from2;
    reg  [95:0] lk_r, lv2;
    reg  push_acq;
    wire [AQ-1:0] push_aq = {qd[352 +: 5], qd[384 +: 6]};

    // One round: each channel's waiting transfers from position from[c] of its queue on
    // take their locks from `locks` in queue order, until one cannot (or none, `off`).
    // Returns {the locks after, each channel's count of transfers that took theirs}.
    function automatic [96+4*QW-1:0] acquire_round(
            input [95:0] locks, input [4*QW-1:0] from, input off,
            input [4*AQ*DMA_QUEUE-1:0] aq, input [4*QW-1:0] wcnt);
        reg [95:0] lv;
        reg [4*QW-1:0] gain;
        reg blk;
        reg [AQ-1:0] e;
        integer rc, rj;
        lv = locks;
        gain = '0;
        for (rc = 0; rc < 4; rc = rc + 1) begin
            blk = off;
            // (the queue's scan only when it has a transfer at `from` on: the same
            // result, but the simulator skips the scan in the cycles, most, without one)
            if (!off && from[QW*rc +: QW] < wcnt[QW*rc +: QW]) begin
                for (rj = 0; rj < DMA_QUEUE; rj = rj + 1) begin
                    e = aq[AQ*(DMA_QUEUE*rc + rj) +: AQ];
                    if (!blk && QW'(rj) >= from[QW*rc +: QW] && QW'(rj) < wcnt[QW*rc +: QW]) begin
                        if (!e[10]) gain[QW*rc +: QW] = gain[QW*rc +: QW] + 1'b1;
                        else if (lv[6*e[9:6] +: 6] >= e[5:0]) begin
                            lv[6*e[9:6] +: 6] = lv[6*e[9:6] +: 6] - e[5:0];
                            gain[QW*rc +: QW] = gain[QW*rc +: QW] + 1'b1;
                        end else blk = 1'b1;
                    end
                end
            end
        end
        acquire_round = {lv, gain};
    endfunction

    // the queued transfers on this cycle's locks; after the core's REL, those still
    // waiting; then the push (two blocks: the core's REL depends on lk_q). None after an
    // error (`halt`).
    always @* {lk_q, gain1} = acquire_round(lk, wacq_all, halt, aq_all, wcnt_all);
    integer ac;
    always @* begin
        lk_r = lk_q;
        if (core_rel_v) lk_r[6*core_rel_l +: 6] = lk_q[6*core_rel_l +: 6] + core_rel_n;
        for (ac = 0; ac < 4; ac = ac + 1)
            from2[QW*ac +: QW] = wacq_all[QW*ac +: QW] + gain1[QW*ac +: QW];
        {lv2, gain2} = acquire_round(lk_r, from2, halt || !core_rel_v, aq_all, wcnt_all);
        push_acq = 1'b0;
        if (q_push && from2[QW*q_c +: QW] + gain2[QW*q_c +: QW] == wcnt_all[QW*q_c +: QW]) begin
            if (!push_aq[10]) push_acq = 1'b1;
            else if (lv2[6*push_aq[9:6] +: 6] >= push_aq[5:0]) begin
                lv2[6*push_aq[9:6] +: 6] = lv2[6*push_aq[9:6] +: 6] - push_aq[5:0];
                push_acq = 1'b1;
            end
        end
        lk_a = lv2;
    end
    assign quiet = &ch_quiet;

    genvar c, gk;
    generate
        for (c = 0; c < 4; c = c + 1) begin : g_ch
            localparam bit OUT = (c >= 2);
            wire push = q_push && (q_c == 2'(c));

            // transfers not completed; waiting ones (not started) in a FIFO that shifts
            // (entry 0 the head: the lock acquires look at every entry, in order)
            reg [QW-1:0] qn;
            reg [31:0] w_ext [0:DMA_QUEUE-1];
            reg [31:0] w_loc [0:DMA_QUEUE-1];
            reg [3:0]  w_bd  [0:DMA_QUEUE-1];
            reg [AQ-1:0] w_aq [0:DMA_QUEUE-1];
            reg [QW-1:0] w_cnt;
            reg [QW-1:0] w_acq;                  // of the waiting ones, from the head, those holding their lock
            wire [QW-1:0] acq_now = gain1[QW*c +: QW] + gain2[QW*c +: QW];
            wire push_ok = push && push_acq;
            wire pop, put;                        // the head starts; the push joins the FIFO
            wire [QW-1:0] put_at = w_cnt - QW'(pop);
            assign wcnt_all[QW*c +: QW] = w_cnt;
            assign wacq_all[QW*c +: QW] = w_acq;
            for (gk = 0; gk < DMA_QUEUE; gk = gk + 1) begin : g_aq
                assign aq_all[AQ*(DMA_QUEUE*c + gk) +: AQ] = w_aq[gk];
            end
            // no transfer holding its lock is unfinished, none takes one this cycle
            // (after an error, one holding its lock but not started never starts)
            assign ch_quiet[c] = (qn == w_cnt) && (halt || w_acq == '0) && (gain1[QW*c +: QW] == '0);
            assign qn_full[c] = (qn >= QW'(DMA_QUEUE));
            assign ch_empty[c] = (qn == 0);
            // releases its unfinished transfers will make, per lock
            reg [8:0] rp [0:15];
            for (gk = 0; gk < 16; gk = gk + 1) begin : g_pend
                assign ch_pend[c][gk] = rp[gk];
            end
            wire [31:0] push_rel = qd[288 +: 32];
            wire [31:0] push_reln = qd[320 +: 32];

            // the running transfer
            reg        act;
            reg [31:0] setup_left;
            reg [31:0] t_n0, t_n1, t_n2, t_s1, t_s2, t_ls1, t_ls2;
            reg [4:0]  t_rel;                          // bit 4: a release lock
            reg [5:0]  t_reln;
            reg [31:0] rem;                            // words not yet in a beat
            reg [31:0] i0, i1, i2;                     // position of the next word
            reg [31:0] e_run, e_pl;                    // external word address of its run, plane
            reg [31:0] l_run, l_pl;                    // data-memory byte address of its run, plane
            reg [63:0] nbusy;
            assign busy[64*c +: 64] = nbusy;

            // take: the head of the FIFO, or the push of this cycle, once it holds its lock
            wire have = (w_cnt != 0) ? (w_acq != '0 || acq_now != '0) : push_ok;
            wire [3:0]  tk_bd  = (w_cnt != 0) ? w_bd[0]  : q_bd;
            wire [31:0] tk_ext = (w_cnt != 0) ? w_ext[0] : 32'(sx(qd[31:0]) + 64'(q_ra));
            wire [31:0] tk_loc = (w_cnt != 0) ? w_loc[0] : 32'(sx(qd[32 +: 32]) + 64'(q_rb));
            wire take = !act && have && !halt;           // (none after an error)
            assign pop = take && w_cnt != 0;
            assign put = push && !(take && w_cnt == 0);
            wire [511:0] td = bd[tk_bd];

            // this beat: the next words in transfer order, across runs and planes (the
            // address generator steps up to BWW words a cycle), at most min(BWW, rem) and
            // only while their rows span at most four: bw of them. Its data-memory side
            // is one window of consecutive rows from the lowest word's row.
            wire [7:0] bw;                     // (<= BWW; m_len is 8 bits)
            wire last_beat = (rem <= bw);
            wire [31:0] n_i0, n_i1, n_i2, n_er, n_ep, n_lr, n_lp, g_min, g_max;
            wire [BWW*32-1:0] g_ext;                   // the words' external addresses
            wire [BWW*7-1:0]  g_off;                   // their byte offsets in the window
            aie_dma_agen #(.BWW(BWW)) u_agen (
                .i0(i0), .i1(i1), .i2(i2), .e_run(e_run), .e_pl(e_pl), .l_run(l_run), .l_pl(l_pl),
                .rem(rem), .t_n0(t_n0), .t_n1(t_n1), .t_s1(t_s1), .t_s2(t_s2), .t_ls1(t_ls1), .t_ls2(t_ls2),
                .n_i0(n_i0), .n_i1(n_i1), .n_i2(n_i2), .n_er(n_er), .n_ep(n_ep), .n_lr(n_lr), .n_lp(n_lp),
                .g_min(g_min), .g_max(g_max), .bw(bw), .g_ext(g_ext), .g_off(g_off));
            wire [31:0] g_rows = (g_max >> 5) - (g_min >> 5) + 1;
            // output: the bytes read last cycle wait for the port in `hold`
            reg        wv;                     // a write is waiting for the port
            reg [BWW*32-1:0] w_addr;
            reg [31:0] w_len;
            reg        w_fresh;                // its data is on dm_rdata this cycle
            wire [BB-1:0] w_now;               // the write's words
            wire w_go = wv && m_ready[c];
            wire ch_clk;                       // the channel's gated clock (below)
            wire beat = act && setup_left == 0 && (OUT ? (!wv || w_go) : m_ready[c]);
            // a window of more than four rows would need one macro twice: a beat ends
            // before that, so this is only a check of the address generator
            assign ch_wide[c] = beat && g_rows > 4;
            // its words, in output channels only (an input channel has no write stage)
            if (OUT) begin : g_wdata
                reg [BWW*7-1:0] w_offs;
                reg [BB-1:0] w_data, now;
                reg [6:0] wo;
                wire [1023:0] win = dm_rdata[1024*c +: 1024];
                integer wj;
                // each word is the window's bytes at its offset and the next (none past the
                // window's end): two byte selects, not a shift of the whole window (which the
                // simulator evaluated for every word at every edge, w_fresh or not)
                always @* begin
                    wj = 0;
                    wo = 7'd0;
                    now = w_data;
                    if (w_fresh)
                        for (wj = 0; wj < BWW; wj = wj + 1) begin
                            wo = w_offs[7*wj +: 7];
                            now[16*wj +: 8] = win[8*wo +: 8];
                            now[16*wj + 8 +: 8] = (wo == 7'd127) ? 8'd0 : win[8*wo + 8 +: 8];
                        end
                end
                assign w_now = now;
                always @(posedge ch_clk)
                    if (!start) begin
                        if (beat) w_offs <= g_off;
                        if (wv && !w_go) w_data <= now;
                    end
            end else begin : g_nowdata
                assign w_now = '0;
            end

            // in flight: beats awaiting data (input) or acknowledgement (output)
            reg [RW-1:0] f_row [0:FD-1];
            reg [2:0]  f_nr [0:FD-1];
            reg [BWW*7-1:0] f_off [0:FD-1];
            reg [5:0]  f_len [0:FD-1];
            reg        f_last [0:FD-1];
            reg [4:0]  f_rel [0:FD-1];
            reg [5:0]  f_reln [0:FD-1];
            reg [FW-1:0] f_head, f_tail;
            reg [FW:0]   f_cnt, f_cnt_next;
            reg [31:0]   w_out;                // output writes not yet acknowledged
            assign ch_idle[c] = ch_quiet[c] && !act && (f_cnt == 0) && !wv && (w_out == 0);
            // The channel's registers change only at a run's start, with a push, while a
            // transfer is queued, runs, has beats in flight or writes unacknowledged, or
            // when the port answers; at any other edge they keep their values, so their
            // clock is gated then (and Verilator does not evaluate the address generator,
            // the ports and the queue at every edge of a core that moves no data).
            wire ch_en = start || push || act || (qn != '0) || (w_cnt != '0) || (f_cnt != '0)
                         || wv || w_fresh || (w_out != 32'd0) || r_valid[c] || b_valid[c];
            icg u_gate (.clk(clk), .en(ch_en), .gclk(ch_clk));

            // the transfer a beat of this cycle is part of completes: release
            wire in_done = !OUT && r_valid[c] && f_last[f_head];
            wire out_done = OUT && beat && last_beat;
            assign rel_v[c] = OUT ? (out_done && t_rel[4]) : (in_done && f_rel[f_head][4]);
            assign rel_l[4*c +: 4] = OUT ? t_rel[3:0] : f_rel[f_head][3:0];
            assign rel_n[6*c +: 6] = OUT ? t_reln : f_reln[f_head];

            // ports
            reg p_mv, p_dv, p_dw;
            reg [BWW*32-1:0] p_ma;
            reg [7:0] p_ml;
            reg [BB-1:0] p_mw;
            reg [RW-1:0] p_dr;
            reg [2:0] p_dn;
            reg [127:0] p_db;
            reg [1023:0] p_dd;
            assign m_valid[c] = p_mv; assign m_addr[BWW*32*c +: BWW*32] = p_ma; assign m_len[8*c +: 8] = p_ml;
            assign m_wdata[BB*c +: BB] = p_mw; assign dm_v[c] = p_dv; assign dm_row[RW*c +: RW] = p_dr;
            assign dm_nrows[3*c +: 3] = p_dn; assign dm_we[c] = p_dw; assign dm_be[128*c +: 128] = p_db;
            assign dm_wdata[1024*c +: 1024] = p_dd;
            // (each always block its own loop index, set first: an index assigned only under
            // a condition is a latch to synthesis, and one shared by two blocks two drivers)
            integer pj;
            always @* begin
                pj = 0;
                p_mv = 1'b0; p_ma = '0; p_ml = 8'd0;
                p_mw = '0;
                p_dv = 1'b0; p_dr = '0; p_dn = 3'd1; p_dw = 1'b0;
                p_db = 128'd0; p_dd = 1024'd0;
                if (!OUT) begin
                    p_mv = act && setup_left == 0;
                    p_ma = g_ext;
                    p_ml = 8'(bw);
                    if (r_valid[c]) begin          // a beat's data lands
                        p_dv = 1'b1; p_dw = 1'b1;
                        p_dr = f_row[f_head];
                        p_dn = f_nr[f_head];
                        for (pj = 0; pj < BWW; pj = pj + 1)
                            if (6'(pj) < f_len[f_head]) begin
                                p_db = p_db | (128'd3 << f_off[f_head][7*pj +: 7]);
                                p_dd = p_dd | (1024'(r_data[BB*c + 16*pj +: 16]) << (8 * f_off[f_head][7*pj +: 7]));
                            end
                    end
                end else begin
                    p_mv = wv;
                    p_ma = w_addr;
                    p_ml = 8'(w_len);
                    p_mw = w_now & ((BB'(1) << (16 * w_len)) - BB'(1));
                    if (beat) begin                // a beat reads its bytes
                        p_dv = 1'b1;
                        p_dr = RW'(g_min >> 5);
                        p_dn = 3'(g_rows);
                    end
                end
            end

            always @* begin
                f_cnt_next = f_cnt;
                if (!OUT && beat) f_cnt_next = f_cnt_next + 1'b1;
                if (!OUT && r_valid[c]) f_cnt_next = f_cnt_next - 1'b1;
            end

            integer wk;
            always @(posedge ch_clk) begin
                wk = 0;
                if (start) begin
                    qn <= '0; w_cnt <= '0; w_acq <= '0; act <= 1'b0;
                    f_head <= '0; f_tail <= '0; f_cnt <= '0; wv <= 1'b0; w_out <= 32'd0;
                    nbusy <= 64'd0; w_fresh <= 1'b0;
                    for (pl = 0; pl < 16; pl = pl + 1) rp[pl] <= 9'd0;
                end else begin
                    for (pl = 0; pl < 16; pl = pl + 1)
                        rp[pl] <= rp[pl] + ((push && push_rel[4] && push_rel[3:0] == 4'(pl)) ? 9'(push_reln[5:0]) : 9'd0)
                                         - ((rel_v[c] && rel_l[4*c +: 4] == 4'(pl)) ? 9'(rel_n[6*c +: 6]) : 9'd0);
                    f_cnt <= f_cnt_next;
                    qn <= qn + QW'(push) - QW'(in_done || out_done);
                    // queue the push unless it is taken directly
                    for (wk = 0; wk < DMA_QUEUE; wk = wk + 1) begin
                        if (pop && wk < DMA_QUEUE - 1) begin
                            w_ext[wk] <= w_ext[(wk + 1) % DMA_QUEUE]; w_loc[wk] <= w_loc[(wk + 1) % DMA_QUEUE];
                            w_bd[wk] <= w_bd[(wk + 1) % DMA_QUEUE]; w_aq[wk] <= w_aq[(wk + 1) % DMA_QUEUE];
                        end
                        if (put && put_at == QW'(wk)) begin
                            w_ext[wk] <= 32'(sx(qd[31:0]) + 64'(q_ra));
                            w_loc[wk] <= 32'(sx(qd[32 +: 32]) + 64'(q_rb));
                            w_bd[wk] <= q_bd;
                            w_aq[wk] <= push_aq;
                        end
                    end
                    w_cnt <= w_cnt + QW'(put) - QW'(pop);
                    w_acq <= w_acq + acq_now + QW'(push_ok && !(take && w_cnt == 0)) - QW'(pop);
                    if (act || take) nbusy <= nbusy + 64'd1;
                    if (take) begin
                        act <= 1'b1;
                        setup_left <= 32'(DMA_SETUP - 1);
                        t_n0 <= td[64 +: 32]; t_n1 <= td[96 +: 32]; t_s1 <= td[128 +: 32]; t_n2 <= td[160 +: 32];
                        t_s2 <= td[192 +: 32]; t_ls1 <= td[224 +: 32]; t_ls2 <= td[256 +: 32];
                        t_rel <= td[288 +: 5]; t_reln <= td[320 +: 6];
                        rem <= td[64 +: 32] * td[96 +: 32] * td[160 +: 32];
                        i0 <= 32'd0; i1 <= 32'd0; i2 <= 32'd0;
                        e_run <= tk_ext; e_pl <= tk_ext;
                        l_run <= tk_loc; l_pl <= tk_loc;
                    end else if (act && setup_left != 0) begin
                        setup_left <= setup_left - 32'd1;
                    end
                    if (beat) begin
                        if (!OUT) begin
                            f_row[f_tail] <= RW'(g_min >> 5); f_nr[f_tail] <= 3'(g_rows);
                            f_off[f_tail] <= g_off; f_len[f_tail] <= 6'(bw); f_last[f_tail] <= last_beat;
                            f_rel[f_tail] <= t_rel; f_reln[f_tail] <= t_reln;
                            f_tail <= f_tail + 1'b1;
                        end
                        rem <= rem - bw;
                        i0 <= n_i0; i1 <= n_i1; i2 <= n_i2;
                        e_run <= n_er; e_pl <= n_ep; l_run <= n_lr; l_pl <= n_lp;
                        if (last_beat) act <= 1'b0;
                    end
                    if (!OUT && r_valid[c]) f_head <= f_head + 1'b1;
                    if (OUT) begin
                        // the write stage: filled by a beat, emptied by the port
                        if (beat) begin
                            wv <= 1'b1; w_addr <= g_ext; w_len <= bw;
                        end else if (w_go) wv <= 1'b0;
                        w_fresh <= beat;
                        w_out <= w_out + 32'(w_go) - 32'(b_valid[c]);
                    end
                end
            end
        end
    endgenerate
endmodule
