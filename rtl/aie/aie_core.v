// aie_core: the aie tile's core (isa/aie): bundle fetch and decode, the interlocked
// issue stage, the scalar and move units, the three address generators (two loads, one
// store) with post-modify, hardware loops, locks, and the counters.
//
// Pipeline. The instruction memory is read with the address of the next bundle the
// cycle before it issues (aie_imem returns a whole bundle per read), so a taken loop
// back costs no cycle. A bundle issues when every register it reads is ready and no
// result it writes would land before an older result of the same register; the
// scoreboard holds, per register, the cycles until its pending result is readable
// (loaded from the latency parameter of the writing operation's timing class, counted
// down every clock). Issue reads all operands at once, so an operation never sees a
// result of its own bundle. Scalar, move and post-modify results are written at the
// issue edge; load data comes from the data memory the cycle after the access and is
// written then; the scoreboard keeps readers away until the class latency is over.
//
// Memory accesses of one bundle that start in one data-memory bank are serialised, one
// per cycle (slot order: ld0, ld1, st; loads see the bytes from before the bundle's
// store), holding the issue stage for the extra cycles (stall cause bank_conflict).
// A DMA beat wins a data-memory port it shares with a core access in one cycle
// (aie_dm's `core_wait`): the core's accesses of that cycle wait (stall cause
// dma_port). A bundle whose first accesses wait does not issue; a later access of a
// bank-conflicting bundle that waits is held, and the scoreboard with it (no countdown
// while the memory stage is held), so a held load is not read before it lands.
//
// The cycle counter counts clock edges from `start` (the first bundle issues in cycle
// 0) until the core has nothing left to issue and every scoreboard entry has drained.
module aie_core #(
`include "aie_params.vh"
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          start,
    input  wire [31:0]   prog_len,        // program length in words
    input  wire [63:0]   max_retire,      // bundle budget
    input  wire [63:0]   max_cycles,      // cycle budget of the run
    input  wire          halt_req,        // host: stop before the next bundle
    output reg           done,            // the run is over and every write has landed
    // instruction memory read port
    output wire [IAW-1:0] imem_raddr,
    input  wire [255:0]  imem_rdata,
    // data memory: ld0, ld1, st
    output reg  [2:0]    dm_v,
    output reg  [3*RW-1:0] dm_row,
    output reg  [8:0]    dm_nrows,
    output reg  [2:0]    dm_we,
    output wire [383:0]  dm_be,           // (only the store unit's lane is not zero)
    output wire [3071:0] dm_wdata,
    input  wire [3071:0] dm_rdata,
    output reg  [2:0]    dm_cand,         // this cycle's accesses, before arbitration
    input  wire          dm_wait,         // a DMA beat holds a port one of them needs
    // DMA (aie_dma): the DMAIN/DMAOUT at issue, its checks, and lock releases
    output wire          q_out,
    output wire          q_ch,
    output wire [3:0]    q_bd,
    output wire signed [31:0] q_ra,
    output wire signed [31:0] q_rb,
    output wire          q_push,
    input  wire          q_full,
    input  wire [1:0]    q_err,
    input  wire signed [63:0] q_eaddr,
    input  wire [3:0]    rel_v,
    input  wire [15:0]   rel_l,
    input  wire [23:0]   rel_n,
    // locks: ours to the DMA, our REL of this cycle, and the values after the DMA's
    // acquires of this cycle (lk_q: before the REL, what ACQ and REL see; lk_a: all)
    output wire [95:0]   lk_o,
    output wire          core_rel_v,
    output wire [3:0]    core_rel_l,
    output wire [5:0]    core_rel_n,
    input  wire [95:0]   lk_q,
    input  wire [95:0]   lk_a,
    input  wire          dma_quiet,         // the DMA can change no lock any more
    output wire          dma_halt,          // the run failed: the DMA starts nothing more
    input  wire          dma_idle,          // nothing moving or unacknowledged, none can start
    input  wire          dma_empty,         // no transfer left to complete (release)
    input  wire [143:0]  dma_pend,          // per lock: what unfinished transfers will release
    input  wire [255:0]  dma_busy,
    input  wire          dm_collide,
    // host register read: 32-bit words (see the address map at hr_data)
    input  wire [11:0]   hr_addr,
    output reg  [31:0]   hr_data,
    // retirement trace: a bundle issued
    output reg           rt_valid,
    output reg  [63:0]   rt_index,
    output reg  [31:0]   rt_bundle,
    output reg  [63:0]   rt_cycle
);
`include "aie_isa.vh"
    localparam integer IAW = $clog2(IMEM_WORDS);
    localparam integer RW = $clog2(DM_SIZE) - 5;
    localparam integer BANK_SHIFT = $clog2(DM_SIZE / DM_BANKS);
    localparam integer SPW = $clog2(LOOP_DEPTH + 1);
    localparam integer LW = (LOOP_DEPTH > 1) ? $clog2(LOOP_DEPTH) : 1;
    // Scoreboard units: r, p, m, g, x, acc (numbered as the model's flat units).
    localparam integer U_R = 0, U_P = U_R + NUM_R, U_M = U_P + NUM_P, U_G = U_M + NUM_M,
                       U_X = U_G + NUM_G, U_ACC = U_X + NUM_X, NU = U_ACC + NUM_ACC;
    // Error codes (simulators/aie_rtl/backend.py).
    localparam [3:0] E_NONE = 0, E_RANGE = 1, E_ALIGN = 2, E_LOOPR = 3, E_DEEP = 4, E_REL = 5,
                     E_DEADLOCK = 6, E_BUDGET = 7, E_CYCLES = 8, E_HALT = 9, E_ILLEGAL = 10,
                     E_UNSUPPORTED = 11, E_DMAEXT = 12, E_DMADM = 13, E_DMAREL = 14,
                     E_STUCK = 15;
    // Slots.
    localparam integer S_LD0 = 0, S_LD1 = 1, S_ST = 2, S_ALU = 3, S_VEC = 4, S_MV = 5;

    // --- architectural state ---------------------------------------------------------
    reg  signed [31:0] r [0:NUM_R-1];
    reg  signed [31:0] p [0:NUM_P-1];
    reg  signed [31:0] m [0:NUM_M-1];
    reg  signed [31:0] g [0:NUM_G-1][0:6];      // INC N1 J1 N2 J2 C1 C2
    reg  [511:0]       x [0:NUM_X-1];
    reg  [1023:0]      acc [0:NUM_ACC-1];
    reg  [5:0]         lk [0:NUM_LOCK-1];
    reg  [1:0]         rm;
    reg  [IAW:0]       lp_pc [0:LOOP_DEPTH-1];
    reg  [31:0]        lp_b  [0:LOOP_DEPTH-1];
    reg  [31:0]        lp_n  [0:LOOP_DEPTH-1];
    reg  [SPW-1:0]     sp;

    // --- control ---------------------------------------------------------------------
    reg         running, stopped, fetched, failed;
    reg  [IAW:0] pc;                 // word address of the bundle in `imem_rdata`
    reg  [31:0] bno;                 // its bundle number
    reg  [63:0] cyc, retired;
    reg  [4:0]  rdy [0:NU-1];
    // per accumulator: cycles until a multiply may accumulate onto it (ACC_FORWARD
    // after a multiply, the latency after any other write)
    reg  [4:0]  mrdy [0:NUM_ACC-1];
    reg  [1:0]  stop_kind;           // 0 end, 1 HALT, 2 error
    reg  [3:0]  err_code;
    reg  [2:0]  err_slot;            // slot of the failing operation, 7: none
    reg  [31:0] err_b;
    reg  [63:0] err_cycle;
    reg  signed [31:0] err_addr, err_val;
    reg  [63:0] st_hazard, st_bank, st_dwait, st_dqueue, st_port, busy [0:5];
    reg         collided, dma_err_q, dead;
    reg  [63:0] elapsed, dma_end;     // edges since start; the DMA busy until (after a failure)
    // a bundle waiting for the DMA (a lock, queue room): its first cycle's count, end
    // (latest pending result) and stall counters, which a deadlock found later reports
    reg         wt_on;
    reg  [63:0] wt_cyc, wt_end, wt_dwait, wt_dqueue;
    reg         end_seen;             // the core has finished: end_cyc, the cycle it did
    reg  [63:0] end_cyc;
    genvar gk;
    generate
        for (gk = 0; gk < NUM_LOCK; gk = gk + 1) begin : g_lk
            assign lk_o[6*gk +: 6] = lk[gk];
        end
    endgenerate
    function automatic [5:0] lkq(input [3:0] i); lkq = lk_q[6*i +: 6]; endfunction
    function automatic [5:0] lka(input [3:0] i); lka = lk_a[6*i +: 6]; endfunction

    // --- decode ----------------------------------------------------------------------
    wire [31:0] hdr = imem_rdata[31:0];
    wire [2:0]  nops = hdr[HDR_OPS_LSB +: HDR_OPS_W];
    wire [2:0]  nends = hdr[HDR_ENDS_LSB +: HDR_ENDS_W];
    // Operation k (k < nops) goes to the slot of its class: the first load to ld0, the
    // second to ld1, a third is illegal; of two store, scalar, vector or move operations
    // the later one's word is kept and the bundle is illegal. Each slot's word is an
    // AND-OR of the six operation words under a one-hot made of constant-index terms, so
    // no operation's choice waits on a chain of muxes through the earlier ones (Yosys's
    // `share` multiplied such a chain's conditions past 8 GB: rtl/aie/README.md).
    reg  [31:0] sw [0:5];            // operation word per slot
    reg  [5:0]  sv;                  // slot holds an operation
    reg         illegal;
    integer k, dj;
    reg  [6:0]  opc;
    reg  [2:0]  cls;
    reg  [MAX_OPS-1:0] oc_ld, oc_st, oc_alu, oc_vec, oc_mv;   // op k is valid and of the class
    reg  [MAX_OPS-1:0] pick [0:5];   // op k fills slot s (at most one k per slot)
    reg  [MAX_OPS-1:0] obad;         // op k: must-be-zero bits set, or no class
    reg  [MAX_OPS-1:0] ld_one, ld_two;  // a load, and at least one / two loads, before op k
    reg         dup;

    function automatic [MAX_OPS-1:0] last_of(input [MAX_OPS-1:0] hit);
        integer lj;
        for (lj = 0; lj < MAX_OPS; lj = lj + 1)
            last_of[lj] = hit[lj] && ((hit >> (lj + 1)) == 0);
    endfunction
    function automatic two_of(input [MAX_OPS-1:0] hit);     // two or more set
        integer tj;
        two_of = 1'b0;
        for (tj = 1; tj < MAX_OPS; tj = tj + 1)
            two_of = two_of | (hit[tj] && ((hit & ((1 << tj) - 1)) != 0));
    endfunction

    always @* begin
        opc = 7'd0;
        cls = 3'd0;
        for (k = 0; k < MAX_OPS; k = k + 1) begin
            opc = imem_rdata[32*(k+1) + OPCODE_LSB +: OPCODE_W];
            cls = isa_class(opc);
            oc_ld[k]  = (k < $unsigned(nops)) && cls == CLS_LOAD;
            oc_st[k]  = (k < $unsigned(nops)) && cls == CLS_STORE;
            oc_alu[k] = (k < $unsigned(nops)) && cls == CLS_SCALAR;
            oc_vec[k] = (k < $unsigned(nops)) && cls == CLS_VECTOR;
            oc_mv[k]  = (k < $unsigned(nops)) && cls == CLS_MOVE;
            obad[k] = (k < $unsigned(nops)) &&
                      ((imem_rdata[32*(k+1) +: 32] & isa_zero_mask(opc)) != 32'd0 || cls > CLS_MOVE);
        end
        ld_one = {MAX_OPS{1'b0}};
        ld_two = {MAX_OPS{1'b0}};
        for (k = 1; k < MAX_OPS; k = k + 1)
            for (dj = 0; dj < k; dj = dj + 1) begin
                ld_two[k] = ld_two[k] | (ld_one[k] & oc_ld[dj]);
                ld_one[k] = ld_one[k] | oc_ld[dj];
            end
        pick[S_LD0] = oc_ld & ~ld_one;
        pick[S_LD1] = oc_ld & ld_one & ~ld_two;
        pick[S_ST]  = last_of(oc_st);
        pick[S_ALU] = last_of(oc_alu);
        pick[S_VEC] = last_of(oc_vec);
        pick[S_MV]  = last_of(oc_mv);
        dup = two_of(oc_st) | two_of(oc_alu) | two_of(oc_vec) | two_of(oc_mv);
        illegal = (nops == 3'd0) | (|obad) | (|(oc_ld & ld_two)) | dup;
        for (k = 0; k < 6; k = k + 1) begin
            sv[k] = |pick[k];
            sw[k] = 32'd0;
            for (dj = 0; dj < MAX_OPS; dj = dj + 1)
                sw[k] = sw[k] | ({32{pick[k][dj]}} & imem_rdata[32*(dj+1) +: 32]);
        end
    end

    function automatic [6:0] op_of(input [31:0] w);
        op_of = w[OPCODE_LSB +: OPCODE_W];
    endfunction
    function automatic [4:0] fd(input [31:0] w);   // d / s field (same place in every format)
        fd = w[F_RRR_D_LSB +: F_RRR_D_W];
    endfunction
    function automatic [4:0] fa(input [31:0] w);
        fa = w[F_RRR_A_LSB +: F_RRR_A_W];
    endfunction
    function automatic [4:0] fb(input [31:0] w);
        fb = w[F_RRR_B_LSB +: F_RRR_B_W];
    endfunction
    function automatic signed [31:0] imm_rri(input [31:0] w);   // signed 15-bit field
        imm_rri = 32'($signed(w[F_RRI_IMM_LSB +: F_RRI_IMM_W]));
    endfunction
    function automatic [19:0] imm_ri(input [31:0] w);
        imm_ri = w[F_RI_IMM_LSB +: F_RI_IMM_W];
    endfunction

    // --- memory slots: address, checks, post-modify -----------------------------------
    reg  [6:0]  mop [0:2];
    reg  [2:0]  mpi [0:2];                          // pointer number
    reg  [4:0]  mreg [0:2];                         // data register
    reg  [1:0]  pm_mode [0:2];
    reg  signed [31:0] pm_val [0:2];
    reg  signed [31:0] maddr [0:2];
    reg  [7:0]  mbytes [0:2], malign [0:2];
    reg  [3:0]  merr [0:2];
    reg  signed [31:0] step [0:2];                  // post-modify step
    reg         pwr [0:2];                          // post-modify writes the pointer
    reg         gwr [0:2];                          // ... and a generator's counters
    reg  signed [31:0] gnew [0:2][0:6];
    reg  [31:0] mbank [0:2];
    reg  [1:0]  mphase [0:2];
    reg  [1:0]  nphase;
    integer q, f;

    always @* begin
        nphase = 2'd0;
        for (q = 0; q < 3; q = q + 1) begin
            mop[q] = op_of(sw[q]);
            mpi[q] = sw[q][F_MEM_P_LSB +: F_MEM_P_W];
            mreg[q] = sw[q][F_MEM_D_LSB +: F_MEM_D_W];
            pm_mode[q] = sw[q][F_MEM_PM_LSB + PM_VALUE_BITS +: 2];
            pm_val[q] = 32'($signed(sw[q][F_MEM_PM_LSB +: PM_VALUE_BITS]));
            maddr[q] = p[mpi[q]];
            mbytes[q] = isa_bytes(mop[q]);
            malign[q] = isa_align(mop[q]);
            merr[q] = E_NONE;
            if (sv[q]) begin
                if (maddr[q] < 0 || 33'(maddr[q]) + 33'(mbytes[q]) > 33'(DM_SIZE)) merr[q] = E_RANGE;
                else if ((maddr[q] & 32'(malign[q] - 8'd1)) != 0) merr[q] = E_ALIGN;
            end
            for (f = 0; f < 7; f = f + 1) gnew[q][f] = g[pm_val[q][1:0]][f];
            gwr[q] = 1'b0;
            case (pm_mode[q])
                2'(PM_MODE_M): begin step[q] = m[pm_val[q][2:0]]; pwr[q] = 1'b1; end
                2'(PM_MODE_G): begin
                    gwr[q] = 1'b1;
                    pwr[q] = 1'b1;
                    gnew[q][5] = g[pm_val[q][1:0]][5] + 1;
                    if (gnew[q][5] < g[pm_val[q][1:0]][1]) step[q] = g[pm_val[q][1:0]][0];
                    else begin
                        gnew[q][5] = 0;
                        gnew[q][6] = g[pm_val[q][1:0]][6] + 1;
                        if (gnew[q][6] < g[pm_val[q][1:0]][3]) step[q] = g[pm_val[q][1:0]][2];
                        else begin
                            gnew[q][6] = 0;
                            step[q] = g[pm_val[q][1:0]][4];
                        end
                    end
                end
                default: begin step[q] = pm_val[q]; pwr[q] = (pm_val[q] != 0); end
            endcase
            mbank[q] = 32'(maddr[q] >>> BANK_SHIFT);
            mphase[q] = 2'd0;
            for (f = 0; f < q; f = f + 1)
                if (sv[f] && mbank[f] == mbank[q]) mphase[q] = mphase[q] + 2'd1;
            if (sv[q] && mphase[q] > nphase) nphase = mphase[q];
        end
    end

    // --- scalar slot -----------------------------------------------------------------
    wire [31:0] wa = sw[S_ALU];
    wire [4:0]  wa_d = fd(wa), wa_a = fa(wa), wa_b = fb(wa);
    wire signed [31:0] wa_i = imm_rri(wa);
    wire [19:0] wa_u = imm_ri(wa);
    wire [6:0]  aop = op_of(wa);
    // one latency look-up per slot (used by every arm that writes): four reads of one
    // ROM were candidates of each other in Yosys's share pass
    wire [4:0]  a_lat = 5'(isa_latency(aop));
    wire signed [31:0] ra = r[wa_a[3:0]], rb = r[wa_b[3:0]];
    wire [4:0]  ash = wa_i[4:0];
    reg         a_wr_r, a_wr_p;                     // writes r[d] / p[d]
    reg  signed [31:0] a_val;
    reg  [3:0]  a_err;
    reg         a_loop, a_halt, a_acq, a_rel, a_setrm, a_unsup, a_dma;
    reg  [31:0] a_trips;
    reg  [6:0]  a_relv;
    wire [3:0]  a_lock = wa[F_RI_D_LSB +: 4];
    wire [5:0]  a_lockn = wa[F_RI_IMM_LSB +: 6];

    always @* begin
        a_wr_r = 1'b0; a_wr_p = 1'b0; a_val = 32'sd0; a_err = E_NONE; a_loop = 1'b0;
        a_halt = 1'b0; a_acq = 1'b0; a_rel = 1'b0; a_setrm = 1'b0; a_unsup = 1'b0;
        a_trips = 32'd0; a_relv = 7'd0; a_dma = 1'b0;
        if (sv[S_ALU])
            case (aop)
                OP_ADD:  begin a_wr_r = 1'b1; a_val = ra + rb; end
                OP_SUB:  begin a_wr_r = 1'b1; a_val = ra - rb; end
                OP_MUL:  begin a_wr_r = 1'b1; a_val = ra * rb; end
                OP_AND:  begin a_wr_r = 1'b1; a_val = ra & rb; end
                OP_OR:   begin a_wr_r = 1'b1; a_val = ra | rb; end
                OP_ADDI: begin a_wr_r = 1'b1; a_val = ra + wa_i; end
                OP_SLLI: begin a_wr_r = 1'b1; a_val = ra <<< ash; end
                OP_SRAI: begin a_wr_r = 1'b1; a_val = ra >>> ash; end
                OP_SRLI: begin a_wr_r = 1'b1; a_val = $signed($unsigned(ra) >> ash); end
                OP_PADD: begin a_wr_p = 1'b1; a_val = p[wa_d[2:0]] + r[wa_a[3:0]]; end
                OP_PADDI: begin a_wr_p = 1'b1; a_val = p[wa_a[2:0]] + wa_i; end
                OP_SETRM: a_setrm = 1'b1;
                OP_NOP: ;
                OP_LOOP: begin a_loop = 1'b1; a_trips = 32'(wa_u); end
                OP_LOOPR: begin
                    a_loop = 1'b1;
                    a_trips = r[wa_a[3:0]];
                    if (r[wa_a[3:0]] < 1) a_err = E_LOOPR;
                end
                OP_ACQ: a_acq = 1'b1;
                OP_REL: begin
                    a_rel = 1'b1;
                    a_relv = {1'b0, lkq(a_lock)} + {1'b0, a_lockn};
                    if (a_relv > 7'(LOCK_MAX)) a_err = E_REL;
                end
                OP_HALT: a_halt = 1'b1;
                OP_DMAIN, OP_DMAOUT: begin
                    a_dma = 1'b1;
                    if (q_err == 2'd1) a_err = E_DMAEXT;
                    else if (q_err == 2'd2) a_err = E_DMADM;
                end
                default: a_unsup = 1'b1;
            endcase
        if (a_loop && a_err == E_NONE && $unsigned(sp) >= LOOP_DEPTH) a_err = E_DEEP;
        if (a_unsup) a_err = E_UNSUPPORTED;
    end

    // --- move slot -------------------------------------------------------------------
    wire [31:0] wm = sw[S_MV];
    wire [4:0]  wm_d = fd(wm), wm_a = fa(wm);
    wire [19:0] wm_u = imm_ri(wm);
    wire [6:0]  mvop = op_of(wm);
    wire [4:0]  mv_lat = 5'(isa_latency(mvop));
    wire signed [31:0] mra = r[wm_a[3:0]];
    // The accumulator reads that issue and the host choose among (AMOV, the store slot's
    // AST data, the host register map) select an entry by constant index: as read ports
    // with a variable address Yosys's `share` compared the three 1024-bit reads for
    // merging and passed 9 GB on the store's (rtl/aie/README.md, Synthesis).
    // A function called where its result is used (the AMOV arm, the store's AST arm, an
    // accumulator address of the host map), so the simulator copies 1024 bits only in
    // the cycles that read them; the host reads a 32-bit word of it.
    function automatic [1023:0] acc_sel(input [2:0] a);
        integer ai;
        acc_sel = 1024'd0;
        for (ai = 0; ai < NUM_ACC; ai = ai + 1)
            if (a == 3'(ai)) acc_sel = acc[ai];
    endfunction
    function automatic [31:0] acc_word(input [2:0] a, input [4:0] w);
        integer ai;
        acc_word = 32'd0;
        for (ai = 0; ai < NUM_ACC; ai = ai + 1)
            if (a == 3'(ai)) acc_word = acc[ai][32*w +: 32];
    endfunction
    reg  [2:0]  mv_kind;      // 0 none, 1 r, 2 p, 3 m, 4 g field, 5 x, 6 acc
    reg  signed [31:0] mv_val;
    // the vector and accumulator values of VBCST/VMOV (kind 5) and ABCST/AMOV (kind 6):
    // functions called by the register files' write (the simulator forms the 512 and
    // 1024 bits only in a cycle that writes them)
    function automatic [511:0] mv_x_f(input integer unused);
        case (mvop)
            OP_VBCST_16: mv_x_f = {32{mra[15:0]}};
            OP_VBCST_32: mv_x_f = {16{mra}};
            default:     mv_x_f = x[wm_a[3:0]];                 // VMOV
        endcase
    endfunction
    // (acc_sel's loop written out: Yosys does not elaborate a function calling another)
    function automatic [1023:0] mv_acc_f(input integer unused);
        integer ai;
        if (mvop == OP_ABCST) mv_acc_f = {32{mra}};
        else begin                                                        // AMOV
            mv_acc_f = 1024'd0;
            for (ai = 0; ai < NUM_ACC; ai = ai + 1)
                if (wm_a[2:0] == 3'(ai)) mv_acc_f = acc[ai];
        end
    endfunction
    reg  [2:0]  mv_gf;
    reg         mv_unsup;
    integer e;

    always @* begin
        mv_kind = 3'd0; mv_val = 32'sd0; mv_gf = 3'd0;
        mv_unsup = 1'b0;
        if (sv[S_MV])
            case (mvop)
                OP_MOVI:  begin mv_kind = 3'd1; mv_val = 32'($signed(wm_u)); end
                OP_MOVHI: begin mv_kind = 3'd1; mv_val = {wm_u[15:0], r[wm_d[3:0]][15:0]}; end
                OP_MOV:   begin mv_kind = 3'd1; mv_val = mra; end
                OP_MOVP:  begin mv_kind = 3'd2; mv_val = mra; end
                OP_MOVM:  begin mv_kind = 3'd3; mv_val = mra; end
                OP_MOVPI: begin mv_kind = 3'd2; mv_val = 32'(wm_u); end
                OP_GSET_INC: begin mv_kind = 3'd4; mv_gf = 3'd0; mv_val = mra; end
                OP_GSET_N1:  begin mv_kind = 3'd4; mv_gf = 3'd1; mv_val = mra; end
                OP_GSET_J1:  begin mv_kind = 3'd4; mv_gf = 3'd2; mv_val = mra; end
                OP_GSET_N2:  begin mv_kind = 3'd4; mv_gf = 3'd3; mv_val = mra; end
                OP_GSET_J2:  begin mv_kind = 3'd4; mv_gf = 3'd4; mv_val = mra; end
                OP_VBCST_16, OP_VBCST_32, OP_VMOV: mv_kind = 3'd5;
                OP_ABCST, OP_AMOV: mv_kind = 3'd6;
                default: mv_unsup = 1'b1;
            endcase
    end

    // --- vector slot: the lane ALU (int8/int16 add, subtract, max, min; logic) -------
    // Lanes wrap (no saturation), as the model. Multiplies go to aie_mac, reductions to
    // aie_reduce, the function unit's operations to aie_pwl (all pipelined); the rest,
    // shuffles included (aie_shuf), is written at the edge after issue.
    wire [31:0] wv = sw[S_VEC];
    wire [6:0]  vop = op_of(wv);
    wire [4:0]  v_lat = 5'(isa_latency(vop));
    wire [4:0]  wv_d = fd(wv), wv_a = fa(wv), wv_b = fb(wv);
    // w operands (int8 VMUL/VMAC a and b, VUPS.I8 a) name the x holding the half
    wire v_wa = (vop == OP_VMUL_I8 || vop == OP_VMAC_I8 || vop == OP_VUPS_I8);
    wire v_wb = (vop == OP_VMUL_I8 || vop == OP_VMAC_I8);
    wire [3:0] v_xa = v_wa ? wv_a[4:1] : wv_a[3:0];
    wire [3:0] v_xb = v_wb ? wv_b[4:1] : wv_b[3:0];
    wire [511:0] va = x[v_xa], vb = x[v_xb];
    wire [4:0] v_sh = wv[F_RRI_IMM_LSB +: 5];
    // the shuffles (aie_shuf): VBCL.16 reads only a; its lane is an RRI immediate
    wire v_bcl = (vop == OP_VBCL_16);
    wire [5:0] v_si = v_bcl ? {1'b0, v_sh} : wv[F_RRRI_IMM_LSB +: 6];
    // multiply-accumulate: v_mac the unit's operations, v_macc those accumulating onto d
    wire v_mm = (vop == OP_VMMAC_I8 || vop == OP_VMMAC_I16 || vop == OP_VMMAC_BF16);
    wire v_macc = v_mm || vop == OP_VMAC_I8 || vop == OP_VMAC_I16 || vop == OP_VMAC_BF16
                  || vop == OP_VMSC_BF16;
    wire v_mac = v_macc || vop == OP_VMUL_I8 || vop == OP_VMUL_I16 || vop == OP_VMUL_BF16;
    // the reductions (aie_reduce): a to d, acc to acc or (VREDMAX.BF16) x to x
    wire v_redx = (vop == OP_VREDMAX_BF16);
    wire v_red = v_redx || vop == OP_AREDADD_F32 || vop == OP_AREDADD_I32;
    // the function unit (aie_pwl): acc a to acc d
    wire v_pwl = (vop == OP_VPWL_EXP || vop == OP_VPWL_RCP || vop == OP_VPWL_RSQRT);
    wire [1023:0] mac_b = v_mm ? {x[{wv_b[2:0], 1'b1}], x[{wv_b[2:0], 1'b0}]} : {512'd0, vb};
    wire [1023:0] aa = acc[wv_a[2:0]], ab = acc[wv_b[2:0]];
    // The lanes below work on operands latched at the issue edge, on a clock that ticks
    // only then (gated as in aie_mac), and write their result at the next edge: the
    // scoreboard holds readers for the class latency (at least 2), and a result cannot
    // be overtaken (a younger write to the register lands later still).
    reg  [6:0]   l_vop;
    reg  [511:0] l_va, l_vb;
    reg  [1023:0] l_aa, l_ab;
    reg  [4:0]   l_sh, l_d;
    reg  [5:0]   l_si;
    reg  [1:0]   l_rm, l_shape;
    reg          l_ahi, l_half, vl_v;
    reg  [511:0] v_res;
    reg  [1023:0] v_accres;
    reg          v_unsup;
    reg          v_half;           // VSRS.I8: only half wd of x(d/2) is written
    reg  [1:0]   v_shape;          // 0: x, x -> x   1: acc, acc -> acc   2: acc -> x   3: x -> acc
    // bf16 max/min: the shared fp32 unit on the lanes widened exactly (NaN canonical,
    // max(-0, +0) = +0), as the model's fmax/fmin then rounding (exact) to bf16
    wire [511:0] v_bmax, v_bmin, v_srs;
    // fp32 accumulator lanes: add/subtract, multiply, max (rtl/common, IEEE RNE, subnormals
    // kept, canonical NaN, as simulators/numerics.py); SRS to bf16 rounds to nearest even
    wire [1023:0] v_fadd, v_fmul, v_fmax;
    wire [511:0] v_shuf;
    aie_shuf u_shuf (.kind((l_vop == OP_VSHUF) ? 2'd0 : (l_vop == OP_VALIGN) ? 2'd1 : 2'd2),
                     .imm(l_si), .a(l_va), .b(l_vb), .y(v_shuf));
    wire v_sub = (l_vop == OP_ASUB_F32);
    genvar gl;
    generate
        for (gl = 0; gl < 32; gl = gl + 1) begin : g_lane
            wire [31:0] ymax, ymin;
            fp32_minmax #(.MIN(0)) u_max (.a({l_va[16*gl +: 16], 16'd0}), .b({l_vb[16*gl +: 16], 16'd0}), .y(ymax));
            fp32_minmax #(.MIN(1)) u_min (.a({l_va[16*gl +: 16], 16'd0}), .b({l_vb[16*gl +: 16], 16'd0}), .y(ymin));
            assign v_bmax[16*gl +: 16] = ymax[31:16];
            assign v_bmin[16*gl +: 16] = ymin[31:16];
            fp32_add u_fadd (.a(l_aa[32*gl +: 32]), .b(l_ab[32*gl +: 32]), .sub(v_sub), .y(v_fadd[32*gl +: 32]));
            fp32_mul u_fmul (.a(l_aa[32*gl +: 32]), .b(l_ab[32*gl +: 32]), .y(v_fmul[32*gl +: 32]));
            fp32_minmax #(.MIN(0)) u_fmax (.a(l_aa[32*gl +: 32]), .b(l_ab[32*gl +: 32]), .y(v_fmax[32*gl +: 32]));
            fp32_to_bf16 u_srs (.a(l_aa[32*gl +: 32]), .y(v_srs[16*gl +: 16]));
        end
    endgenerate
    // shift-round-saturate of one int32 lane (numerics.srs): v / 2^sh rounded by the
    // mode (0 floor, 1 half up, 2 half to even, 3 half away from zero), then saturated
    function automatic [15:0] srs_lane(input signed [31:0] v, input [4:0] sh, input [1:0] mode,
                                       input is8);
        reg signed [31:0] sq;
        reg [31:0] sr, half;
        reg up;
        reg signed [32:0] y;
        begin
            sq = v >>> sh;
            sr = $unsigned(v) & ((32'd1 << sh) - 32'd1);
            half = (sh == 5'd0) ? 32'd0 : (32'd1 << (sh - 5'd1));
            case (mode)
                2'd0: up = 1'b0;
                2'd1: up = (sr >= half);
                2'd2: up = (sr > half) || (sr == half && sq[0]);
                default: up = (sr > half) || (sr == half && v >= 0);
            endcase
            if (sh == 5'd0) up = 1'b0;
            y = 33'(sq) + 33'(up);
            if (is8) srs_lane = (y > 33'sd127) ? 16'h007F : (y < -33'sd128) ? 16'hFF80 : 16'(y);
            else srs_lane = (y > 33'sd32767) ? 16'h7FFF : (y < -33'sd32768) ? 16'h8000 : 16'(y);
        end
    endfunction
    // what the vector operation reads and writes (its shape), decoded at issue
    always @* begin
        v_unsup = 1'b0;
        v_shape = 2'd0;
        v_half = 1'b0;
        case (vop)
            OP_VMUL_I8, OP_VMUL_I16, OP_VMUL_BF16, OP_VMAC_I8, OP_VMAC_I16, OP_VMAC_BF16,
            OP_VMSC_BF16, OP_VMMAC_I8, OP_VMMAC_I16, OP_VMMAC_BF16: ;        // aie_mac
            OP_AREDADD_F32, OP_AREDADD_I32, OP_VREDMAX_BF16: ;              // aie_reduce
            OP_VPWL_EXP, OP_VPWL_RCP, OP_VPWL_RSQRT: ;                      // aie_pwl
            OP_VSRS_I16, OP_VSRS_BF16: v_shape = 2'd2;
            OP_VSRS_I8: begin v_shape = 2'd2; v_half = 1'b1; end
            OP_VUPS_I8, OP_VUPS_I16, OP_VUPS_BF16: v_shape = 2'd3;
            OP_AADD_F32, OP_ASUB_F32, OP_AMUL_F32, OP_AMAX_F32, OP_AADD_I32, OP_ASUB_I32: v_shape = 2'd1;
            OP_VAND, OP_VOR, OP_VXOR, OP_VMAX_BF16, OP_VMIN_BF16, OP_VADD_I8, OP_VSUB_I8, OP_VMAX_I8,
            OP_VMIN_I8, OP_VADD_I16, OP_VSUB_I16, OP_VMAX_I16, OP_VMIN_I16: ;
            OP_VSHUF, OP_VALIGN, OP_VBCL_16: ;
            default: v_unsup = 1'b1;
        endcase
    end
    integer vl;
    always @* begin
        vl = 0;
        v_res = 512'd0;
        v_accres = 1024'd0;
        if (vl_v)
        case (l_vop)
            OP_VSRS_I16: begin
                for (vl = 0; vl < 32; vl = vl + 1) v_res[16*vl +: 16] = srs_lane(l_aa[32*vl +: 32], l_sh, l_rm, 1'b0);
            end
            OP_VSRS_I8: begin
                for (vl = 0; vl < 32; vl = vl + 1) v_res[8*vl +: 8] = 8'(srs_lane(l_aa[32*vl +: 32], l_sh, l_rm, 1'b1));
            end
            OP_VUPS_I16: begin
                for (vl = 0; vl < 32; vl = vl + 1) v_accres[32*vl +: 32] = 32'($signed(l_va[16*vl +: 16])) << l_sh;
            end
            OP_VUPS_I8: begin
                for (vl = 0; vl < 32; vl = vl + 1)
                    v_accres[32*vl +: 32] = 32'($signed(l_va[8*(32*l_ahi + vl) +: 8])) << l_sh;
            end
            OP_AADD_F32, OP_ASUB_F32: begin v_accres = v_fadd; end
            OP_AMUL_F32: begin v_accres = v_fmul; end
            OP_AMAX_F32: begin v_accres = v_fmax; end
            OP_AADD_I32, OP_ASUB_I32: begin
                for (vl = 0; vl < 32; vl = vl + 1)
                    v_accres[32*vl +: 32] = (l_vop == OP_AADD_I32) ? l_aa[32*vl +: 32] + l_ab[32*vl +: 32]
                                                                 : l_aa[32*vl +: 32] - l_ab[32*vl +: 32];
            end
            OP_VSRS_BF16: begin v_res = v_srs; end
            OP_VUPS_BF16: begin
                for (vl = 0; vl < 32; vl = vl + 1) v_accres[32*vl +: 32] = {l_va[16*vl +: 16], 16'd0};
            end
            OP_VSHUF, OP_VALIGN, OP_VBCL_16: v_res = v_shuf;
            OP_VAND: v_res = l_va & l_vb;
            OP_VOR:  v_res = l_va | l_vb;
            OP_VXOR: v_res = l_va ^ l_vb;
            OP_VMAX_BF16: v_res = v_bmax;
            OP_VMIN_BF16: v_res = v_bmin;
            OP_VADD_I8, OP_VSUB_I8, OP_VMAX_I8, OP_VMIN_I8:
                for (vl = 0; vl < 64; vl = vl + 1)
                    case (l_vop)
                        OP_VADD_I8: v_res[8*vl +: 8] = l_va[8*vl +: 8] + l_vb[8*vl +: 8];
                        OP_VSUB_I8: v_res[8*vl +: 8] = l_va[8*vl +: 8] - l_vb[8*vl +: 8];
                        OP_VMAX_I8: v_res[8*vl +: 8] = $signed(l_va[8*vl +: 8]) > $signed(l_vb[8*vl +: 8])
                                                       ? l_va[8*vl +: 8] : l_vb[8*vl +: 8];
                        default:    v_res[8*vl +: 8] = $signed(l_va[8*vl +: 8]) < $signed(l_vb[8*vl +: 8])
                                                       ? l_va[8*vl +: 8] : l_vb[8*vl +: 8];
                    endcase
            OP_VADD_I16, OP_VSUB_I16, OP_VMAX_I16, OP_VMIN_I16:
                for (vl = 0; vl < 32; vl = vl + 1)
                    case (l_vop)
                        OP_VADD_I16: v_res[16*vl +: 16] = l_va[16*vl +: 16] + l_vb[16*vl +: 16];
                        OP_VSUB_I16: v_res[16*vl +: 16] = l_va[16*vl +: 16] - l_vb[16*vl +: 16];
                        OP_VMAX_I16: v_res[16*vl +: 16] = $signed(l_va[16*vl +: 16]) > $signed(l_vb[16*vl +: 16])
                                                         ? l_va[16*vl +: 16] : l_vb[16*vl +: 16];
                        default:     v_res[16*vl +: 16] = $signed(l_va[16*vl +: 16]) < $signed(l_vb[16*vl +: 16])
                                                         ? l_va[16*vl +: 16] : l_vb[16*vl +: 16];
                    endcase
            default: ;
        endcase
    end

    // --- scoreboard: what the bundle reads and writes ---------------------------------
    // Up to 3 reads and 3 writes per slot; unit NU means none.
    localparam integer UW = $clog2(NU + 1);
    reg  [UW-1:0] rd_u [0:17];
    reg  [UW-1:0] wr_u [0:17];
    reg  [4:0]    wr_l [0:17];
    reg           hazard;
    integer s, t;
    integer sb_s, sb_t, id_s, ma_s, ck_s;

    function automatic [UW-1:0] ur(input [4:0] i);     // r register, r0 never waits
        ur = (i == 5'd0) ? UW'(NU) : UW'(U_R + $unsigned(i));
    endfunction

    always @* begin
        for (sb_t = 0; sb_t < 18; sb_t = sb_t + 1) begin rd_u[sb_t] = UW'(NU); wr_u[sb_t] = UW'(NU); wr_l[sb_t] = 5'd0; end
        // memory slots
        for (sb_s = 0; sb_s < 3; sb_s = sb_s + 1)
            if (sv[sb_s]) begin
                rd_u[3*sb_s] = UW'(U_P + $unsigned(mpi[sb_s]));
                if (sb_s == S_ST)
                    case (mop[sb_s])
                        OP_ST:  rd_u[3*sb_s+1] = ur(mreg[sb_s]);
                        OP_VST: rd_u[3*sb_s+1] = UW'(U_X + $unsigned(mreg[sb_s][3:0]));
                        default: rd_u[3*sb_s+1] = UW'(U_ACC + $unsigned(mreg[sb_s][2:0]));   // AST
                    endcase
                else begin
                    wr_l[3*sb_s] = 5'(T_LOAD);
                    case (mop[sb_s])
                        OP_LD:  wr_u[3*sb_s] = ur(mreg[sb_s]);
                        OP_ALD: wr_u[3*sb_s] = UW'(U_ACC + $unsigned(mreg[sb_s][2:0]));
                        default: wr_u[3*sb_s] = UW'(U_X + $unsigned(mreg[sb_s][3:0]));      // VLD, VLDB
                    endcase
                end
                if (pm_mode[sb_s] == 2'(PM_MODE_M)) rd_u[3*sb_s+2] = UW'(U_M + $unsigned(pm_val[sb_s][2:0]));
                if (pm_mode[sb_s] == 2'(PM_MODE_G)) begin
                    rd_u[3*sb_s+2] = UW'(U_G + $unsigned(pm_val[sb_s][1:0]));
                    wr_u[3*sb_s+2] = UW'(U_G + $unsigned(pm_val[sb_s][1:0]));
                    wr_l[3*sb_s+2] = 5'(T_ALU);
                end
                if (pwr[sb_s]) begin wr_u[3*sb_s+1] = UW'(U_P + $unsigned(mpi[sb_s])); wr_l[3*sb_s+1] = 5'(T_ALU); end
            end
        // scalar slot
        if (sv[S_ALU])
            case (aop)
                OP_ADD, OP_SUB, OP_MUL, OP_AND, OP_OR: begin
                    rd_u[9] = ur(wa_a); rd_u[10] = ur(wa_b);
                    wr_u[9] = ur(wa_d); wr_l[9] = a_lat;
                end
                OP_ADDI, OP_SLLI, OP_SRAI, OP_SRLI: begin
                    rd_u[9] = ur(wa_a); wr_u[9] = ur(wa_d); wr_l[9] = a_lat;
                end
                OP_PADD: begin
                    rd_u[9] = UW'(U_P + $unsigned(wa_d[2:0])); rd_u[10] = ur(wa_a);
                    wr_u[9] = UW'(U_P + $unsigned(wa_d[2:0])); wr_l[9] = a_lat;
                end
                OP_PADDI: begin
                    rd_u[9] = UW'(U_P + $unsigned(wa_a[2:0]));
                    wr_u[9] = UW'(U_P + $unsigned(wa_d[2:0])); wr_l[9] = a_lat;
                end
                OP_LOOPR: rd_u[9] = ur(wa_a);
                OP_DMAIN, OP_DMAOUT: begin
                    rd_u[9] = ur(wa[F_DMA_A_LSB +: F_DMA_A_W]); rd_u[10] = ur(wa[F_DMA_B_LSB +: F_DMA_B_W]);
                end
                default: ;
            endcase
        // vector slot
        if (sv[S_VEC]) begin
            wr_l[12] = v_lat;
            if (v_mac) begin
                rd_u[12] = UW'(U_X + $unsigned(v_xa));
                rd_u[13] = UW'(U_X + $unsigned(v_mm ? {wv_b[2:0], 1'b0} : v_xb));
                if (v_mm) rd_u[14] = UW'(U_X + $unsigned({wv_b[2:0], 1'b1}));
                wr_u[12] = UW'(U_ACC + $unsigned(wv_d[2:0]));
            end else if (v_red || v_pwl) begin
                rd_u[12] = v_redx ? UW'(U_X + $unsigned(wv_a[3:0])) : UW'(U_ACC + $unsigned(wv_a[2:0]));
                wr_u[12] = v_redx ? UW'(U_X + $unsigned(wv_d[3:0])) : UW'(U_ACC + $unsigned(wv_d[2:0]));
            end else
            case (v_shape)
                2'd0: begin
                    rd_u[12] = UW'(U_X + $unsigned(wv_a[3:0]));
                    if (!v_bcl) rd_u[13] = UW'(U_X + $unsigned(wv_b[3:0]));
                    wr_u[12] = UW'(U_X + $unsigned(wv_d[3:0]));
                end
                2'd1: begin
                    rd_u[12] = UW'(U_ACC + $unsigned(wv_a[2:0])); rd_u[13] = UW'(U_ACC + $unsigned(wv_b[2:0]));
                    wr_u[12] = UW'(U_ACC + $unsigned(wv_d[2:0]));
                end
                2'd2: begin
                    rd_u[12] = UW'(U_ACC + $unsigned(wv_a[2:0]));
                    wr_u[12] = UW'(U_X + $unsigned(v_half ? wv_d[4:1] : wv_d[3:0]));
                end
                default: begin
                    rd_u[12] = UW'(U_X + $unsigned(v_xa)); wr_u[12] = UW'(U_ACC + $unsigned(wv_d[2:0]));
                end
            endcase
        end
        // move slot
        if (sv[S_MV]) begin
            wr_l[15] = mv_lat;
            case (mvop)
                OP_MOVI:  wr_u[15] = ur(wm_d);
                OP_MOVHI: begin rd_u[15] = ur(wm_d); wr_u[15] = ur(wm_d); end
                OP_MOV:   begin rd_u[15] = ur(wm_a); wr_u[15] = ur(wm_d); end
                OP_MOVP:  begin rd_u[15] = ur(wm_a); wr_u[15] = UW'(U_P + $unsigned(wm_d[2:0])); end
                OP_MOVM:  begin rd_u[15] = ur(wm_a); wr_u[15] = UW'(U_M + $unsigned(wm_d[2:0])); end
                OP_MOVPI: wr_u[15] = UW'(U_P + $unsigned(wm_d[2:0]));
                OP_GSET_INC, OP_GSET_N1, OP_GSET_J1, OP_GSET_N2, OP_GSET_J2: begin
                    rd_u[15] = ur(wm_a); wr_u[15] = UW'(U_G + $unsigned(wm_d[1:0]));
                end
                OP_VBCST_16, OP_VBCST_32: begin rd_u[15] = ur(wm_a); wr_u[15] = UW'(U_X + $unsigned(wm_d[3:0])); end
                OP_VMOV:  begin rd_u[15] = UW'(U_X + $unsigned(wm_a[3:0])); wr_u[15] = UW'(U_X + $unsigned(wm_d[3:0])); end
                OP_ABCST: begin rd_u[15] = ur(wm_a); wr_u[15] = UW'(U_ACC + $unsigned(wm_d[2:0])); end
                OP_AMOV:  begin rd_u[15] = UW'(U_ACC + $unsigned(wm_a[2:0])); wr_u[15] = UW'(U_ACC + $unsigned(wm_d[2:0])); end
                default: ;
            endcase
        end
        hazard = 1'b0;
        // an accumulating multiply reads d in its last cycle: it waits for mrdy
        if (sv[S_VEC] && v_macc && mrdy[wv_d[2:0]] != 5'd0) hazard = 1'b1;
        for (sb_t = 0; sb_t < 18; sb_t = sb_t + 1) begin
            if ($unsigned(rd_u[sb_t]) < NU && rdy[rd_u[sb_t]] != 5'd0) hazard = 1'b1;
            if ($unsigned(wr_u[sb_t]) < NU && rdy[wr_u[sb_t]] >= wr_l[sb_t]) hazard = 1'b1;
        end
    end

    // --- the issue decision ----------------------------------------------------------
    // A failing bundle: the operations the model's bundle ran before the failing one
    // take effect. The model runs a bundle's operations so that a reader of a register
    // runs before the operation writing it, loads before the store, slot order
    // otherwise (the lowest-numbered ready operation next); with no such order (two
    // operations exchanging values) nothing takes effect. pos[] is that order.
    reg  [3:0]  b_err;            // the bundle's first error, in execution order
    reg  [2:0]  b_err_slot;
    reg  signed [31:0] b_err_addr, b_err_val;
    reg  [5:0]  commit;           // slots whose operations take effect
    reg  [5:0]  dep [0:5];        // dep[j][i]: operation i runs before operation j
    reg  [2:0]  pos [0:5];
    reg  [5:0]  placed;
    reg         found, ordered;
    reg  [3:0]  s_err [0:5];
    reg  [2:0]  best;
    integer id_j, id_k, id_n;
    always @* begin
        id_k = 0; id_n = 0;
        // dependencies: j writes a unit i reads; the store after the loads (worked out
        // only when an operation fails: nothing else needs the order)
        placed = ~sv;
        ordered = 1'b1;
        found = 1'b0;
        for (id_s = 0; id_s < 6; id_s = id_s + 1) pos[id_s] = 3'd7;
        for (id_j = 0; id_j < 6; id_j = id_j + 1) dep[id_j] = 6'd0;
        if ((sv[0] && merr[0] != E_NONE) || (sv[1] && merr[1] != E_NONE) || (sv[2] && merr[2] != E_NONE)
            || (sv[S_ALU] && a_err != E_NONE)) begin
            for (id_j = 0; id_j < 6; id_j = id_j + 1)
                for (id_s = 0; id_s < 6; id_s = id_s + 1) begin
                    dep[id_j][id_s] = 1'b0;
                    if (sv[id_j] && sv[id_s] && id_j != id_s) begin
                        for (id_k = 0; id_k < 3; id_k = id_k + 1)
                            for (id_n = 0; id_n < 3; id_n = id_n + 1)
                                if ($unsigned(wr_u[3*id_j + id_k]) < NU && wr_u[3*id_j + id_k] == rd_u[3*id_s + id_n])
                                    dep[id_j][id_s] = 1'b1;
                        if (id_j == S_ST && id_s < 2) dep[id_j][id_s] = 1'b1;
                    end
                end
            placed = ~sv;
            ordered = 1'b1;
            for (id_s = 0; id_s < 6; id_s = id_s + 1) pos[id_s] = 3'd7;
            for (id_n = 0; id_n < 6; id_n = id_n + 1) begin
                found = 1'b0;
                for (id_j = 0; id_j < 6; id_j = id_j + 1)
                    if (!found && !placed[id_j] && (dep[id_j] & ~placed) == 6'd0) begin
                        found = 1'b1;
                        pos[id_j] = 3'(id_n);
                        placed[id_j] = 1'b1;
                    end
                if (!found && placed != 6'h3F) ordered = 1'b0;
            end
        end
        for (id_s = 0; id_s < 6; id_s = id_s + 1) s_err[id_s] = E_NONE;
        for (id_s = 0; id_s < 3; id_s = id_s + 1) s_err[id_s] = merr[id_s];
        s_err[S_ALU] = a_err;
        b_err = E_NONE; b_err_slot = 3'd7; b_err_addr = 32'sd0; b_err_val = 32'sd0;
        commit = sv;
        best = 3'd7;
        if (illegal) begin b_err = E_ILLEGAL; commit = 6'd0; end
        else if ((sv[S_VEC] && v_unsup) || mv_unsup) begin
            b_err = E_UNSUPPORTED; b_err_slot = (sv[S_VEC] && v_unsup) ? 3'(S_VEC) : 3'(S_MV);
            commit = 6'd0;
        end else begin
            for (id_s = 0; id_s < 4; id_s = id_s + 1)
                if (sv[id_s] && s_err[id_s] != E_NONE &&
                    (best == 3'd7 || (ordered ? pos[id_s] < pos[best] : 1'b0)))
                    best = 3'(id_s);
            if (best != 3'd7) begin
                b_err = s_err[best]; b_err_slot = best;
                b_err_addr = (best < 3'd3) ? maddr[best] : a_dma ? 32'(q_eaddr) : 32'sd0;
                b_err_val = (a_err == E_REL) ? 32'(a_relv) : a_trips;
                for (id_s = 0; id_s < 6; id_s = id_s + 1)
                    commit[id_s] = sv[id_s] && ordered && pos[id_s] < pos[best];
            end
        end
    end

    // An ACQ waits for its lock (dma_wait), a DMAIN/DMAOUT for room in its channel's
    // queue (dma_queue), the DMA taking a lock before the core in one cycle. Releases of
    // this cycle's completions count from the next. A wait nothing will end is a
    // deadlock: at once when even every unfinished transfer's release would not satisfy
    // the ACQ; else once the DMA is quiet (no transfer holding its lock is unfinished,
    // none can take one), reported at the wait's first cycle with the counts of then,
    // as the model finds it there by running the DMA ahead.
    wire acq_short = a_acq && (lkq(a_lock) < a_lockn);
    wire dl_now = acq_short && (9'(lkq(a_lock)) + dma_pend[9*a_lock +: 9] < 9'(a_lockn));
    wire dl_late = (acq_short || (a_dma && q_full)) && dma_quiet;
    wire deadlock = dl_now || dl_late;
    wire wait_dma = (acq_short || (a_dma && q_full)) && !deadlock;
    assign q_out = (aop == OP_DMAOUT);
    assign q_ch = wa[F_DMA_CH_LSB];
    assign q_bd = wa[F_DMA_BD_LSB +: F_DMA_BD_W];
    assign q_ra = r[wa[F_DMA_A_LSB +: 4]];
    assign q_rb = r[wa[F_DMA_B_LSB +: 4]];

    // next bundle: sequential, or back to an open loop's body
    reg  [IAW:0] seq_pc, nxt_pc;
    reg  [31:0]  nxt_b;
    reg  [SPW-1:0] nxt_sp;
    reg          back, at_end;
    reg  [31:0]  top_n;
    integer lv;
    always @* begin
        seq_pc = pc + (IAW+1)'(nops) + 1'b1;
        nxt_pc = seq_pc;
        nxt_b = bno + 1;
        nxt_sp = sp;
        back = 1'b0;
        top_n = 32'd0;
        if (a_loop) nxt_sp = sp + 1'b1;
        for (lv = 0; lv < LOOP_DEPTH; lv = lv + 1)
            if (!back && lv < $unsigned(nends) && lv < $unsigned(sp)) begin
                if (lp_n[$unsigned(sp) - 1 - lv] > 1) begin
                    back = 1'b1;
                    nxt_pc = lp_pc[$unsigned(sp) - 1 - lv];
                    nxt_b = lp_b[$unsigned(sp) - 1 - lv];
                    nxt_sp = SPW'($unsigned(sp) - lv);
                    top_n = lp_n[$unsigned(sp) - 1 - lv] - 1;
                end else
                    nxt_sp = SPW'($unsigned(sp) - 1 - lv);
            end
        at_end = !back && (32'(seq_pc) >= prog_len);
    end

    reg [1:0] cf_left;            // extra cycles of bank conflicts still to run
    reg [1:0] cf_phase;
    wire want = running && !stopped && fetched && cf_left == 2'd0;
    wire budget_out = want && (retired >= max_retire || cyc >= max_cycles);
    // the bundle's first accesses wait for ports DMA beats hold (not a deadlocked ACQ's:
    // the model stops that before it looks at memory)
    wire pw = want && dm_wait;
    wire issue = want && !budget_out && !halt_req && !hazard && !wait_dma && !deadlock && !pw
                 && b_err == E_NONE;
    wire fail = want && (budget_out || halt_req || dma_err_q ||
                         (!hazard && !wait_dma && (deadlock || (!pw && b_err != E_NONE))));
    // a later access of a conflicting bundle held by a DMA beat
    wire held = cf_left != 2'd0 && dm_wait;
    // a failing bundle whose operations before the failing one take effect
    wire err_commit = fail && !budget_out && !halt_req && !deadlock && !dma_err_q;

    // instruction fetch address: the next bundle when one issues, else this one again
    assign imem_raddr = !running ? '0 : IAW'(issue && !a_halt ? nxt_pc : pc);

    // --- memory accesses: this cycle's phase -----------------------------------------
    // Latched at issue for the later phases of a conflicting bundle.
    reg  [RW-1:0]   l_row [0:2];
    reg  [2:0]      l_nrows [0:2];
    reg             l_we [0:2], l_v [0:2];
    reg  [1:0]      l_ph [0:2];
    reg  [RW-1:0]   c_row [0:2];
    reg  [2:0]      c_nrows [0:2];
    reg  [4:0]      off;
    // Only the store unit writes: one lane of write data and byte enables (the load
    // units' lanes of dm_be/dm_wdata are constant zero), latched for a later phase only
    // when the store has one (the lane is read only with the store's request).
    reg  [127:0]    l_be, c_be, s_be;
    reg  [1023:0]   l_wd, c_wd, s_wd;
    reg  [1023:0]   sdata;
    reg  [127:0]    smask;
    reg  [4:0]      s_off;
    always @* begin
        s_off = maddr[S_ST][4:0];
        sdata = 1024'd0; smask = 128'd0;
        c_wd = 1024'd0; c_be = 128'd0;
        if (sv[S_ST]) begin
            case (mop[S_ST])
                OP_ST:  begin sdata = 1024'($unsigned(r[mreg[S_ST][3:0]])); smask = 128'hF; end
                OP_VST: begin sdata = 1024'(x[mreg[S_ST][3:0]]); smask = {64'd0, {64{1'b1}}}; end
                default: begin sdata = acc_sel(mreg[S_ST][2:0]); smask = {128{1'b1}}; end
            endcase
            c_wd = sdata << (8 * $unsigned(s_off));
            c_be = smask << s_off;
        end
        s_be = (cf_left != 2'd0) ? l_be : c_be;
        s_wd = (cf_left != 2'd0) ? l_wd : c_wd;
    end
    assign dm_be = {s_be, 256'd0};
    assign dm_wdata = {s_wd, 2048'd0};
    always @* begin
        for (ma_s = 0; ma_s < 3; ma_s = ma_s + 1) begin
            off = maddr[ma_s][4:0];
            c_row[ma_s] = RW'(maddr[ma_s] >>> 5);
            c_nrows[ma_s] = 3'(($unsigned(off) + $unsigned(mbytes[ma_s]) + 31) / 32);
        end
        for (ma_s = 0; ma_s < 3; ma_s = ma_s + 1) begin
            if (cf_left != 2'd0) begin
                dm_cand[ma_s] = l_v[ma_s] && l_ph[ma_s] == cf_phase;
                dm_row[RW*ma_s +: RW] = l_row[ma_s];
                dm_nrows[3*ma_s +: 3] = l_nrows[ma_s];
                dm_we[ma_s] = l_we[ma_s];
            end else begin
                // in range and aligned: the bundle's accesses that can take a port
                dm_cand[ma_s] = want && sv[ma_s] && merr[ma_s] == E_NONE && mphase[ma_s] == 2'd0;
                dm_row[RW*ma_s +: RW] = c_row[ma_s];
                dm_nrows[3*ma_s +: 3] = c_nrows[ma_s];
                dm_we[ma_s] = (ma_s == S_ST);
            end
        end
    end

    // the accesses that go (apart from the rest, which do not depend on the issue decision)
    integer mv_s;
    always @* begin
        for (mv_s = 0; mv_s < 3; mv_s = mv_s + 1)
            dm_v[mv_s] = (cf_left != 2'd0) ? (dm_cand[mv_s] && !dm_wait)
                       : ((issue || err_commit) && commit[mv_s] && mphase[mv_s] == 2'd0);
    end

    // load returns: the cycle after a load's access
    reg        ret_v [0:1];
    reg [6:0]  ret_op [0:1];
    reg [4:0]  ret_d [0:1];
    reg [4:0]  ret_off [0:1];
    reg [6:0]  pend_op [0:1];     // load latched for a later phase
    reg [4:0]  pend_d [0:1];
    reg [4:0]  pend_off [0:1];
    // the returned windows (window byte 0: the first row's byte 0); each load takes only
    // the bytes it writes, at its offset, where the register file writes them, instead of
    // a shift of both 1024-bit windows at every edge. A load that returns passed the
    // alignment check (a slot with an error never commits), so its offset's bits below
    // its alignment are zero: masking them (the KEEP masks, from the ISA's alignments)
    // changes no value and leaves constant slices where the alignment is a row's
    // (VLD, ALD: no shift at all) and small choices elsewhere (LD: 8 positions).
    wire [1023:0] rwin [0:1];
    assign rwin[0] = dm_rdata[0 +: 1024];
    assign rwin[1] = dm_rdata[1024 +: 1024];
    localparam [4:0] KEEP_LD   = 5'(~(isa_align(OP_LD) - 8'd1));
    localparam [4:0] KEEP_VLD  = 5'(~(isa_align(OP_VLD) - 8'd1));
    localparam [4:0] KEEP_VLDB = 5'(~(isa_align(OP_VLDB) - 8'd1));
    localparam [4:0] KEEP_ALD  = 5'(~(isa_align(OP_ALD) - 8'd1));

    // --- state update ----------------------------------------------------------------
    wire commit_now = issue || err_commit;
    assign core_rel_v = commit_now && commit[S_ALU] && a_rel;
    assign core_rel_l = a_lock;
    assign core_rel_n = a_lockn;
    // after an error the DMA starts no transfer and takes no lock; those started finish.
    // Not after a deadlock: the model finds one with its DMA run dry (every transfer
    // that can complete does), which the RTL's DMA then does without the core.
    assign dma_halt = failed && !dead;

    // the multiply-accumulate unit; writes of other operations to an accumulator it
    // has in flight cancel that result (they are younger and land first)
    reg  [7:0] mac_kill;
    integer kt;
    always @* begin
        mac_kill = 8'd0;
        for (kt = 0; kt < 18; kt = kt + 1)
            if (commit_now && commit[kt / 3] && !(kt == 12 && v_mac)
                && $unsigned(wr_u[kt]) >= U_ACC && $unsigned(wr_u[kt]) < NU)
                mac_kill[3'($unsigned(wr_u[kt]) - U_ACC)] = 1'b1;
    end
    // the vector lanes' operands, on a clock gated by their issue
    wire vl_issue = commit_now && commit[S_VEC] && !v_mac && !v_red && !v_pwl;
    wire vgclk;
    icg u_vgate (.clk(clk), .en(vl_issue), .gclk(vgclk));
    always @(posedge vgclk) begin
        l_vop <= vop; l_va <= va; l_vb <= vb; l_aa <= aa; l_ab <= ab; l_sh <= v_sh; l_si <= v_si; l_rm <= rm;
        l_ahi <= wv_a[0]; l_d <= wv_d; l_shape <= v_shape; l_half <= v_half;
    end
    // the reductions; a younger load of their register lands first and cancels them
    reg  [7:0]  red_kill_acc;
    reg  [15:0] red_kill_x;
    integer rk;
    always @* begin
        red_kill_acc = 8'd0; red_kill_x = 16'd0;
        for (rk = 0; rk < 2; rk = rk + 1)
            if (commit_now && commit[rk] && $unsigned(wr_u[3*rk]) < NU) begin
                if ($unsigned(wr_u[3*rk]) >= U_ACC)
                    red_kill_acc[3'($unsigned(wr_u[3*rk]) - U_ACC)] = 1'b1;
                else if ($unsigned(wr_u[3*rk]) >= U_X && $unsigned(wr_u[3*rk]) < U_X + 16)
                    red_kill_x[4'($unsigned(wr_u[3*rk]) - U_X)] = 1'b1;
            end
    end
    wire          red_out_v, red_out_x, red_busy;
    wire [3:0]    red_out_d;
    wire [31:0]   red_s;
    aie_reduce #(.LAT(REDUCE_LATENCY)) u_reduce (
        .clk(clk), .rst(rst || start), .issue(commit_now && commit[S_VEC] && v_red),
        .kind(v_redx ? 2'd2 : (vop == OP_AREDADD_I32) ? 2'd1 : 2'd0),
        .d(v_redx ? wv_d[3:0] : {1'b0, wv_d[2:0]}), .a(v_redx ? {512'd0, va} : aa),
        .kill_acc(red_kill_acc), .kill_x(red_kill_x), .out_v(red_out_v), .out_x(red_out_x),
        .out_d(red_out_d), .out_s(red_s), .busy(red_busy));
    wire          pwl_out_v, pwl_busy;
    wire [2:0]    pwl_out_d;
    wire [1023:0] pwl_y;
    aie_pwl #(.LAT(PWL_LATENCY)) u_pwl (
        .clk(clk), .rst(rst || start), .issue(commit_now && commit[S_VEC] && v_pwl),
        .fn((vop == OP_VPWL_EXP) ? 2'd0 : (vop == OP_VPWL_RCP) ? 2'd1 : 2'd2),
        .d(wv_d[2:0]), .a(aa), .kill(red_kill_acc), .out_v(pwl_out_v), .out_d(pwl_out_d),
        .out_y(pwl_y), .busy(pwl_busy));
    wire          mac_out_v, mac_busy;
    wire [2:0]    mac_out_d, mac_in_d;
    wire [1023:0] mac_y;
    // (a wire, not acc[mac_in_d] on the port: Yosys 0.23 re-elaborates a module that
    // connects an array element to a port of a module not yet elaborated, which trips an
    // internal assertion when that module is the top derived with -chparam)
    wire [1023:0] mac_acc = acc[mac_in_d];
    aie_mac #(.MAC_LATENCY(MAC_LATENCY)) u_mac (
        .clk(clk), .rst(rst || start), .issue(commit_now && commit[S_VEC] && v_mac), .op(vop),
        .d(wv_d[2:0]), .a(va), .b(mac_b), .a_hi(wv_a[0]), .b_hi(wv_b[0]), .kill(mac_kill),
        .out_v(mac_out_v), .out_d(mac_out_d), .in_d(mac_in_d), .in_acc(mac_acc), .out_y(mac_y),
        .busy(mac_busy));
    assign q_push = commit_now && commit[S_ALU] && a_dma;
    // the DMA's releases of this cycle, per lock; one taking a lock above LOCK_MAX stops
    // the run at the bundle waiting to issue
    reg  [8:0] drel [0:NUM_LOCK-1];
    reg        rel_over;
    integer dl, dc;
    // (the sums only in a cycle with a release: the simulator runs the loop at every edge)
    always @* begin
        rel_over = 1'b0;
        for (dl = 0; dl < NUM_LOCK; dl = dl + 1) drel[dl] = 9'd0;
        if (rel_v != 4'd0)
            for (dl = 0; dl < NUM_LOCK; dl = dl + 1)
                for (dc = 0; dc < 4; dc = dc + 1)
                    if (rel_v[dc] && rel_l[4*dc +: 4] == 4'(dl)) drel[dl] = drel[dl] + 9'(rel_n[6*dc +: 6]);
        for (dl = 0; dl < NUM_LOCK; dl = dl + 1)
            if (9'(lka(4'(dl))) + drel[dl] > 9'(LOCK_MAX)) rel_over = 1'b1;
    end
    // The scoreboard's scans: every result readable (`drained`, read once the core has
    // stopped) and the cycles until the last pending one is (`max_rdy`, at a failure or a
    // DMA wait). Functions called where the result is used, so the simulator scans the
    // NU entries only in the cycles that read them (the logic is the same).
    function automatic drained_f(input integer unused);
        integer fk;
        drained_f = 1'b1;
        for (fk = 0; fk < NU; fk = fk + 1) if (rdy[fk] != 5'd0) drained_f = 1'b0;
    endfunction
    function automatic [4:0] max_rdy_f(input integer unused);
        integer fk;
        max_rdy_f = 5'd0;
        for (fk = 0; fk < NU; fk = fk + 1) if (rdy[fk] > max_rdy_f) max_rdy_f = rdy[fk];
    endfunction
    // every write has landed and every unit is idle (a stopped run is done)
    wire finished = !ret_v[0] && !ret_v[1] && cf_left == 2'd0 && dma_idle && !mac_busy && !red_busy
                    && !pwl_busy && !vl_v;
    integer i;
    always @(posedge clk) begin
        rt_valid <= 1'b0;
        if (rst) begin
            // (not `failed`: it halts the DMA, whose queues keep a failed run's transfers
            // until `start` clears them; the harness resets before loading the next run)
            running <= 1'b0; stopped <= 1'b0; done <= 1'b0; fetched <= 1'b0;
            cf_left <= 2'd0;
            ret_v[0] <= 1'b0; ret_v[1] <= 1'b0;
            vl_v <= 1'b0;
        end else if (start) begin
            running <= 1'b1; stopped <= (prog_len == 32'd0); done <= 1'b0; fetched <= 1'b1;
            failed <= 1'b0;
            pc <= '0; bno <= 32'd0; cyc <= 64'd0; retired <= 64'd0; sp <= '0;
            for (i = 0; i < 6; i = i + 1) busy[i] <= 64'd0;
            rm <= 2'(RM_INIT);
            stop_kind <= 2'd0; err_code <= E_NONE; err_slot <= 3'd7; err_b <= 32'd0;
            err_cycle <= 64'd0; err_addr <= 32'sd0; err_val <= 32'sd0;
            st_hazard <= 64'd0; st_bank <= 64'd0; st_dwait <= 64'd0; st_dqueue <= 64'd0; st_port <= 64'd0;
            collided <= 1'b0; dma_err_q <= 1'b0; dead <= 1'b0; elapsed <= 64'd0; dma_end <= 64'd0;
            wt_on <= 1'b0; end_seen <= 1'b0;
            cf_left <= 2'd0; cf_phase <= 2'd0;
            ret_v[0] <= 1'b0; ret_v[1] <= 1'b0;
            vl_v <= 1'b0;
        end else if (running) begin
            vl_v <= vl_issue;
            for (ck_s = 0; ck_s < 2; ck_s = ck_s + 1) ret_v[ck_s] <= 1'b0;

            // The count stops once nothing is left to issue and every result is readable;
            // after a failure it ends at the latest pending result (set below). A run that
            // ends with transfers waiting for locks no one will release: an error at the
            // cycle the core finished (the model's drain), once the DMA is quiet.
            if (!stopped) cyc <= cyc + 64'd1;
            else if (failed) begin
                if (finished) begin done <= 1'b1; running <= 1'b0; end
            end else if (cf_left == 2'd0 && dma_idle) begin
                if (drained_f(0)) begin
                    if (!dma_empty) begin
                        failed <= 1'b1; stop_kind <= 2'd2; err_code <= E_STUCK; err_slot <= 3'd7;
                        err_b <= bno; err_cycle <= end_seen ? end_cyc : cyc;
                    end else if (finished) begin done <= 1'b1; running <= 1'b0; end
                end else cyc <= cyc + 64'd1;
            end else cyc <= cyc + 64'd1;

            // later phases of a bank-conflicting bundle (a held one waits)
            if (held) begin
                if (!failed) st_port <= st_port + 64'd1;
            end else if (cf_left != 2'd0) begin
                if (!failed) st_bank <= st_bank + 64'd1;
                for (ck_s = 0; ck_s < 2; ck_s = ck_s + 1)
                    if (l_v[ck_s] && l_ph[ck_s] == cf_phase) begin
                        ret_v[ck_s] <= 1'b1; ret_op[ck_s] <= pend_op[ck_s]; ret_d[ck_s] <= pend_d[ck_s];
                        ret_off[ck_s] <= pend_off[ck_s];
                    end
                cf_left <= cf_left - 2'd1;
                cf_phase <= cf_phase + 2'd1;
            end

            if (want && hazard && !budget_out && !halt_req) st_hazard <= st_hazard + 64'd1;
            if (want && !hazard && !budget_out && !halt_req && !dma_err_q && wait_dma) begin
                if (a_acq) st_dwait <= st_dwait + 64'd1;
                else st_dqueue <= st_dqueue + 64'd1;
                if (!wt_on) begin
                    wt_on <= 1'b1; wt_cyc <= cyc; wt_end <= cyc + 64'(max_rdy_f(0));
                    wt_dwait <= st_dwait; wt_dqueue <= st_dqueue;
                end
            end
            if (issue) wt_on <= 1'b0;
            if (stopped && !failed && cf_left == 2'd0 && !end_seen) begin
                end_seen <= 1'b1; end_cyc <= cyc;
            end
            if (pw && !hazard && !budget_out && !halt_req && !dma_err_q && !wait_dma && !deadlock)
                st_port <= st_port + 64'd1;
            if (dm_collide) collided <= 1'b1;
            elapsed <= elapsed + 64'd1;
            if (!dma_idle) dma_end <= elapsed + 64'd1;
            if (rel_over) dma_err_q <= 1'b1;
            if (commit_now) begin
                // memory slots: loads return next cycle (phase 0) or later; post-modify
                for (ck_s = 0; ck_s < 3; ck_s = ck_s + 1)
                    if (commit[ck_s]) begin
                        if (ck_s < 2) begin
                            if (mphase[ck_s] == 2'd0) begin
                                ret_v[ck_s] <= 1'b1; ret_op[ck_s] <= mop[ck_s]; ret_d[ck_s] <= mreg[ck_s];
                                ret_off[ck_s] <= maddr[ck_s][4:0];
                            end
                            pend_op[ck_s] <= mop[ck_s]; pend_d[ck_s] <= mreg[ck_s]; pend_off[ck_s] <= maddr[ck_s][4:0];
                        end
                    end
                for (ck_s = 0; ck_s < 3; ck_s = ck_s + 1) begin
                    l_v[ck_s] <= commit[ck_s]; l_ph[ck_s] <= mphase[ck_s]; l_row[ck_s] <= c_row[ck_s];
                    l_nrows[ck_s] <= c_nrows[ck_s]; l_we[ck_s] <= (ck_s == S_ST);
                end
                if (commit[S_ST] && mphase[S_ST] != 2'd0) begin l_be <= c_be; l_wd <= c_wd; end
                if (commit[S_ALU] && a_setrm) rm <= wa_u[1:0];
            end

            if (issue) begin
                for (ck_s = 0; ck_s < 6; ck_s = ck_s + 1) if (sv[ck_s]) busy[ck_s] <= busy[ck_s] + 64'd1;
                retired <= retired + 64'd1;
                rt_valid <= 1'b1; rt_index <= retired; rt_bundle <= bno; rt_cycle <= cyc;
                if (nphase != 2'd0) begin cf_left <= nphase; cf_phase <= 2'd1; end
                if (!a_halt) sp <= nxt_sp;
                pc <= nxt_pc;
                bno <= nxt_b;
                if (a_halt) begin stopped <= 1'b1; stop_kind <= 2'd1; end
                else if (at_end) stopped <= 1'b1;
            end else if (fail) begin
                stopped <= 1'b1;
                stop_kind <= 2'd2;
                err_b <= bno;
                err_cycle <= cyc;
                err_slot <= budget_out || halt_req || dma_err_q ? 3'd7 : (deadlock ? 3'(S_ALU) : b_err_slot);
                err_addr <= b_err_addr;
                err_val <= b_err_val;
                err_code <= budget_out ? (retired >= max_retire ? E_BUDGET : E_CYCLES) : halt_req ? E_HALT
                          : dma_err_q ? E_DMAREL : deadlock ? E_DEADLOCK : b_err;
                failed <= 1'b1;
                dead <= deadlock && !budget_out && !halt_req && !dma_err_q;
                cyc <= cyc + 64'(max_rdy_f(0));
                if (deadlock && !budget_out && !halt_req && !dma_err_q && wt_on) begin
                    err_cycle <= wt_cyc; cyc <= wt_end; st_dwait <= wt_dwait; st_dqueue <= wt_dqueue;
                end
                // accesses of operations before the failing one still complete (the
                // model's bundle ran them); their extra cycles are not counted
                if (err_commit && nphase != 2'd0) begin cf_left <= nphase; cf_phase <= 2'd1; end
            end
        end
    end

    // The register files, the scoreboard, the locks and the loop stack, each in a block of
    // its own (the same conditions as the block above; one clock edge): one process per
    // array keeps the write ports of each few and Yosys's `proc` quick.
    // Register files: results land in age order, the younger write of a register last
    // (it wins): a multiply's result, then the vector lanes', the loads', the issue's.
    integer rf_i, rf_f, rf_s;
    always @(posedge clk) begin
        if (!rst && start) begin
            for (rf_i = 0; rf_i < NUM_R; rf_i = rf_i + 1) r[rf_i] <= 32'sd0;
            for (rf_i = 0; rf_i < NUM_P; rf_i = rf_i + 1) p[rf_i] <= 32'sd0;
            for (rf_i = 0; rf_i < NUM_M; rf_i = rf_i + 1) m[rf_i] <= 32'sd0;
            for (rf_i = 0; rf_i < NUM_G; rf_i = rf_i + 1)
                for (rf_f = 0; rf_f < 7; rf_f = rf_f + 1) g[rf_i][rf_f] <= 32'sd0;
            for (rf_i = 0; rf_i < NUM_X; rf_i = rf_i + 1) x[rf_i] <= 512'd0;
            for (rf_i = 0; rf_i < NUM_ACC; rf_i = rf_i + 1) acc[rf_i] <= 1024'd0;
        end else if (!rst && running) begin
            if (mac_out_v) acc[mac_out_d] <= mac_y;
            if (pwl_out_v) acc[pwl_out_d] <= pwl_y;
            if (red_out_v) begin
                if (red_out_x) x[red_out_d] <= {32{red_s[15:0]}};
                else acc[red_out_d[2:0]] <= {32{red_s}};
            end
            if (vl_v) begin
                if (l_shape[0]) acc[l_d[2:0]] <= v_accres;
                else if (l_half) x[l_d[4:1]][256*l_d[0] +: 256] <= v_res[255:0];
                else x[l_d[3:0]] <= v_res;
            end
            for (rf_s = 0; rf_s < 2; rf_s = rf_s + 1)
                if (ret_v[rf_s])
                    case (ret_op[rf_s])
                        OP_LD:   if (ret_d[rf_s] != 5'd0)
                                     r[ret_d[rf_s][3:0]] <= $signed(rwin[rf_s][8 * $unsigned(ret_off[rf_s] & KEEP_LD) +: 32]);
                        OP_VLD:  x[ret_d[rf_s][3:0]] <= rwin[rf_s][8 * $unsigned(ret_off[rf_s] & KEEP_VLD) +: 512];
                        OP_VLDB: x[ret_d[rf_s][3:0]] <= {32{rwin[rf_s][8 * $unsigned(ret_off[rf_s] & KEEP_VLDB) +: 16]}};
                        default: acc[ret_d[rf_s][2:0]] <= rwin[rf_s] >> (8 * $unsigned(ret_off[rf_s] & KEEP_ALD));  // ALD
                    endcase
            if (commit_now) begin
                // post-modify of the memory slots
                for (rf_s = 0; rf_s < 3; rf_s = rf_s + 1)
                    if (commit[rf_s]) begin
                        if (pwr[rf_s]) p[mpi[rf_s]] <= p[mpi[rf_s]] + step[rf_s];
                        if (gwr[rf_s]) begin
                            g[pm_val[rf_s][1:0]][5] <= gnew[rf_s][5];
                            g[pm_val[rf_s][1:0]][6] <= gnew[rf_s][6];
                        end
                    end
                // scalar slot
                if (commit[S_ALU]) begin
                    if (a_wr_r && wa_d != 5'd0) r[wa_d[3:0]] <= a_val;
                    if (a_wr_p) p[wa_d[2:0]] <= a_val;
                end
                // move slot
                if (commit[S_MV])
                    case (mv_kind)
                        3'd1: if (wm_d != 5'd0) r[wm_d[3:0]] <= mv_val;
                        3'd2: p[wm_d[2:0]] <= mv_val;
                        3'd3: m[wm_d[2:0]] <= mv_val;
                        3'd4: begin
                            g[wm_d[1:0]][mv_gf] <= mv_val;
                            g[wm_d[1:0]][5] <= 32'sd0;
                            g[wm_d[1:0]][6] <= 32'sd0;
                        end
                        3'd5: x[wm_d[3:0]] <= mv_x_f(0);
                        3'd6: acc[wm_d[2:0]] <= mv_acc_f(0);
                        default: ;
                    endcase
            end
        end
    end

    // Scoreboard: counts down (not while a held access keeps the memory stage); an
    // issue loads the latency of each result it writes.
    integer sc_i, sc_t;
    always @(posedge clk) begin
        if (!rst && start) begin
            for (sc_i = 0; sc_i < NU; sc_i = sc_i + 1) rdy[sc_i] <= 5'd0;
            for (sc_i = 0; sc_i < NUM_ACC; sc_i = sc_i + 1) mrdy[sc_i] <= 5'd0;
        end else if (!rst && running) begin
            if (!held) begin
                for (sc_i = 0; sc_i < NU; sc_i = sc_i + 1) if (rdy[sc_i] != 5'd0) rdy[sc_i] <= rdy[sc_i] - 5'd1;
                for (sc_i = 0; sc_i < NUM_ACC; sc_i = sc_i + 1) if (mrdy[sc_i] != 5'd0) mrdy[sc_i] <= mrdy[sc_i] - 5'd1;
            end
            if (issue)
                for (sc_t = 0; sc_t < 18; sc_t = sc_t + 1)
                    if ($unsigned(wr_u[sc_t]) < NU) begin
                        rdy[wr_u[sc_t]] <= wr_l[sc_t] - 5'd1;
                        if ($unsigned(wr_u[sc_t]) >= U_ACC)
                            mrdy[3'($unsigned(wr_u[sc_t]) - U_ACC)] <=
                                (sc_t == 12 && v_mac) ? 5'(ACC_FORWARD - 1) : wr_l[sc_t] - 5'd1;
                    end
        end
    end

    // Locks: the DMA's acquires (and the core's REL: lk_a), its releases, then the core's
    // ACQ (same edge).
    integer lk_i;
    always @(posedge clk) begin
        if (!rst && start)
            for (lk_i = 0; lk_i < NUM_LOCK; lk_i = lk_i + 1) lk[lk_i] <= 6'd0;
        else if (!rst && running) begin
            for (lk_i = 0; lk_i < NUM_LOCK; lk_i = lk_i + 1) lk[lk_i] <= 6'(9'(lka(4'(lk_i))) + drel[lk_i]);
            if (commit_now && commit[S_ALU] && a_acq)
                lk[a_lock] <= 6'(9'(lka(a_lock)) + drel[a_lock] - 9'(a_lockn));
        end
    end

    // Loop stack: LOOP pushes; a taken loop back counts its trips down (HALT ends the
    // run before the loops ending at its bundle close).
    always @(posedge clk) begin
        if (!rst && !start && running && issue) begin
            if (a_loop) begin
                lp_pc[sp[LW-1:0]] <= seq_pc; lp_b[sp[LW-1:0]] <= bno + 1; lp_n[sp[LW-1:0]] <= a_trips;
            end
            if (back && !a_halt) lp_n[LW'(nxt_sp - 1'b1)] <= top_n;
        end
    end

    // --- host register reads -----------------------------------------------------------
    // 0x000 r0..  0x010 p0..  0x018 m0..  0x020 g (7 words each)  0x040 locks  0x050 RM
    // 0x060 loop stack (body bundle, trips) pairs  0x06F depth
    // 0x080 stop  0x081 err_code  0x082 err_slot  0x083 err_b  0x084/5 err_cycle lo/hi
    // 0x086 err_addr  0x087 err_val  0x088/9 cycles  0x08A/B retired  0x08C/D data_hazard
    // 0x08E/F bank_conflict  0x090.. busy per slot (lo, hi)  0x0A0/1 dma_wait
    // 0x0A2/3 dma_queue  0x0A4.. busy per DMA channel (lo, hi)  0x0AC port collision
    // 0x0AD/E dma_port
    // 0x400 + 16*x + word: vector registers   0x800 + 32*acc + lane: accumulators
    always @* begin
        hr_data = 32'd0;
        if (hr_addr[11]) hr_data = acc_word(hr_addr[7:5], hr_addr[4:0]);
        else if (hr_addr[10]) hr_data = x[hr_addr[7:4]][32*hr_addr[3:0] +: 32];
        else if (hr_addr < 12'h010) hr_data = r[hr_addr[3:0]];
        else if (hr_addr < 12'h018) hr_data = p[hr_addr[2:0]];
        else if (hr_addr < 12'h020) hr_data = m[hr_addr[2:0]];
        // (hr_addr - 0x020 is hr_addr[4:0] here: a 5-bit division by 7, not a 32-bit one,
        // whose array of 32 subtractors of 32 to 63 bits Yosys's techmap builds one by one)
        else if (hr_addr < 12'h03C) hr_data = g[hr_addr[4:0] / 5'd7][hr_addr[4:0] % 5'd7];
        else if (hr_addr >= 12'h040 && hr_addr < 12'h050) hr_data = 32'(lk[hr_addr[3:0]]);
        else if (hr_addr == 12'h050) hr_data = 32'(rm);
        else if (hr_addr >= 12'h060 && hr_addr < 12'h06F)
            hr_data = $unsigned(hr_addr[3:1]) < LOOP_DEPTH ?
                      (hr_addr[0] ? lp_n[hr_addr[3:1]] : lp_b[hr_addr[3:1]]) : 32'd0;
        else if (hr_addr == 12'h06F) hr_data = 32'(sp);
        else case (hr_addr)
            12'h080: hr_data = 32'(stop_kind);
            12'h081: hr_data = 32'(err_code);
            12'h082: hr_data = 32'(err_slot);
            12'h083: hr_data = err_b;
            12'h084: hr_data = err_cycle[31:0];
            12'h085: hr_data = err_cycle[63:32];
            12'h086: hr_data = err_addr;
            12'h087: hr_data = err_val;
            // after a failure the run ends when every transfer it lets run has completed
            12'h088: hr_data = (failed && dma_end > cyc) ? dma_end[31:0] : cyc[31:0];
            12'h089: hr_data = (failed && dma_end > cyc) ? dma_end[63:32] : cyc[63:32];
            12'h08A: hr_data = retired[31:0];
            12'h08B: hr_data = retired[63:32];
            12'h08C: hr_data = st_hazard[31:0];
            12'h08D: hr_data = st_hazard[63:32];
            12'h08E: hr_data = st_bank[31:0];
            12'h08F: hr_data = st_bank[63:32];
            12'h0A0: hr_data = st_dwait[31:0];
            12'h0A1: hr_data = st_dwait[63:32];
            12'h0A2: hr_data = st_dqueue[31:0];
            12'h0A3: hr_data = st_dqueue[63:32];
            12'h0AC: hr_data = 32'(collided);
            12'h0AD: hr_data = st_port[31:0];
            12'h0AE: hr_data = st_port[63:32];
            default:
                if (hr_addr >= 12'h0A4 && hr_addr < 12'h0AC)
                    hr_data = dma_busy[32 * (hr_addr - 12'h0A4) +: 32];
                else if (hr_addr >= 12'h090 && hr_addr < 12'h09C)
                    hr_data = hr_addr[0] ? busy[(hr_addr - 12'h090) >> 1][63:32]
                                         : busy[(hr_addr - 12'h090) >> 1][31:0];
        endcase
    end
endmodule
