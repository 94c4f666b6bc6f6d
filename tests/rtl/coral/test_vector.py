"""The vector unit (rtl/coral/coral_vec.v) against the model: random vector programs,
programs that break the model's vector rules, what the RTL refuses, and the timing
model's write-back cycle (the RTL is the timing reference)."""
import pytest

from kernelcraft.simulators.core.backend import Job, MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import ConfigError
from kernelcraft.simulators.coral.assembler import assemble
from kernelcraft.simulators.coral.machine import CoralModel
from kernelcraft.simulators.coral_rtl.backend import _CARRY
from kernelcraft.simulators.coral_rtl.compare import compare_runs, compare_traces
from kernelcraft.simulators.coral_rtl.randvec import (fault_programs, random_fixed_program, random_indexed_program,
                                                      random_scoreboard_program, random_subword_program,
                                                      random_unaligned_load_program, random_vector_program,
                                                      random_widening_program)

SEEDS = range(60)


def _both(rtl, cfg, sources, trace=False):
    programs = [assemble(s, "v.s", cfg) for s in sources]
    rtl_runs = rtl.run_many([Job(p, MemoryImage(), Budget(), trace) for p in programs], cfg)
    return [(CoralModel().run(p, MemoryImage(), cfg, Budget(), trace=trace), r) for p, r in zip(programs, rtl_runs)]


def _words(n: int) -> str:
    """n data words of a multiplicative hash: every byte value, none repeating soon."""
    return ", ".join(hex((i * 0x9E3779B9) & 0xFFFFFFFF) for i in range(n))


def _cases_match(rtl, cfg, src: str, cases: list[dict]) -> None:
    runs = _both(rtl, cfg, [src.format(**c) for c in cases])
    for c, (model, r) in zip(cases, runs):
        assert model.error is None and compare_runs(model, r) == [], c


def test_random_vector_programs_match_the_model(cfg, rtl):
    # one simulator process for all of them
    runs = _both(rtl, cfg, [random_vector_program(s) for s in SEEDS])
    for seed, (model, r) in zip(SEEDS, runs):
        assert model.error is None, (seed, model.error)
        assert compare_runs(model, r) == [], f"seed {seed}"
    # the programs wait for the vector unit (queue slots, scalar loads/stores, fflags)
    assert sum(m.stalls["vector_sync"] for m, _ in runs) > 0
    assert sum(m.unit_busy["vector"] for m, _ in runs) > 1000


def test_widening_and_narrowing_match_the_model(cfg, rtl):
    # every widening, narrowing and extension form at every LMUL it allows, masked, both
    # policies, sources overlapping the destination where the rules allow it
    seeds = range(30)
    runs = _both(rtl, cfg, [random_widening_program(s) for s in seeds])
    for seed, (model, r) in zip(seeds, runs):
        assert model.error is None, (seed, model.error)
        assert compare_runs(model, r) == [], f"seed {seed}"


def test_sew_8_and_16_match_the_model(cfg, rtl):
    # the integer element-wise instructions, compares, merges, moves and mask instructions
    # at SEW 8 and 16, LMUL 1/4 to 8, with widening and narrowing between them; traced, so
    # that every write is compared, not only the registers' and memory's final state (a
    # result overwritten later would hide a wrong one)
    seeds = range(40)
    runs = _both(rtl, cfg, [random_subword_program(s) for s in seeds], trace=True)
    for seed, (model, r) in zip(seeds, runs):
        assert model.error is None, (seed, model.error)
        assert compare_runs(model, r) == [], f"seed {seed}"
        assert compare_traces(model.trace, r.trace) is None, f"seed {seed}"


def test_fixed_point_programs_match_the_model(cfg, rtl):
    # the fixed-point instructions at SEW 8, 16, 32, LMUL 1/4 to 8, vxrm changed and vxsat read and
    # cleared between them; traced: vxsat's setting is attributed to the instruction that saturated
    seeds = range(20)
    runs = _both(rtl, cfg, [random_fixed_program(s) for s in seeds], trace=True)
    for seed, (model, r) in zip(seeds, runs):
        assert model.error is None, (seed, model.error)
        assert compare_runs(model, r) == [], f"seed {seed}"
        assert compare_traces(model.trace, r.trace) is None, f"seed {seed}"
    assert sum(m.registers["x"][10] & 1 for m, _ in runs) > 0          # vcsr's vxsat at the end


def test_indexed_accesses_match_the_model(cfg, rtl):
    # every indexed load and store at SEW 8, 16, 32 with offsets of each width (EMUL 1/4 to 8),
    # masked or not, both policies, vl 0 to past VLMAX, loads onto their offsets where RVV allows
    # it, offsets written just before (the wait for their writers); traced: every element written is compared
    seeds = range(30)
    sources = [random_indexed_program(s) for s in seeds]
    runs = _both(rtl, cfg, sources, trace=True)
    for seed, (model, r) in zip(seeds, runs):
        assert model.error is None, (seed, model.error)
        assert compare_runs(model, r) == [], f"seed {seed}"
        assert compare_traces(model.trace, r.trace) is None, f"seed {seed}"
    assert sum(src.count("xei") for src in sources) >= 400
    assert sum(m.stalls["vector_sync"] for m, _ in runs) > 0


def test_indexed_accesses_wait_for_their_registers_writers_only(cfg, rtl, monkeypatch):
    # the scoreboard: indexed accesses (masked or not, segments too) right after writers of
    # their offsets' group, of v0, or of other registers only, every destination shape (mask,
    # reduction, widening, segment, whole register, EMUL of another EEW); traced
    seeds = range(30)
    sources = [random_scoreboard_program(s) for s in seeds]
    runs = _both(rtl, cfg, sources, trace=True)
    for seed, (model, r) in zip(seeds, runs):
        assert model.error is None, (seed, model.error)
        assert compare_runs(model, r) == [], f"seed {seed}"
        assert compare_traces(model.trace, r.trace) is None, f"seed {seed}"
    assert sum(src.count("xei") + src.count("xseg") for src in sources) >= 600
    assert all(m.stalls["vector_sync"] > 0 for m, _ in runs)
    from kernelcraft.simulators.speed import same
    for src, (model, _) in zip(sources, runs):       # the model's fast paths off: the same
        assert same(CoralModel().run(assemble(src, "v.s", cfg), MemoryImage(), cfg, Budget(fast=False), trace=True),
                    model) == ""
    # waiting for the whole unit to drain (the rule before the scoreboard) takes longer
    from kernelcraft.simulators.coral.timing import VectorTiming
    monkeypatch.setattr(VectorTiming, "wait_regs", lambda self, t, regs: self.drain(t))
    drained = [CoralModel().run(assemble(src, "v.s", cfg), MemoryImage(), cfg, Budget()) for src in sources]
    faster = sum(d.cycles > r.cycles for d, (_, r) in zip(drained, runs))
    assert all(d.cycles >= r.cycles for d, (_, r) in zip(drained, runs)) and faster >= len(seeds) - 2



def test_scoreboard_sets_hold_every_register_the_unit_writes(cfg, tmp_path):
    # the written sets (scoreboard.write_rule, the RTL's d_wset) against S2's register writes
    # and all-ones marks in the RTL's trace: never narrower (a waiting access would read a
    # stale register), wider only where rtl/coral/README.md says (vl = 0, tu tails, vslideup)
    from kernelcraft.isa.loader import get_isa
    from kernelcraft.simulators.coral import scoreboard
    from kernelcraft.simulators.coral.state import CoralState
    from kernelcraft.simulators.coral_rtl.backend import CoralRTL
    isa = get_isa("coral")
    sources = [g(s) for s in range(8) for g in (random_scoreboard_program, random_vector_program,
                                                random_widening_program, random_subword_program,
                                                lambda s: random_indexed_program(s, segments=True))]
    programs = [assemble(src, "v.s", cfg) for src in sources]
    CoralRTL(keep=tmp_path).run_many([Job(p, MemoryImage(), Budget(), True) for p in programs], cfg)
    (base,) = tmp_path.iterdir()
    wider, total = {"vl=0": 0, "tu": 0, "vslideup": 0}, 0
    for k, p in enumerate(programs):
        st, sets, written = CoralState(cfg, len(p.instrs)), [], {}
        for f in (base / f"job{k}" / "trace.txt").read_text().split("\n"):
            f = f.split()
            if f and f[0] == "R" and int(f[2]) < len(p.instrs):
                ins = p.instrs[int(f[2])]
                if ins.mnemonic.startswith("v") and not ins.mnemonic.startswith("vset"):
                    d = isa.instructions[ins.mnemonic]
                    ops = {op.name: ins.ops.get(op.name, op.kind.default) for op in d.operands}
                    sets.append((ins.mnemonic, st.vl, st.vta, scoreboard.write_rule(ins.mnemonic, ops)(st)))
            elif f and f[0] == "L":
                st.set_vtype(int(f[2]), int(f[1]))
            elif f and f[0] in "VM":
                written[int(f[1])] = written.get(int(f[1]), 0) | (1 << int(f[2]) if f[0] == "V" else int(f[2], 16))
        for n, (mn, vl, vta, regs) in enumerate(sets):
            total += 1
            assert written.get(n, 0) & ~regs == 0, (sources[k], n, mn)
            if regs & ~written.get(n, 0):
                why = "vl=0" if vl == 0 else "tu" if not vta else "vslideup" if mn.startswith("vslideup") else None
                assert why, (sources[k], n, mn, vl)
                wider[why] += 1
    assert total > 2000 and all(wider.values()), (total, wider)

INDEXED = (".text\nla a0, d\nvsetvli t1, zero, e32, m8\nvle32.v v8, (a0)\nvle32.v v16, (a0)\nli t0, {bits}\n"
           "vmv.s.x v0, t0\nvsetvli t1, zero, e{eew}, m8\nli t0, {offs}\nvmv.v.x v24, t0\nvid.v v16\n"
           "li t0, {step}\nvmul.vx v16, v16, t0\nvadd.vv v24, v24, v16\nli t0, {avl}\n"
           "vsetvli t1, t0, e{sew}, {lm}, {pol}\nli a1, {base}\n{op}\nebreak\n.data\n.balign 16\nd: .word "
           + _words(64) + "\n")


def test_indexed_access_edges(cfg, rtl):
    # offsets zero-extended at their largest aligned value (0xfc, 0xfffe, ...: sign-extended they
    # would leave DTCM), one address for every element (a store's last one wins); inactive
    # elements and elements past vl (vl = 0 too) outside DTCM or misaligned: no fault, nothing
    # read or written; a load onto its own offsets (vd = vs2, SEW <= EEW: RVV allows it)
    base, last = cfg.DTCM_BASE, cfg.DTCM_BASE + cfg.DTCM_SIZE
    cases = []
    for op in ("vluxei{eew}.v v8, (a1), v24{vm}", "vsoxei{eew}.v v8, (a1), v24{vm}", "vloxei{eew}.v v24, (a1), v24{vm}"):
        for eew, sew, lm in ((8, 32, "m4"), (16, 16, "m2"), (32, 8, "m1"), (16, 32, "m8")):
            if op.startswith("vloxei") and sew > eew:
                continue
            sb = sew // 8
            big = min(1 << eew, cfg.DTCM_SIZE) - sb
            for c in (dict(pol="tu, mu", avl=1000, bits=0, offs=big, step=0, base=base, vm=""),
                      dict(pol="ta, ma", avl=0, bits=0, offs=1, step=0, base=last, vm=""),
                      # elements 0-3 active and in DTCM, 4-6 inactive and past its end
                      dict(pol="tu, mu", avl=7, bits=0x0F, offs=0, step=32, base=last - 128, vm=", v0.t"),
                      dict(pol="ta, ma", avl=9, bits=0, offs=1, step=0, base=last, vm=", v0.t")):
                cases.append(dict(c, eew=eew, sew=sew, lm=lm, op=op.format(eew=eew, vm=c["vm"])))
    _cases_match(rtl, cfg, INDEXED, cases)
    assert len(cases) == 40


def test_segment_accesses_match_the_model(cfg, rtl):
    # segment loads and stores of every addressing mode, NF 2 to 8, field widths 8, 16, 32 (indexed:
    # SEW), masked or not, both policies, vl 0 to past VLMAX, overlapping segments (strides below
    # NF fields, 0, negative; equal offsets: a store's order is the model's, segment by segment),
    # between indexed ones; traced
    seeds = range(30)
    sources = [random_indexed_program(s, segments=True) for s in seeds]
    runs = _both(rtl, cfg, sources, trace=True)
    for seed, (model, r) in zip(seeds, runs):
        assert model.error is None, (seed, model.error)
        assert compare_runs(model, r) == [], f"seed {seed}"
        assert compare_traces(model.trace, r.trace) is None, f"seed {seed}"
    assert sum(src.count("seg") for src in sources) >= 150


SEGMENTS = (".text\nla a0, d\nvsetvli t1, zero, e32, m8\nvle32.v v8, (a0)\nvle32.v v16, (a0)\nli t0, {bits}\n"
            "vmv.s.x v0, t0\nfence\nli t0, {avl}\nvsetvli t1, t0, e{sew}, {lm}, {pol}\nli a1, {base}\nli t3, {stride}\n{op}\n"
            "ebreak\n.data\n.balign 16\nd: .word " + _words(64) + "\n")


def test_segment_access_edges(cfg, rtl):
    # segments ending exactly at DTCM's end; a masked-off last segment whose fields run past it
    # (no fault; the fence: a masked access running off DTCM needs v0 final, else E_VPEND); vl = 0
    # from past the end; every segment at one address (the last one's fields win); a segment
    # whose first field fits and second does not faults there, as in the model
    last = cfg.DTCM_BASE + cfg.DTCM_SIZE
    cases = [dict(sew=32, lm="m1", pol="tu, mu", avl=4, bits=0, base=last - 48, stride=0,
                  op="vsseg3e32.v v8, (a1)\nvlseg3e32.v v12, (a1)"),
             dict(sew=32, lm="m1", pol="ta, ma", avl=4, bits=7, base=last - 40, stride=0,
                  op="vsseg3e32.v v8, (a1), v0.t\nvlseg3e32.v v12, (a1), v0.t"),
             dict(sew=16, lm="m2", pol="ta, ma", avl=0, bits=0, base=last, stride=0,
                  op="vlseg4e16.v v8, (a1)\nvsseg4e16.v v16, (a1)"),
             dict(sew=16, lm="m1", pol="tu, mu", avl=8, bits=0, base=last - 64, stride=0,
                  op="vssseg2e16.v v8, (a1), t3\nvlsseg2e16.v v12, (a1), t3\nvlseg2e16.v v14, (a1)"),
             dict(sew=8, lm="mf2", pol="tu, ma", avl=8, bits=0xA5, base=last - 16, stride=-1,
                  op="vssseg2e8.v v8, (a1), t3, v0.t\nvlsseg2e8.v v12, (a1), t3, v0.t")]
    _cases_match(rtl, cfg, SEGMENTS, cases)
    bad = SEGMENTS.format(sew=32, lm="m1", pol="tu, mu", avl=4, bits=0, base=last - 40, stride=0,
                          op="vlseg3e32.v v12, (a1)")
    [(model, r)] = _both(rtl, cfg, [bad])
    assert "segment 3, field 1" in str(model.error) and str(r.error) == str(model.error)
    assert compare_runs(model, r) == []


def test_fault_only_first_loads(cfg, rtl):
    # vle<eew>ff.v and vlseg<nf>e<eew>ff.v: a bad active element (segment) after the first trims vl
    # to it (the RTL's dispatch finds it among up to VLEN, as for masked accesses, and sets vl);
    # EEW != SEW, masked (the first active one bad, past element 0: trimmed too), none bad; vl
    # read back after each; element 0 bad faults
    last = cfg.DTCM_BASE + cfg.DTCM_SIZE
    read = "\ncsrr a2, vl\ncsrr a3, vtype\nli t0, 1000\nvsetvli t1, t0, e32, m1, tu, mu\nvse32.v v12, (a0)"
    cases = [dict(sew=32, lm="m1", pol="tu, mu", avl=4, bits=0, base=last - 8, stride=0, op="vle32ff.v v12, (a1)" + read),
             dict(sew=32, lm="m1", pol="ta, ma", avl=4, bits=0b1100, base=last - 8, stride=0,
                  op="vle32ff.v v12, (a1), v0.t" + read),
             dict(sew=32, lm="m2", pol="ta, mu", avl=8, bits=0, base=last - 8, stride=0, op="vle16ff.v v12, (a1)" + read),
             dict(sew=16, lm="m1", pol="tu, ma", avl=8, bits=0, base=last - 12, stride=0, op="vlseg2e16ff.v v12, (a1)" + read),
             dict(sew=8, lm="m1", pol="ta, ma", avl=16, bits=0x00F0, base=last - 16, stride=0,
                  op="vlseg3e8ff.v v12, (a1), v0.t" + read),
             dict(sew=8, lm="m2", pol="tu, mu", avl=32, bits=0, base=0, stride=0, op="mv a1, a0\nvle8ff.v v12, (a1)" + read)]
    # traced: vl's change is the load's (the lockstep trace's vl/vtype event)
    runs = _both(rtl, cfg, [SEGMENTS.format(**c) for c in cases], trace=True)
    for c, (model, r) in zip(cases, runs):
        assert model.error is None and compare_runs(model, r) == [], c
        assert compare_traces(model.trace, r.trace) is None, c
    assert [m.registers["x"][12] for m, _ in runs] == [2, 2, 4, 3, 5, 32]          # vl after each
    bad = SEGMENTS.format(sew=32, lm="m1", pol="tu, mu", avl=4, bits=0, base=last, stride=0, op="vle32ff.v v12, (a1)")
    [(model, r)] = _both(rtl, cfg, [bad])
    assert "element 0" in str(model.error) and str(r.error) == str(model.error)
    assert compare_runs(model, r) == []


def test_vector_faults_stop_where_the_model_stops(cfg, rtl):
    names = list(fault_programs())
    runs = _both(rtl, cfg, list(fault_programs().values()))
    for name, (model, r) in zip(names, runs):
        assert model.stop == "error" and compare_runs(model, r) == [], name
        assert str(r.error) == str(model.error), name


def test_a_deliberate_difference_is_found(cfg, rtl):
    [(model, r)] = _both(rtl, cfg, [random_vector_program(3)])
    r.registers["v"] = r.registers["v"].copy()
    r.registers["v"][5, 2] ^= 4
    assert [d.where for d in compare_runs(model, r)] == ["v5"]


def test_unimplemented_vector_work_is_refused(cfg, rtl, monkeypatch):
    # (the RTL has every instruction of isa/coral: one it lacked, as when the ISA gains one)
    from kernelcraft.simulators.coral_rtl import backend
    with monkeypatch.context() as m:
        m.setattr(backend, "VECTOR", backend.VECTOR - {"vadc.vvm"})
        gather = assemble(".text\nvsetvli t0, zero, e32, m1\nvadc.vvm v2, v4, v6, v0\n", "g.s", cfg)
        with pytest.raises(ConfigError, match=r"not vadc.vvm \(Zve32f\): instruction 1 \(line 3\) "
                                              r"`vadc.vvm v2, v4, v6, v0` cannot run on it"):
            rtl.run(gather, MemoryImage(), cfg)
    # an indexed load onto its offsets other than as RVV allows (here SEW 32 over 8-bit offsets in
    # the lowest part of vd's group) is a reserved encoding the RTL refuses at run time
    ovl = assemble(".text\nla a0, d\nvsetvli t0, zero, e32, m4\nvluxei8.v v4, (a0), v4\n.data\nd: .zero 64\n", "o.s", cfg)
    with pytest.raises(ConfigError, match=r"does not yet run instruction 3 .*reserved encoding"):
        rtl.run(ovl, MemoryImage(), cfg)


MASKED = (".text\nli s1, {addr}\nli t0, {bits}\nvsetvli t1, zero, e32, m8\nvfdiv.vv v8, v8, v16\n"
          "vmv.s.x v0, t0\n{sync}li t0, 4\nvsetvli t1, t0, e32, m1, ta, mu\nli t4, -4096\n{op}\nebreak\n")


def test_masked_accesses_check_only_their_active_elements(cfg, rtl):
    # elements past DTCM's end, misaligned or below DTCM fault only when active: the RTL
    # checks each against v0 once nothing queued still writes v0 (the fence waits for that;
    # the fault after it is timed after the wait, model and RTL alike)
    end, base = cfg.DTCM_BASE + cfg.DTCM_SIZE, cfg.DTCM_BASE
    cases = [(end - 8, 0b0011, "vle32.v v4, (s1), v0.t", False), (end - 8, 0b0100, "vle32.v v4, (s1), v0.t", True),
             (end - 8, 0b0011, "vse32.v v4, (s1), v0.t", False), (end - 4, 0b1000, "vse32.v v4, (s1), v0.t", True),
             (base + 2, 0, "vle32.v v4, (s1), v0.t", False), (base + 2, 0b1000, "vse32.v v4, (s1), v0.t", True),
             (base + 4, 0b0001, "vlse32.v v4, (s1), t4, v0.t", False),
             (base + 4, 0b0010, "vsse32.v v4, (s1), t4, v0.t", True)]
    runs = _both(rtl, cfg, [MASKED.format(addr=a, bits=b, sync="fence\n", op=op) for a, b, op, _ in cases])
    for (a, b, op, faults), (model, r) in zip(cases, runs):
        assert (model.error is not None) == faults, (op, bin(b))
        assert compare_runs(model, r) == [] and str(r.error) == str(model.error), (op, bin(b))
    # without the fence the vfdiv holds vmv.s.x v0 in the queue: refused, not guessed
    pending = assemble(MASKED.format(addr=end - 8, bits=3, sync="", op="vle32.v v4, (s1), v0.t"), "p.s", cfg)
    with pytest.raises(ConfigError, match=r"no earlier vector instruction is still computing v0: instruction 9 "):
        rtl.run(pending, MemoryImage(), cfg)
    # in range, a masked access never waits for v0
    [(model, r)] = _both(rtl, cfg, [MASKED.format(addr=base, bits=5, sync="", op="vse32.v v8, (s1), v0.t")])
    assert model.error is None and compare_runs(model, r) == []


def test_masked_and_first_fault_checks_near_dtcms_ends(cfg, rtl):
    # the dispatch's bounds (rtl/coral/README.md: two quotients, not VLEN addresses) on random
    # masked strided and unit-stride accesses and fault-only-first loads whose elements start or
    # end just outside DTCM: strides small, negative, zero and huge, vl up to VLEN, v0 random;
    # model and RTL fault alike (the same element) or run alike (fault-only-first: the same vl)
    import random
    rng = random.Random(18)
    lo, hi = cfg.DTCM_BASE, cfg.DTCM_BASE + cfg.DTCM_SIZE
    srcs = []
    for _ in range(120):
        sew, lmul = rng.choice([8, 16, 32]), rng.choice([1, 2, 4, 8])
        eb, vlmax = sew // 8, 128 * lmul // sew
        vl = rng.choice([1, 2, rng.randint(1, vlmax), vlmax])
        kind = rng.choice(["strided", "strided", "unit", "ff"])
        stride = rng.choice([eb, -eb, 0, 3 * eb, -5 * eb, 1 << 20, -(1 << 20), (1 << 31) - eb, -(1 << 31),
                             eb * rng.randint(-4000, 4000), rng.getrandbits(32) - (1 << 31)]) if kind == "strided" else eb
        # the first, or the last element, a few elements from either end of DTCM
        edge = rng.choice([lo, hi])
        k = rng.randint(-6, 6)
        base = edge + eb * k if rng.random() < 0.5 else edge + eb * k - stride * (vl - 1)
        if kind != "strided" or rng.random() < 0.2:   # (8/16-bit unit-stride loads: word-aligned)
            base -= base % 4
        base += rng.choice([0, 0, 0, 1]) if kind == "strided" and sew > 8 else 0      # misaligned now and then
        masked = kind != "ff" or rng.random() < 0.6
        vm = ", v0.t" if masked else ""
        op = {"strided": f"{rng.choice(['vlse', 'vsse'])}{sew}.v v8, (s1), t4{vm}",
              "unit": f"{rng.choice(['vle', 'vse'])}{sew}.v v8, (s1){vm}",
              "ff": f"vle{sew}ff.v v8, (s1){vm}\ncsrr a2, vl"}[kind]
        srcs.append(f".text\nli t0, {rng.getrandbits(32)}\nli t1, {rng.getrandbits(32)}\nvsetvli t2, zero, e32, m1\n"
                    f"vmv.v.x v0, t0\nvmv.s.x v0, t1\nfence\nli s1, {base & 0xFFFFFFFF}\nli t4, {stride}\n"
                    f"li t0, {vl}\nvsetvli t2, t0, e{sew}, m{lmul}, ta, mu\n{op}\nebreak\n")
    runs = _both(rtl, cfg, srcs)
    faults = 0
    for src, (model, r) in zip(srcs, runs):
        assert compare_runs(model, r) == [] and str(r.error) == str(model.error), src
        faults += model.error is not None
    assert 20 < faults < 100          # both outcomes, many times


def test_unmasked_accesses_just_inside_and_just_outside_dtcm(cfg, rtl):
    # the dispatch's range check of an unmasked access (rtl/coral/README.md: its first and last
    # element between the two bounds every access has, no multiple of the stride formed): each
    # kind placed with its lowest or highest byte on DTCM's first or last byte, then one element
    # size further out; strides positive, negative, zero, odd multiples and near +-2^31; segment
    # fields, whole registers and mask bytes. The expected fault is computed here from the
    # elements' addresses, and model and RTL must both give it, at the same instruction and cycle
    lo, hi = cfg.DTCM_BASE, cfg.DTCM_BASE + cfg.DTCM_SIZE
    kinds = []   # (instruction, vtype, vl, element bytes, stride or None, fields)
    for sew in (8, 16, 32):
        eb = sew // 8
        for stride in (eb, -eb, 0, 3 * eb, -7 * eb, 4096 * eb + eb, -(1 << 31), (1 << 31) - eb):
            kinds += [(f"vlse{sew}.v v8, (s1), t4", f"e{sew}, m8", 29, eb, stride, 1),
                      (f"vsse{sew}.v v8, (s1), t4", f"e{sew}, m1", 128 // sew, eb, stride, 1)]
        kinds += [(f"vle{sew}.v v8, (s1)", f"e{sew}, m8", 1024 // sew - 3, eb, None, 1),
                  (f"vse{sew}.v v8, (s1)", f"e{sew}, m2", 1, eb, None, 1)]
    kinds += [("vlsseg3e16.v v8, (s1), t4", "e16, m1", 7, 2, -10, 3), ("vssseg2e32.v v8, (s1), t4", "e32, m2", 5, 4, 12, 2),
              ("vlsseg2e8.v v8, (s1), t4", "e8, m1", 16, 1, -1, 2),
              ("vlseg4e8.v v8, (s1)", "e8, m2", 21, 1, None, 4), ("vsseg2e16.v v8, (s1)", "e16, m1", 8, 2, None, 2),
              ("vl2re16.v v8, (s1)", "e8, m1", 0, 2, None, 1), ("vs4r.v v8, (s1)", "e32, m1", 1, 1, None, 1),
              ("vl1re32.v v8, (s1)", "e16, mf2", 3, 4, None, 1),
              ("vlm.v v8, (s1)", "e8, m8", 123, 1, None, 1), ("vsm.v v8, (s1)", "e32, m1", 3, 1, None, 1)]
    srcs, expect = [], []
    for op, vt, vl, eb, stride, nf in kinds:
        n = {"vl2re16.v": 16, "vs4r.v": 64, "vl1re32.v": 4}.get(op.split()[0], (vl + 7) // 8 if op.startswith("vlm") or op.startswith("vsm") else vl)
        step = stride if stride is not None else eb * nf
        offs = [step * i + eb * f for i in range(n) for f in range(nf)]
        low, high = min(offs), max(offs) + eb - 1          # the bytes touched, relative to the base
        for base, out in ((lo - low, False), (hi - 1 - high, False), (lo - low - eb, True), (hi - 1 - high + eb, True)):
            if not 0 <= base < 1 << 32 or high - low >= hi - lo:   # (no such placement: x[rs1] wraps, or too long)
                base &= 0xFFFFFFFF
                out = any(not lo <= base + o <= hi - eb for o in offs)
            srcs.append(f".text\nli s1, {base}\nli t4, {step if stride is not None else 0}\n"
                        f"li t0, {vl}\nvsetvli t2, t0, {vt}, ta, ma\naddi a0, a0, 1\n{op}\naddi a0, a0, 2\nebreak\n")
            expect.append(out)
    assert sum(expect) > 100 and len(expect) - sum(expect) > 100
    runs = _both(rtl, cfg, srcs)
    for src, out, (model, r) in zip(srcs, expect, runs):
        assert (model.error is not None) == out, src
        assert compare_runs(model, r) == [] and str(r.error) == str(model.error), src
        assert r.cycles == model.cycles, src


def test_masked_narrow_accesses_skip_their_inactive_elements(cfg, rtl):
    # 16- and 8-bit strided accesses whose inactive elements are misaligned or below DTCM
    src = (".text\nla s1, d\naddi s1, s1, 64\nli t0, {bits}\nvsetvli t1, zero, e32, m1\nvmv.s.x v0, t0\n"
           "li t0, 4\nvsetvli t1, t0, e{sew}, m1, ta, mu\nli t3, {stride}\n{op} v4, (s1), t3, v0.t\n"
           "ebreak\n.data\n.balign 16\nd: .zero 128\n")
    cases = [(0b0101, 16, 3, "vsse16.v"), (0b0101, 16, 3, "vlse16.v"), (0b0001, 8, -4096, "vsse8.v"),
             (0b0011, 8, -4096, "vlse8.v")]
    runs = _both(rtl, cfg, [src.format(bits=b, sew=w, stride=st, op=op) for b, w, st, op in cases])
    for case, (model, r) in zip(cases, runs):
        assert (model.error is not None) == (case[0] == 0b0011), case
        assert compare_runs(model, r) == [] and str(r.error) == str(model.error), case


def test_element_indices_and_counts_at_sew_8_and_16(cfg, rtl):
    # vid/viota, reductions (vwredsum too) and vmv.x.s of them at SEW 8 and 16, LMUL 1/2 to 4, masked or not
    src = (".text\nla a0, d\nvsetvli t0, zero, e32, m8\nvle32.v v8, (a0)\nvle32.v v24, (a0)\nli t0, 0x5b3c6d1e\n"
           "vmv.v.x v0, t0\nli t0, {avl}\n"
           "vsetvli t1, t0, e{sew}, {lm}, {pol}\nviota.m v16, v9{vm}\nvid.v v20{vm}\nvredsum.vs v2, v16, v20{vm}\n"
           "vmv.x.s a1, v16\nvredmaxu.vs v3, v20, v17{vm}\nvwredsumu.vs v4, v20, v17{vm}\nvwredsum.vs v5, v16, v21{vm}\nebreak\n.data\n.balign 16\nd: .word "
           + _words(32) + "\n")
    cases = [dict(sew=w, lm=lm, avl=a, pol=pol, vm=vm) for w in (8, 16) for lm in ("mf2", "m1", "m4")
             for a, pol, vm in ((1000, "ta, ma", ""), (13, "tu, mu", ", v0.t"), (11, "ta, mu", ""))]
    _cases_match(rtl, cfg, src, cases)


def test_vfclass_on_every_class(cfg, rtl):
    vals = [0xFF800000, 0xBF800000, 0x80000001, 0x80000000, 0x00000000, 0x00000001, 0x3F800000, 0x7F800000,
            0x7F800001, 0x7FC00000, 0xFFFFFFFF, 0x807FFFFF, 0x00400000, 0xC2000000, 0x7F7FFFFF, 0x80800000]
    src = (".text\nla a0, d\nli t0, 16\nvsetvli t1, t0, e32, m4, ta, ma\nvle32.v v8, (a0)\nvfclass.v v12, v8\n"
           "vmv.v.i v0, 5\nvfclass.v v16, v8, v0.t\nebreak\n.data\n.balign 16\nd: .word "
           + ", ".join(hex(v) for v in vals) + "\n")
    [(model, r)] = _both(rtl, cfg, [src])
    assert model.error is None and compare_runs(model, r) == []
    assert len(set(r.registers["v"][12:16].view("<u4").ravel().tolist())) == 10


def test_whole_register_accesses_ignore_vtype(cfg, rtl):
    # at reset (vill) and with vl = 0: every word of the n registers moves
    src = (".text\nla a0, d\nvl{n}re32.v v8, (a0)\n{vset}addi a1, a0, 256\nvs{n}r.v v8, (a1)\nvl{n}re8.v v16, (a1)\n"
           "ebreak\n.data\n.balign 16\nd: .word " + ", ".join(str(i * 0x01020304) for i in range(128)) + "\n")
    runs = _both(rtl, cfg, [src.format(n=n, vset=v) for n in (1, 2, 4, 8)
                            for v in ("", "vsetivli t0, 0, e8, mf4, ta, ma\n")])
    for model, r in runs:
        assert model.error is None and compare_runs(model, r) == []


def test_mask_loads_and_stores(cfg, rtl):
    # vlm.v / vsm.v move ceil(vl / 8) bytes at any SEW; the rest of vd is tail (as vtype says)
    src = (".text\nla a0, d\nvsetvli t1, zero, e32, m8\nvle32.v v8, (a0)\nli t0, {avl}\n"
           "vsetvli t1, t0, e{sew}, m{lm}, {pol}\nvlm.v v9, (a0)\naddi a1, a0, 64\nvsm.v v10, (a1)\n"
           "ebreak\n.data\n.balign 16\nd: .word " + _words(32) + "\n")
    cases = [dict(avl=a, sew=w, lm=lm, pol=pol) for a, w, lm in ((0, 8, 1), (1, 8, 1), (9, 16, 2), (17, 32, 8), (128, 8, 8))
             for pol in ("ta, ma", "tu, mu")]
    _cases_match(rtl, cfg, src, cases)


def test_the_last_register_write_back_ends_the_run(cfg, rtl):
    # the RTL's S2 stage writes the last beat one cycle after the unit's issue stage:
    # the model's total counts it (and not for a store, which writes in S1)
    src = ".text\nla a0, d\nvsetvli t0, zero, e32, m8\nvle32.v v8, (a0)\n{}\nebreak\n.data\nd: .zero 128\n"
    (m1, r1), (m2, r2) = _both(rtl, cfg, [src.format("vfadd.vv v8, v8, v8"), src.format("vse32.v v8, (a0)")])
    assert m1.cycles == r1.cycles == 4 + 8 + 8 + 1
    assert m2.cycles == r2.cycles == 4 + 8 + 8


def test_lockstep_traces_carry_the_vector_units_writes(cfg, rtl):
    # the vector unit writes registers, DTCM and fflags after later scalar instructions
    # retired; the trace gives them to the instruction that dispatched them, as the model does
    seeds = range(100, 112)
    runs = _both(rtl, cfg, [random_vector_program(s) for s in seeds], trace=True)
    spaces = set()
    for seed, (model, r) in zip(seeds, runs):
        assert compare_traces(model.trace, r.trace) is None, f"seed {seed}"
        spaces |= {(c.space, c.address if c.space == "csr" else 0) for st in r.trace for c in st.changes}
    assert {("v", 0), ("dtcm", 0), ("csr", 0), ("csr", 2), ("csr", 3)} <= spaces
    # a wrong element is named by register and element, at the dispatching instruction
    model, r = runs[0]
    step = next(st for st in r.trace if any(c.space == "v" for c in st.changes))
    ch = [c for c in step.changes if c.space == "v"][-1]          # the register's final write
    ch.new[9] ^= 1
    d = compare_traces(model.trace, r.trace)
    assert d.where == f"v{ch.address} element 2" and step.text in d.instruction


def test_integer_divides_on_edge_operands(cfg, rtl):
    # every pair of edge values (by zero, -2^31 / -1, signs, extremes), all four divides
    vals = [0, 1, -1, 2, -2, 7, -7, (1 << 31) - 1, -(1 << 31), -(1 << 31) + 1, 12345, -99999]
    pairs = [(a, b) for a in vals for b in vals]
    words = lambda xs: ", ".join(str(x & 0xFFFFFFFF) for x in xs)
    body = []
    for k in range(0, len(pairs), 32):
        n = min(32, len(pairs) - k)
        body += [f"li t0, {n}", "vsetvli t1, t0, e32, m8, ta, ma", f"addi a0, s0, {4 * k}", f"addi a1, s1, {4 * k}",
                 "vle32.v v8, (a0)", "vle32.v v16, (a1)"]
        for i, op in enumerate(("vdivu", "vdiv", "vremu", "vrem")):
            body += [f"{op}.vv v24, v8, v16", f"li a2, {4 * (k + i * len(pairs))}", "add a2, a2, s2", "vse32.v v24, (a2)"]
    src = (".text\nla s0, a\nla s1, b\nla s2, out\n" + "\n".join(body) + "\nebreak\n.data\n.balign 16\n"
           f"a: .word {words(a for a, _ in pairs)}\nb: .word {words(b for _, b in pairs)}\n"
           f"out: .zero {16 * len(pairs)}\n")
    [(model, r)] = _both(rtl, cfg, [src])
    assert model.error is None and compare_runs(model, r) == []


def test_integer_divides_at_sew_8_and_16_on_edge_operands(cfg, rtl):
    # every pair of edge values at SEW 8 and 16 (by zero, the most negative by -1, signs),
    # all four divides, .vv and .vx, masked and not
    body = []
    for sew in (8, 16):
        top = 1 << (sew - 1)
        vals = [0, 1, -1, 2, -2, 7, -7, top - 1, -top, -top + 1, -(top // 3)][:11 if sew == 8 else 8]
        pairs = [(a, b) for a in vals for b in vals]
        words = lambda xs: ", ".join(str(x & ((1 << sew) - 1)) for x in xs)
        n = len(pairs)
        body += [f"la s0, a{sew}", f"la s1, b{sew}", f"li t0, {n}", f"vsetvli t1, t0, e{sew}, m8, ta, mu",
                 "vle{0}.v v8, (s0)\nvle{0}.v v16, (s1)".format(sew)]
        for i, op in enumerate(("vdivu", "vdiv", "vremu", "vrem")):
            body += [f"vmv.v.i v24, 0", f"{op}.vv v24, v8, v16{', v0.t' if i % 2 else ''}", f"la a2, o{sew}_{i}",
                     f"vse{sew}.v v24, (a2)", f"li a3, {vals[i + 2]}", f"{op}.vx v24, v8, a3", f"la a2, x{sew}_{i}",
                     f"vse{sew}.v v24, (a2)"]
        data = [f"a{sew}: .{'byte' if sew == 8 else 'half'} {words(a for a, _ in pairs)}",
                f"b{sew}: .{'byte' if sew == 8 else 'half'} {words(b for _, b in pairs)}"]
        data += [f"{k}{sew}_{i}: .zero {n * sew // 8}" for i in range(4) for k in "ox"]
        body.append(".data\n.balign 16\n" + "\n.balign 16\n".join(data) + "\n.text")
    src = ".text\nli t0, 0x5a5a5a5a\nvsetvli t1, zero, e32, m1\nvmv.v.x v0, t0\n" + "\n".join(body) + "\nebreak\n"
    [(model, r)] = _both(rtl, cfg, [src])
    assert model.error is None and compare_runs(model, r) == []


def test_add_with_carry_and_subtract_with_borrow_on_edge_operands(cfg, rtl):
    # vadc, vsbc, vmadc, vmsbc in every form at SEW 8, 16 and 32 on every pair of edge values,
    # each pair twice (v0 alternating: carry / borrow in 0, then 1), vl ending before the group's
    # end (tail undisturbed, then agnostic), the mask results into a register apart from the
    # sources and, last, into vs2's lowest register
    body, data, k = [".text\nli t0, 0xAAAAAAAA\nvsetvli t1, zero, e32, m1\nvmv.v.x v0, t0\nla s2, out"], [], 0
    for sew, vals in ((8, [0, 1, 2, 0x7F, 0x80, 0xFE, 0xFF]), (16, [0, 1, 0x7FFF, 0x8000, 0xFFFF]),
                      (32, [0, 1, 0x80000000, 0xFFFFFFFF])):
        pairs = [(a, b) for a in vals for b in vals for _ in (0, 1)]
        kind = {8: "byte", 16: "half", 32: "word"}[sew]
        data += [f"a{sew}: .{kind} {', '.join(str(a) for a, _ in pairs)}",
                 f"b{sew}: .{kind} {', '.join(str(b) for _, b in pairs)}"]
        for pol in ("tu, mu", "ta, ma"):
            body += [f"la a0, a{sew}\nla a1, b{sew}\nli t0, {len(pairs) - 1}\nvsetvli t1, t0, e{sew}, m8, {pol}",
                     f"vle{sew}.v v8, (a0)\nvle{sew}.v v16, (a1)\nli a4, -1\nli a5, 1"]
            ops = [f"{op}.{form} {'v1' if op.startswith('vm') else 'v24'}, v8, {src}{', v0' if form.endswith('m') else ''}"
                   for op in ("vadc", "vmadc", "vsbc", "vmsbc")
                   for form in ("vvm", "vxm", "vim", "vv", "vx", "vi") if f"{op}.{form}" in _CARRY
                   for src in {"v": ["v16"], "x": ["a4", "a5"], "i": ["-1", "5"]}[form[1]]]
            for op in ops + ["vmadc.vvm v8, v8, v16, v0", "vmsbc.vx v16, v16, a5"]:
                res = op.split()[1].rstrip(",")
                body += [op, f"li a3, {k}\nadd a2, s2, a3",
                         f"vsm.v {res}, (a2)" if op.startswith("vm") else f"vse{sew}.v {res}, (a2)"]
                k += 128
    src = "\n".join(body) + "\nebreak\n.data\n.balign 16\n" + "\n.balign 16\n".join(data) + f"\n.balign 16\nout: .zero {k}\n"
    [(model, r)] = _both(rtl, cfg, [src])
    assert model.error is None and compare_runs(model, r) == []


def test_vcpop_and_vfirst_over_every_length(cfg, rtl):
    # the popcount tree (rtl/coral/coral_vec.v): vcpop.m and vfirst.m of bit patterns with the
    # first, the last (bit 127) or no bit set, at vl 0 to VLEN, masked and not
    pats = [[0] * 4, [0xFFFFFFFF] * 4, [0, 0, 0, 0x80000000], [1, 0, 0, 0], [0x55555555, 0, 0xAAAAAAAA, 0x10],
            [0x9E3779B9, 0x7F4A7C15, 0xF39CC060, 0x5CEDC834]]
    masks = [[0xFFFFFFFF] * 4, [0xF0F0F0F0, 0x0F0F0F0F, 0x80000001, 0xFFFF0000]]
    src = (".text\nla s0, d\nvsetvli t1, zero, e32, m1\nvle32.v v8, (s0)\naddi s1, s0, 16\nvle32.v v0, (s1)\n"
           "li t0, {vl}\nvsetvli t1, t0, e8, m8, ta, ma\nvcpop.m a0, v8{vm}\nvfirst.m a1, v8{vm}\nebreak\n"
           ".data\n.balign 16\nd: .word {words}\n")
    cases = [dict(vl=vl, vm=vm, words=", ".join(hex(w) for w in p + m))
             for p in pats for m in masks for vl in (0, 1, 5, 64, 127, 128) for vm in ("", ", v0.t")]
    _cases_match(rtl, cfg, src, cases)


def test_unaligned_unit_stride_stores(cfg, rtl):
    # 8- and 16-bit unit-stride, whole-register and mask stores from any byte (16-bit: any even
    # one): a beat's NB + 1 words, the last through the banks' port A; masked and not, vl
    # ending inside a word; a scalar load after each waits for it
    src = (".text\nla a0, d\nvsetvli t1, zero, e32, m8\nvle32.v v8, (a0)\nvle32.v v16, (a0)\nli t0, 0x5b3c6d1e\n"
           "vmv.v.x v0, t0\nli t0, {avl}\nvsetvli t1, t0, e{sew}, {lm}, ta, mu\naddi a1, a0, {off}\n"
           "vse{eew}.v v8, (a1){vm}\nlbu a2, 0(a1)\naddi a1, a1, 300\nvs{n}r.v v16, (a1)\nlbu a3, -1(a1)\n"
           "addi a1, a1, 300\nvsm.v v9, (a1)\nebreak\n.data\n.balign 16\nd: .word "
           + _words(320) + "\n")
    cases = []
    for off in (1, 2, 3, 6):
        for sew, eew, lm, n in ((8, 8, "m2", 1), (16, 16, "m1", 2), (32, 16, "m2", 4), (32, 8, "m4", 8), (16, 8, "mf2", 1)):
            if eew == 16 and off % 2:
                eew = 8
            cases.append(dict(off=off, sew=sew, eew=eew, lm=lm, n=n, avl=(1000, 7, 13)[(off + n) % 3],
                              vm=("", ", v0.t")[(off + sew) % 2]))
    _cases_match(rtl, cfg, src, cases)


def test_unaligned_unit_stride_loads(cfg, rtl):
    # 8- and 16-bit unit-stride, fault-only-first, whole-register and mask loads from inside a
    # word: S1 reads NB words a cycle and S2 writes each beat from those and the next cycle's
    # first word, one cycle more than the beats when the bytes span more than NB words; vl
    # ending before, at and past the word boundary of the first beat, masked and not, both
    # policies; a scalar store after each waits for it, a vector add reads the late write
    src = (".text\nla a0, d\nvsetvli t1, zero, e32, m8\nvle32.v v16, (a0)\nli t0, 0x5b3c6d1e\nvmv.v.x v0, t0\n"
           "li t0, {avl}\nvsetvli t1, t0, e{sew}, {lm}, {pol}\naddi a1, a0, {off}\nvle{eew}{ff}.v v8, (a1){vm}\n"
           "sw t0, 0(a0)\nvle{eew}.v v16, (a1)\nvadd.vv v24, v16, v16\naddi a1, a1, 200\nvl{n}re{eew}.v v{n}, (a1)\n"
           "addi a1, a1, 200\nvlm.v v3, (a1)\nlbu a2, 0(a1)\nebreak\n.data\n.balign 16\nd: .word " + _words(320) + "\n")
    cases = []
    for off in (1, 2, 3, 5):
        for i, (sew, eew, lm, avl) in enumerate(((8, 8, "m1", 16), (8, 8, "m1", 15), (8, 8, "m1", 13),
                                                 (8, 8, "m8", 1000), (16, 16, "m1", 7), (16, 16, "m2", 9),
                                                 (32, 8, "m4", 1000), (32, 16, "m1", 3), (16, 8, "mf2", 5),
                                                 (8, 8, "mf4", 4))):
            if eew == 16 and off % 2:
                eew, lm = 8, {"m1": "mf2", "m2": "m1"}.get(lm, lm) if sew == 16 else lm
            cases.append(dict(off=off, sew=sew, eew=eew, lm=lm, avl=avl, n=(1, 2, 4, 8)[(off + i) % 4],
                              ff=("", "ff")[i % 3 == 2], pol=("ta, ma", "tu, mu")[(off + i) % 2],
                              vm=("", ", v0.t")[(off + sew + i) % 2]))
    _cases_match(rtl, cfg, src, cases)


def test_unaligned_loads_at_dtcms_end(cfg, rtl):
    # loads whose last byte is DTCM's last (S1 reads whole rows of NB words, past the end too:
    # a bank's row wraps, its word unused), and fault-only-first ones running past it (vl
    # trimmed before the realignment's bytes are counted); DTCM's start, from inside a word
    end = cfg.DTCM_BASE + cfg.DTCM_SIZE
    src = (".text\nla a0, d\nli s2, {end}\nvsetvli t1, zero, e32, m8\nvle32.v v16, (a0)\naddi a1, s2, -128\n"
           "vse32.v v16, (a1)\nli t0, {avl}\nvsetvli t1, t0, e{sew}, m{lm}, tu, mu\naddi a1, s2, -{back}\n"
           "{op} v8, (a1)\ncsrr a3, vl\nli a1, {start}\nvle{eew}.v v24, (a1)\nebreak\n.data\n.balign 16\n"
           "d: .word " + _words(32) + "\n")
    cases = []
    for sew, eew, lm in ((8, 8, 1), (8, 8, 8), (16, 16, 2), (32, 8, 2)):
        vl, eb = 128 * lm // sew, eew // 8
        for k in (vl + 1, vl + 3, 3, 5):         # back k elements from the end (odd: inside a word)
            cases.append(dict(end=end, avl=1000, sew=sew, eew=eew, lm=lm, back=k * eb,
                              op=f"vle{eew}{'ff' if k < vl else ''}.v", start=cfg.DTCM_BASE + 4 - eb))
    cases += [dict(end=end, avl=1, sew=8, eew=8, lm=1, back=b, op=f"vl{n}re8.v", start=cfg.DTCM_BASE + 3)
              for n, b in ((1, 17), (2, 35), (8, 129))]
    cases += [dict(end=end, avl=v, sew=8, eew=8, lm=8, back=b, op="vlm.v", start=cfg.DTCM_BASE + 1)
              for v, b in ((128, 17), (128, 18), (9, 3), (9, 2))]
    _cases_match(rtl, cfg, src, cases)


def test_random_unaligned_loads_match_the_model(cfg, rtl):
    # random_unaligned_load_program: loads of every unaligned kind, vl, EMUL, mask and policy,
    # a third ending on DTCM's last bytes, with the waits and bypasses after them; traced (every
    # register write compared at its load, not only the final state)
    seeds = range(40)
    runs = _both(rtl, cfg, [random_unaligned_load_program(s) for s in seeds], trace=True)
    for seed, (model, r) in zip(seeds, runs):
        assert model.error is None, (seed, model.error)
        assert compare_runs(model, r) == [], f"seed {seed}"
        assert compare_traces(model.trace, r.trace) is None, f"seed {seed}"
    assert sum(m.stalls["vector_sync"] for m, _ in runs) > 0


def test_vrgatherei16_at_sew_8_and_16(cfg, rtl):
    # 16-bit indices (EMUL = 16 / SEW * LMUL: at SEW 8 twice LMUL), in range and past VLMAX
    src = (".text\nla a0, d\nvsetvli t0, zero, e32, m8\nvle32.v v8, (a0)\nvle32.v v16, (a0)\nli t0, 0x5b3c6d1e\n"
           "vmv.v.x v0, t0\nli t0, {avl}\nvsetvli t1, t0, e16, m{il}\nvid.v v24\nli t3, 0x9e37\nvmul.vx v24, v24, t3\n"
           "li t3, {imask}\nvand.vx v24, v24, t3\nvsetvli t1, t0, e{sew}, {lm}, {pol}\n"
           "vrgatherei16.vv v4, v8, v24{vm}\nebreak\n.data\n.balign 16\nd: .word "
           + _words(32) + "\n")
    cases = []
    for sew, lms in ((8, ("mf4", "m1", "m2", "m4")), (16, ("mf2", "m1", "m4"))):
        for i, lm in enumerate(lms):
            lv = 1 / int(lm[2:]) if lm[1] == "f" else int(lm[1:])
            vlmax = int(128 * lv // sew)
            il = max(1, int(lv * 16 // sew))
            cases.append(dict(sew=sew, lm=lm, il=il, avl=(1000, vlmax - 3, 5, 1000)[i], imask=2 * vlmax - 1,
                              pol=("ta, ma", "tu, mu")[i % 2], vm=("", ", v0.t")[(i + sew // 8) % 2]))
    _cases_match(rtl, cfg, src, cases)


def test_every_implemented_instruction_decodes_as_the_isa_encodes_it(cfg, rtl):
    # each vector instruction the backend lets through, as isa/coral's own example of it
    # (the assembler encodes it from the ISA data): the RTL's decoder must take that word
    # for that instruction, and run it as the model does
    from kernelcraft.isa.loader import get_isa
    from kernelcraft.simulators.coral_rtl.backend import _MEM_8_16, _NARROW, _WIDEN, _WRED, VECTOR
    isa = get_isa("coral")
    names = sorted(VECTOR)
    src = (".text\nla a0, buf\naddi a1, a0, 64\nli t1, 4\nvsetvli t0, zero, e{}, m1, ta, ma\n{}\nebreak\n"
           ".data\n.balign 16\nbuf: .word " + ", ".join(str(i * 0x01010101) for i in range(128)) + "\n")
    # (widening, narrowing, vnclip(u) and vwredsum at SEW = 16, from and to 32-bit elements; 8- and 16-bit loads and
    # stores at SEW = EEW)
    from kernelcraft.simulators.coral_rtl.randvec import FIXED_NARROW
    sew = lambda m: 16 if m in _WIDEN + _NARROW + _WRED + tuple(FIXED_NARROW) else int(m.split(".")[0][-2:].lstrip("e")) if m in _MEM_8_16 else 32
    runs = _both(rtl, cfg, [src.format(sew(m), isa.instructions[m].example.strip()) for m in names])
    for m, (model, r) in zip(names, runs):
        assert model.error is None and compare_runs(model, r) == [], m


def test_loads_and_stores_of_another_eew_than_sew(cfg, rtl):
    # EMUL = EEW / SEW * LMUL (1/8 to 8): the elements, mask bits, tail and beats of an access at
    # SEW = EEW with that LMUL; unit-stride and strided, masked or not, both policies
    src = (".text\nla a0, d\nvsetvli t1, zero, e32, m8\nvle32.v v8, (a0)\nvle32.v v16, (a0)\nli t0, 0x6d5b\n"
           "vmv.s.x v0, t0\nli t0, {avl}\nvsetvli t1, t0, e{sew}, {lm}, {pol}\naddi a1, a0, 4\nli t3, -{eb}\n"
           "vle{eew}.v v{r1}, (a1){vm}\naddi a1, a0, 200\nvlse{eew}.v v{r2}, (a1), t3{vm}\naddi a1, a0, 384\nvse{eew}.v v{r1}, (a1){vm}\n"
           "addi a1, a1, 200\nli t3, {st}\nvsse{eew}.v v{r2}, (a1), t3{vm}\nebreak\n.data\n.balign 16\nd: .word "
           + _words(320) + "\n")
    lmuls = {8: ("mf4", "m1", "m2"), 16: ("mf2", "m1", "m4"), 32: ("m1", "m2", "m8")}
    value = {"mf4": 0.25, "mf2": 0.5, "m1": 1, "m2": 2, "m4": 4, "m8": 8}
    cases = []
    for sew, lms in lmuls.items():
        for eew in (8, 16, 32):
            for i, lm in enumerate(lms):
                emul = eew / sew * value[lm]
                if eew == sew or emul > 8:
                    continue
                cases.append(dict(sew=sew, eew=eew, lm=lm, eb=eew // 8, st=3 * eew // 8, r1=8,
                                  r2=24, avl=(1000, 5, 17)[i], pol=("ta, ma", "tu, mu")[i % 2],
                                  vm=("", ", v0.t")[(i + eew // 8) % 2]))
    _cases_match(rtl, cfg, src, cases)
    assert len(cases) >= 12


def _edges(w: int) -> list[int]:
    """w-bit element values at both ends of the signed and unsigned ranges, around zero and at
    rounding ties, then a few others: 128 // w of them per register (16 at w = 8)."""
    m, h = (1 << w) - 1, 1 << (w - 1)
    vals = [h - 1, h, m, 3, 1, h + 1, m - 1, 0, h >> 1, m - (h >> 1) + 1, 5, 6, 0x5A5A5A5A & m, 0xA5A5A5A5 & m, 7, 2]
    return vals[:128 // w]


def _elems(vals):
    return ", ".join(hex(v) for v in vals)


def test_fixed_point_on_edge_operands_in_every_rounding_mode(cfg, rtl):
    # every fixed-point instruction the backend lets through (isa/coral's rvv_fixed group) at each
    # SEW it runs at, in each vxrm mode, on edge elements (vs1 in order, reversed and rotated: sums
    # and products past both ends, ties), scalars and immediates at the ends, masked so that the
    # saturating elements are or are not active; vxsat read (and cleared) after each: set and
    # not set, results and vxsat compared with the model's
    from kernelcraft.simulators.coral_rtl.randvec import FIXED, FIXED_NARROW
    from kernelcraft.isa.loader import get_isa
    isa = get_isa("coral")
    sources, names = [], []
    for m in FIXED:
        narrow = m in FIXED_NARROW
        for sew in (8, 16) if narrow else (8, 16, 32):
            w2 = 2 * sew if narrow else sew
            a = _edges(w2) * (2 if narrow else 1)
            b = _edges(sew)
            form = m.split(".")[1]
            kind = isa.instructions[m].operands[2].kind.name
            seconds = {"v": ["v16", "v17", "v18"], "x": ["a1", "a2", "a3"],
                       "simm5": ["-16", "15", "-1"], "uimm5": ["1", str(sew - 1), "31"]}[kind]
            lines = [".text", "la s0, d", "la s1, out", f"li a1, {(1 << (sew - 1)) - 1}", f"li a2, {-(1 << (sew - 1))}",
                     "li a3, -1", "li t0, 0x5555", "vsetvli t1, zero, e32, m1, ta, ma", "vmv.s.x v0, t0",
                     f"vsetvli t1, zero, e{w2}, m{2 if narrow else 1}, tu, mu", "vle%d.v v8, (s0)" % w2,
                     f"vsetvli t1, zero, e{sew}, m1, tu, mu", "addi t2, s0, 256", f"vle{sew}.v v16, (t2)",
                     "addi t2, s0, 384", f"vle{sew}.v v17, (t2)", "addi t2, s0, 512", f"vle{sew}.v v18, (t2)"]
            k = 0
            for rm in range(4):
                for i, second in enumerate(seconds):
                    for vm in ("", ", v0.t") if i == 0 else ("",):
                        lines += [f"csrwi vxrm, {rm}", "csrwi vxsat, 0", f"{m} v24, v8, {second}{vm}",
                                  "csrr t3, vxsat", "add s2, s2, t3", f"sw t3, {4 * k}(s1)", f"addi t2, s1, {256 + 16 * k}",
                                  f"vse{sew}.v v24, (t2)"]
                        k += 1
            lines += ["ebreak", ".data", ".balign 16", f"d: .{'word' if w2 == 32 else 'half' if w2 == 16 else 'byte'} "
                      + _elems(a), ".balign 256", f"e: .{'word' if sew == 32 else 'half' if sew == 16 else 'byte'} "
                      + _elems(b + b[::-1] + b[3:] + b[:3]), ".balign 16", "out: .zero 1024"]
            # (e sits 256 bytes after d: d's wide group is at most 256 bytes)
            src = "\n".join(lines) + "\n"
            src = src.replace("addi t2, s0, 256", "la t2, e").replace("addi t2, s0, 384", f"la t2, e\naddi t2, t2, {128 // 8}") \
                     .replace("addi t2, s0, 512", f"la t2, e\naddi t2, t2, {2 * 128 // 8}")
            sources.append(src)
            names.append((m, sew))
    runs = _both(rtl, cfg, sources)
    for name, (model, r) in zip(names, runs):
        assert model.error is None and compare_runs(model, r) == [], name
    # s2 counts the reads of vxsat that found it set: some, not all, of each saturating kind
    counts = {name: int(model.registers["x"][18]) for name, (model, _) in zip(names, runs)}
    for m in FIXED:
        total = sum(c for (n, _), c in counts.items() if n == m)
        assert (total > 0) == m.startswith(("vsadd", "vssub", "vsmul", "vnclip")), (m, total)
    saturating = [c for (n, _), c in counts.items() if n.startswith(("vsadd", "vssub", "vsmul", "vnclip"))]
    assert 0 < sum(saturating) < 16 * len(saturating) and min(saturating) < 16
    assert len(runs) == len(FIXED) * 3 - len(FIXED_NARROW)


def test_vfrec7_and_vfrsqrt7_on_every_table_entry_and_special(cfg, rtl):
    # every table index of both estimates (with random low fraction bits), both exponent
    # parities, subnormals from the largest to the smallest (vfrec7's subnormal results and
    # overflow at each frm), zeros, infinities, quiet and signalling NaNs of both signs, negative
    # inputs of vfrsqrt7 and random words; masked and not, the flags read after each
    import random
    from kernelcraft.simulators.coral_rtl.randprog import SPECIAL_FLOATS
    rng = random.Random(7)
    words = list(SPECIAL_FLOATS)
    words += [0x3F800000 | i << 16 | rng.getrandbits(16) for i in range(128)]
    words += [(0x3F000000 if i & 64 else 0x3F800000) | (i & 63) << 17 | rng.getrandbits(17) for i in range(128)]
    words += [1 << k | rng.getrandbits(k) for k in range(23)] + [0x80000000 | 1 << k for k in range(0, 23, 3)]
    words += [0x7F000000, 0x7E800000, 0x7F7FFFFF, 0xFE812345, 0xFF000001, 0x00400000, 0x00200000, 0x80300000]
    words += [rng.getrandbits(32) for _ in range(32)]
    words += [0] * (-len(words) % 32)
    groups = len(words) // 32
    lines = [".text", "la s0, d", "la s1, out", "addi s2, s1, 512", "li t0, 0x5a5a5a5a", "vsetvli t1, zero, e32, m1, ta, ma",
             "vmv.s.x v0, t0"]
    k = 0
    for g in range(groups):
        for rm in range(5):
            for op in ("vfrec7.v", "vfrsqrt7.v"):
                vm = ", v0.t" if (g + rm) % 3 == 0 else ""
                lines += [f"li t0, {32 if g < groups - 1 else 29}", "vsetvli t1, t0, e32, m8, tu, mu",
                          f"addi t2, s0, {128 * g}", "vle32.v v8, (t2)", f"fsrmi {rm}", "csrwi fflags, 0",
                          f"{op} v16, v8{vm}", "csrr t3, fflags", f"sw t3, {4 * k}(s1)", "vse32.v v16, (s2)",
                          "addi s2, s2, 128"]
                k += 1
    lines += ["ebreak", ".data", ".balign 16", "d: .word " + ", ".join(hex(w) for w in words), ".balign 16",
              f"out: .zero {512 + 128 * k}"]
    [(model, r)] = _both(rtl, cfg, ["\n".join(lines) + "\n"])
    assert model.error is None and compare_runs(model, r) == []
    assert k == groups * 10 and groups >= 10
