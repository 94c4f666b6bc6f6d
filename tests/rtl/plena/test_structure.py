"""The plena core is hardware, not a model: no DPI-C, no hierarchical reference, no file
or simulation-only system task anywhere in its sources. Only the harness (plena_sim.v,
which also holds the external HBM storage behind the core's memory port) and the HBM
model it includes (plena_hbm.vh, plena_hbm.cpp) may use DPI-C and files; the harness,
plena_top and the cocotb bench reach the core only through its ports (the host port
for the program and every memory, register and counter)."""
import re

import pytest

from kernelcraft.isa.loader import get_isa
from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.core.errors import ConfigError
from kernelcraft.simulators.plena_rtl import build, timing

HARNESS = {"plena_sim.v", "plena_hbm.vh", "plena_hbm.cpp"}
FORBIDDEN = {
    "a DPI-C import": re.compile(r'import\s+"DPI-C"'),
    "the HBM model": re.compile(r'`include\s+"plena_hbm\.vh"'),
    "a hierarchical reference": re.compile(r"\b(plena_top|u_core|u_sim|u_matrix)\s*\.\s*\w"),
    "a simulation-only system task": re.compile(
        r"\$(readmem[hb]|writemem[hb]|fopen|fclose|fwrite|fscanf|display|sformatf|value\$plusargs)\b"),
}


# Any `name.name` outside comments and strings: in these files only a hierarchical
# reference has one (port connections are `.port(...)` after a comma or parenthesis).
DOTTED = re.compile(r"\b([A-Za-z_]\w*)\s*\.\s*[A-Za-z_]")
STRING = re.compile(r'"(\\.|[^"\\])*"')
TOP_PORTS = {"job", "go", "halt", "finished", "clk_in"}


def _code(text: str) -> str:
    return STRING.sub('""', re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S))


def _core_sources():
    files = [p for p in build.sources() if p.suffix in (".v", ".vh") and p.name not in HARNESS]
    files += [p for p in build.PLENA_RTL.glob("*.vh") if p.name not in HARNESS]
    return sorted(set(files))


def test_core_sources_hold_no_simulation_model():
    sources = _core_sources()
    assert any(p.name == "plena_core.v" for p in sources)
    assert any(p.name == "plena_dma.v" for p in sources)
    found = []
    for path in sources:
        text = re.sub(r"//[^\n]*|/\*.*?\*/", "", path.read_text(), flags=re.S)  # code only
        for what, pattern in FORBIDDEN.items():
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{path.name}:{line}: {what} ({m.group(0)!r})")
    assert not found, "\n".join(found)


def test_harness_reaches_the_core_only_through_ports():
    harness = [build.PLENA_RTL / n for n in ("plena_sim.v", "plena_hbm.vh", "plena_top.v")]
    found = [f"{p.name}: {m.group(0)!r}" for p in harness for m in DOTTED.finditer(_code(p.read_text()))]
    assert not found, "hierarchical references from the harness:\n" + "\n".join(found)
    # Both job drivers (cocotb's and bulk mode's) use plena_top's own ports only.
    rtl = build.ROOT / "simulators" / "rtl"
    touched = set(re.findall(r"\bdut\.(\w+)", (rtl / "cocotb_jobs.py").read_text()))
    touched_cpp = set(re.findall(r"\btop[.>-]+(\w+)", (rtl / "bulk_main.cpp").read_text()))
    assert touched and touched <= TOP_PORTS, touched - TOP_PORTS
    assert touched_cpp - {"eval", "eventsPending", "nextTimeSlot", "final"} == TOP_PORTS, touched_cpp


def test_the_check_finds_what_it_looks_for(tmp_path):
    """The patterns match the constructs they forbid (the test above can fail)."""
    bad = ('import "DPI-C" function void f();\n`include "plena_hbm.vh"\n'
           "x = plena_top.u_core.vsram[0];\n$readmemh(p, m);\n")
    hits = [what for what, pattern in FORBIDDEN.items() if pattern.search(bad)]
    assert hits == list(FORBIDDEN)
    harness = ('$fwrite(fd, "%h", u_top.u_core.gp[k]);  // x.y in a comment\n'
               'plena_hbm_read(a, "hbm.bin", .5);\nfoo u_x (.clk(clk), .d(q));\n')
    assert [m.group(1) for m in DOTTED.finditer(_code(harness))] == ["u_top"]


# --- the RTL times itself ----------------------------------------------------------------
# Nothing of hardware.toml's timing table reaches the RTL: its headers define no timing
# class (test_generated), no source names one or the opcode-to-cycles table, and the core
# has no down-counter loaded with a duration: each unit signals its instruction's last
# cycle. hardware.toml's classes are then held to the RTL's structure (the model counts
# what the RTL does), and the differential tests prove the cycles equal.
def _timing_refs(text: str) -> list[str]:
    isa = get_isa("plena")
    names = [f"T_{c}" for c in isa.timing] + ["isa_cycles", "t_cls", "isa_unit"]
    return [n for n in names if re.search(rf"\b{n}\b", text)]


def test_rtl_reads_no_timing_class():
    found = {p.name: _timing_refs(_code(p.read_text())) for p in _core_sources()}
    found = {name: refs for name, refs in found.items() if refs}
    assert not found, f"timing-table names in the RTL: {found}"
    core = _code((build.PLENA_RTL / "plena_core.v").read_text())
    # Commit is the unit's done, not a counter reaching zero.
    assert re.search(r"wire\s+commit\s*=\s*occupied\s*&&\s*u_done\s*(&&\s*!late_err\s*)?;", core)
    for unit in ("u_sfpu", "u_vector", "u_matrix", "u_topk"):
        inst = re.search(rf"\b{unit}\s*\((.*?)\);", core, flags=re.S)
        assert inst and ".done(" in inst.group(1), f"{unit} has no done port connected"
    assert _timing_refs("x = T_V_ADD - VDEPTH_1;") == ["T_V_ADD"]
    assert _timing_refs("wire [31:0] c = isa_cycles(op);") == ["isa_cycles"]
    # The busy counters follow the units' run signals, not the ISA's opcode-to-unit table.
    assert _timing_refs("wire [2:0] u = isa_unit(op);") == ["isa_unit"]
    assert re.search(r"\.busy\(sfpu_busy\)", core)


def test_reductions_and_topk_end_when_their_results_are_there(diff_cfg):
    # One tree level per cycle: log2(VLEN) + 2 (capture, combine); V_TOPK k + 11.
    for vlen, red in ((4, 4), (16, 6), (64, 8), (128, 9)):
        cfg = default_config(MLEN=vlen, VLEN=vlen, BLEN=min(4, vlen), HLEN=min(4, vlen))
        assert cfg.cycles("V_RED_SUM") == cfg.cycles("V_RED_MAX") == red
        assert timing.rtl_cycles(cfg)["V_RED_SUM"] == red
    assert (diff_cfg.cycles("V_TOPK"), diff_cfg.cycles("V_TOPK_32")) == (19, 15)


def test_timing_classes_are_the_rtls(diff_cfg):
    for cfg in (default_config(), diff_cfg, default_config(MLEN=16, VLEN=16, BLEN=2, HLEN=8)):
        assert timing.mismatches(cfg) == [], cfg
    # A class that no longer matches the RTL is refused before building.
    cfg = default_config()
    cfg._cycles = {**cfg._cycles, "V_RED_SUM": 9}
    assert timing.mismatches(cfg) == ["V_RED_SUM: hardware.toml 9, RTL 8"]
    with pytest.raises(ConfigError, match="V_RED_SUM"):
        build.check_config(cfg)


def test_vector_sram_reads_are_registered():
    # A macro's read data comes the cycle after its address: the reads that used to be
    # used in their own cycle now go through a register (rtl/plena/README.md).
    core = _code((build.PLENA_RTL / "plena_core.v").read_text())
    check = _code((build.PLENA_RTL / "plena_check.v").read_text())
    assert ".sr_data(dma_sr_q)" in core                           # a store's row, read ahead
    assert re.search(r"wire\s*\[RW-1:0\]\s*sh_row\s*=\s*va_q\[", core)  # V_SHFT_V: port A's register
    assert "nan_seen" not in check                                 # V_TOPK's NaN: step 1
    assert re.search(r"late_err\s*=\s*busy_now\s*&&\s*op\s*==\s*OP_V_TOPK", core)


def test_vector_sram_is_banked_macros():
    # The Vector SRAM is plena_vsram: NB banks by row, each three plena_sram2w copies (one
    # per read port A, B, D; every write to all three), not a flip-flop array that the
    # units read combinationally; every access goes through its ports (rtl/plena/README.md).
    core = _code((build.PLENA_RTL / "plena_core.v").read_text())
    vsram = _code((build.PLENA_RTL / "plena_vsram.v").read_text())
    sram = _code((build.PLENA_RTL / "plena_sram2w.v").read_text())
    arrays = re.compile(r"\breg\b[^;]*\[\s*0\s*:")           # an unpacked array
    assert not re.search(r"\bvsram\s*\[", core)
    assert re.search(r"\bplena_vsram\s*#\(.*?\)\s*u_vsram\s*\(", core, flags=re.S)
    assert core.count("plena_vsram") == 1 and "plena_sram2w" not in core
    # (the core's one plena_sram is the instruction memory: test_instruction_memory_is_a_macro)
    assert re.findall(r"\bplena_sram\s*#\(.*?\)\s*(u_\w+)\s*\(", core, flags=re.S) == ["u_imem"]
    for unit in ("plena_vector.v", "plena_vgroup.v", "plena_vreduce.v", "plena_matrix.v",
                 "plena_topk.v", "plena_dma.v"):
        assert "vsram" not in _code((build.PLENA_RTL / unit).read_text()), unit
    assert not arrays.search(vsram)
    # NB = 2^NBW banks, NBW from NA: V_TOPK's NA rows fall in distinct banks; port W
    # writes one row (M_MM_WO's block a row per step).
    assert re.search(r"NBW\s*=\s*\$clog2\(NA\)", vsram)
    assert re.search(r"input\s+wire\s+w_en,", vsram)
    assert re.search(r"input\s+wire\s*\[VLEN\*16-1:0\]\s*w_data,", vsram)
    bank = re.search(r"for\s*\(\s*gb\s*=\s*0\s*;\s*gb\s*<\s*NB\s*;[^)]*\)\s*begin\s*:\s*g_bank\b"
                     r"(.*?)\bend\s+endgenerate", vsram, flags=re.S)
    assert bank
    copies = re.findall(r"plena_sram2w\s*#\(\s*\.DEPTH\(DEPTH\),\s*\.N\(VLEN\).*?\)\s*(u_\w+)\s*\(",
                        bank.group(1), flags=re.S)
    assert copies == ["u_a", "u_b", "u_d"] and vsram.count("plena_sram2w") == 3
    # The macro: one registered read port and two element-masked write ports; one array,
    # read only into rdata at the read clock's edge.
    ports = re.findall(r"\b(?:input|output)\s+(?:wire|reg)\s*(?:\[[^\]]*\])?\s*(\w+)", sram)
    assert ports == ["rclk", "wclk", "re", "raddr", "rdata", "we0", "wmask0", "waddr0",
                     "wdata0", "we1", "wmask1", "waddr1", "wdata1"]
    assert len(arrays.findall(sram)) == 1
    assert re.search(r"always\s*@\(posedge rclk\)\s*if\s*\(re\)\s*rdata\s*<=\s*mem\[raddr\]", sram)
    assert len(re.findall(r"mem\s*\[\s*raddr\s*\]", sram)) == 1 and "assign" not in sram
    # The host reads a row through port A, registered; the trace keeps its own rows
    # (from the core's dv_* write port) instead of reading the banks with the clock held.
    assert re.search(r"HS_VSRAM:\s*host_rdata\s*=\s*va_q\[", core)
    harness = _code((build.PLENA_RTL / "plena_sim.v").read_text())
    assert not re.search(r"tread\s*\(\s*HS_VSRAM", harness)


def test_matrix_sram_is_banked_macros():
    # The Matrix SRAM is plena_msram: MLEN plena_sram banks (bank r: row r of every tile),
    # each one read and one write port with registered read data, not a flip-flop array
    # that a step reads a whole tile of combinationally (rtl/plena/README.md).
    matrix = _code((build.PLENA_RTL / "plena_matrix.v").read_text())
    msram = _code((build.PLENA_RTL / "plena_msram.v").read_text())
    sram = _code((build.PLENA_RTL / "plena_sram.v").read_text())
    arrays = re.compile(r"\breg\b[^;]*\[\s*0\s*:")           # an unpacked array
    assert not re.search(r"\breg\b[^;]*\bmsram\s*\[", matrix)
    assert re.search(r"\bplena_msram\s*#\(.*?\)\s*u_msram\s*\(", matrix, flags=re.S)
    assert not arrays.search(msram)
    assert re.search(r"for\s*\(\s*gb\s*=\s*0\s*;\s*gb\s*<\s*MLEN\s*;[^)]*\)\s*begin\s*:\s*g_bank\s+"
                     r"[^@]*?plena_sram\s*#\(\s*\.DEPTH\(MSRAM_TILES\)", msram, flags=re.S)
    assert msram.count("plena_sram") == 1 and "plena_sram" not in matrix
    # The macro: exactly the ports of a 1R1W SRAM (a read and a write clock, as a
    # two-port macro has); one array, read only into rdata at the read clock's edge.
    ports = re.findall(r"\b(?:input|output)\s+(?:wire|reg)\s*(?:\[[^\]]*\])?\s*(\w+)", sram)
    assert ports == ["rclk", "wclk", "re", "raddr", "rdata", "we", "wmask", "waddr", "wdata"]
    assert len(arrays.findall(sram)) == 1
    assert re.search(r"always\s*@\(posedge rclk\)\s*if\s*\(re\)\s*rdata\s*<=\s*mem\[raddr\]", sram)
    assert len(re.findall(r"mem\s*\[\s*raddr\s*\]", sram)) == 1 and "assign" not in sram
    # The trace does not read the banks with the core's clock stopped.
    harness = _code((build.PLENA_RTL / "plena_sim.v").read_text())
    assert not re.search(r"tread\s*\(\s*HS_MSRAM", harness)


def test_scalar_memories_are_banked_macros():
    # FP_MEM and INT_MEM are plena_smem: NB plena_sram banks by word, one registered read
    # port and one write port, not flip-flop arrays read combinationally; a load's word
    # reaches its register one edge after the load, bypassed in between (rtl/plena/README.md).
    core = _code((build.PLENA_RTL / "plena_core.v").read_text())
    smem = _code((build.PLENA_RTL / "plena_smem.v").read_text())
    arrays = re.compile(r"\breg\b[^;]*\[\s*0\s*:")           # an unpacked array
    assert not re.search(r"\b(fp_mem|int_mem)\s*\[", core)
    insts = re.findall(r"\bplena_smem\s*#\((.*?)\)\s*(u_\w+)\s*\(", core, flags=re.S)
    assert [name for _, name in insts] == ["u_fpmem", "u_intmem"]
    assert ".NR(MAP_LANES)" in insts[0][0] and ".NR(1)" in insts[1][0]
    assert not arrays.search(smem) and smem.count("plena_sram ") + smem.count("plena_sram#") == 1
    assert re.search(r"NBW\s*=\s*\$clog2\(\(NR\s*>\s*NW\)\s*\?\s*NR\s*:\s*NW\)", smem)
    # The load's register write comes from the read register, and every gp/f read that an
    # instruction makes goes through the bypass.
    assert re.search(r"if\s*\(ld_gp\)\s*gp\[ld_r\]\s*<=\s*im_q;", core)
    assert re.search(r"if\s*\(ld_f\)\s*f\[ld_r\[2:0\]\]\s*<=\s*fm_q\[31:0\];", core)
    assert not re.search(r"\bgp\[(rd|rs1|rs2)\]\s*[;)]", core.replace("? im_q : gp[", "")), \
        "a gp read without the load bypass"
    assert not re.search(r"\bf\[(frd|frs1|frs2)\]", core.replace(": f[", "").replace("f[frd] <=", "")), \
        "an f read without the load bypass"
    # The host reads a word through the read port; the trace keeps its own copy.
    assert re.search(r"HS_FPMEM:\s*host_rdata\s*=\s*RW'\(fm_q\[31:0\]\)", core)
    assert re.search(r"HS_INTMEM:\s*host_rdata\s*=\s*RW'\(im_q\)", core)
    harness = _code((build.PLENA_RTL / "plena_sim.v").read_text())
    assert not re.search(r"tread\s*\(\s*HS_(FP|INT)MEM|t_word\([^;]*HS_(FP|INT)MEM", harness)


def test_instruction_memory_is_a_macro():
    # The program is one plena_sram (32-bit words) whose read address is pc's next value:
    # the fetch register holds the word at pc from the edge that sets pc, so decode reads
    # no array combinationally; the host writes it and reads it through its ports.
    core = _code((build.PLENA_RTL / "plena_core.v").read_text())
    assert not re.search(r"\bimem\s*\[", core)
    inst = re.search(r"\bplena_sram\s*#\((.*?)\)\s*u_imem\s*\((.*?)\);", core, flags=re.S)
    assert inst and ".DEPTH(IMEM_SIZE)" in inst.group(1) and ".raddr(if_addr)" in inst.group(2)
    assert re.search(r"if_addr\s*=\s*host_prd\s*\?\s*IMW'\(host_addr\)\s*:\s*IMW'\(pc_next\)", core)
    assert re.search(r"always\s*@\(posedge clk\)\s*begin\s*rt_valid\s*<=\s*1'b0;\s*pc\s*<=\s*pc_next;", core)
    assert len(re.findall(r"\bpc\s*<=", core)) == 1           # pc_next is pc's only source
    assert re.search(r"assign\s+word\s*=\s*if_fw\s*\?\s*if_fw_word\s*:\s*if_q;", core)
    assert re.search(r"HS_IMEM:\s*host_rdata\s*=\s*RW'\(word\)", core)


def test_mm_and_bmm_accumulators_are_banked_macros():
    # BMM_ACC and MM_ACC are plena_acc: HEADS x COLS/BLEN plena_sram banks (ROWS words of
    # BLEN fp32 entries; BMM_ACC HEADS x MLEN/BLEN banks of MLEN words, MM_ACC one bank of
    # BLEN words), registered reads, and a valid bit per block of a row in flip-flops
    # instead of a one-cycle clear of the banks; not a flip-flop array read by a step
    # combinationally (rtl/plena/README.md, "The accumulators").
    matrix = _code((build.PLENA_RTL / "plena_matrix.v").read_text())
    acc = _code((build.PLENA_RTL / "plena_acc.v").read_text())
    arrays = re.compile(r"\breg\b[^;]*\[\s*0\s*:")           # an unpacked array
    assert not re.search(r"\b(bmm|mm)_acc\s*\[", matrix)
    insts = re.findall(r"\bplena_acc\s*#\((.*?)\)\s*(u_\w+)\s*\(", matrix, flags=re.S)
    assert [(re.sub(r"\s+", "", p), u) for p, u in insts] == [
        (".ROWS(MLEN),.COLS(MLEN),.BLEN(BLEN),.HEADS(HEADS)", "u_bmm"),
        (".ROWS(BLEN),.COLS(BLEN),.BLEN(BLEN),.HEADS(1)", "u_mm")]
    assert not arrays.search(acc) and acc.count("plena_sram") == 1
    assert re.search(r"for\s*\(\s*gh\s*=\s*0\s*;\s*gh\s*<\s*HEADS\s*;[^)]*\)\s*begin\s*:\s*g_head\s+"
                     r"for\s*\(\s*gb\s*=\s*0\s*;\s*gb\s*<\s*NB\s*;[^)]*\)\s*begin\s*:\s*g_bank\s+"
                     r"[^@]*?plena_sram\s*#\(\s*\.DEPTH\(ROWS\),\s*\.N\(2\s*\*\s*BLEN\)", acc, flags=re.S)
    # The clear is of the valid bits only (flip-flops), never a loop over the entries.
    assert re.search(r"reg\s*\[ROWS\s*\*\s*NB-1:0\]\s*vld;", acc)
    assert re.search(r"if\s*\(clear\)\s*vld\s*<=\s*\{ROWS\s*\*\s*NB\{1'b0\}\};", acc)
    # M_MM_WO streams MM_ACC out a row per step (BLEN steps), as the bank reads a word a cycle.
    assert re.search(r"op\s*==\s*MOP_MM_WO\s*\?\s*32'\(BLEN\)", matrix)
    # The host reads an entry through its bank (registered, while the core is idle or
    # done); the trace keeps its own copy from the db_* port instead of reading the banks
    # with the core's clock held.
    core = _code((build.PLENA_RTL / "plena_core.v").read_text())
    assert re.search(r"host_accrd\s*=\s*!host_we\s*&&\s*\(host_sel\s*==\s*HS_MM\s*\|\|\s*"
                     r"host_sel\s*==\s*HS_BMM\)\s*&&\s*"
                     r"\(state\s*==\s*S_IDLE\s*\|\|\s*state\s*==\s*S_DONE\)", core)
    assert ".h_acc_re(host_accrd)" in core
    harness = _code((build.PLENA_RTL / "plena_sim.v").read_text())
    assert not re.search(r"(tread|t_acc|t_word)\s*\([^;]*HS_(BMM|MM)\b", harness)
    assert re.search(r"hread_all\(HS_MM,\s*BLEN\s*\*\s*BLEN,\s*3\)", harness)
