"""Random valid plena programs on the functional model and on the RTL: every memory,
register, accumulator and counter equal, and the cycle count equal. A divergence fails
naming the first retired instruction where the two differ (both are re-run traced)."""
import collections

from simulators.plena.assembler import assemble
from simulators.plena.machine import PlenaModel
from simulators.plena_rtl.backend import Job, PlenaRTL
from simulators.plena_rtl.compare import compare_runs, compare_traces
from simulators.plena_rtl.randprog import ProgramGenerator

SEEDS = range(120)
LOCKSTEP_SEEDS = range(1000, 1024)


def _programs(cfg, seeds, length=60):
    gen = ProgramGenerator(cfg)
    out = []
    for seed in seeds:
        src, img = gen.generate(seed, length)
        out.append((seed, assemble(src, f"random-{seed}.asm", cfg), img))
    return out


def _first_divergence(cfg, program, image) -> str:
    model = PlenaModel().run(program, image, cfg, trace=True)
    rtl = PlenaRTL().run(program, image, cfg, trace=True)
    d = compare_traces(model.trace, rtl.trace)
    return d.format() if d else "(the traces agree; the difference is in the end state)"


def test_generator_covers_every_instruction(diff_cfg):
    seen = collections.Counter()
    for _, program, _ in _programs(diff_cfg, SEEDS):
        seen.update(i.mnemonic for i in program.instrs)
    assert set(seen) == set(diff_cfg.isa.instructions)


def test_random_programs_agree(diff_cfg):
    programs = _programs(diff_cfg, SEEDS)
    rtl = PlenaRTL().run_many([Job(p, img) for _, p, img in programs], diff_cfg)
    failures = []
    for (seed, program, image), r in zip(programs, rtl):
        m = PlenaModel().run(program, image, diff_cfg)
        assert m.error is None, f"seed {seed}: the generator made an invalid program: {m.error}"
        diffs = compare_runs(m, r)
        if diffs:
            failures.append(f"seed {seed}: " + "; ".join(d.format() for d in diffs) +
                            "\n  first diverging instruction: " +
                            _first_divergence(diff_cfg, program, image))
            if len(failures) == 3:
                break
    assert not failures, "\n".join(failures)


def test_random_programs_agree_in_lockstep(diff_cfg):
    programs = _programs(diff_cfg, LOCKSTEP_SEEDS, length=40)
    rtl = PlenaRTL().run_many([Job(p, img, trace=True) for _, p, img in programs], diff_cfg)
    for (seed, program, image), r in zip(programs, rtl):
        m = PlenaModel().run(program, image, diff_cfg, trace=True)
        assert len(r.trace) == r.retired
        d = compare_traces(m.trace, r.trace)
        assert d is None, f"seed {seed}: {d.format()}"
        # the loop stack is left out of the comparison, but both trace it alike
        loops = lambda t: [(s.step, tuple(c.new)) for s in t for c in s.changes  # noqa: E731
                           if c.space == "LOOPS"]
        assert loops(r.trace) == loops(m.trace), f"seed {seed}: loop stacks differ"
