"""rtl/common/mux_tree.v on Icarus: every select of a tree chooses its entry, +0 past the
last entry (N not a power of two, and more levels than N needs), one entry without a
select; a second tree changes its output when only its entries change (an always block
of the entries and the select, no stale value). A few Icarus compiles, about a second."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kernelcraft.simulators.rtl import toolchain

RTL_COMMON = Path(__file__).resolve().parents[3] / "rtl" / "common"

TB = """module tb;
    localparam integer W = 8, N = {n}, LV = {lv}, SW = LV > 0 ? LV : 1;
    reg [N*W-1:0] in;
    reg [SW-1:0] sel;
    wire [W-1:0] out;
    mux_tree #(.WIDTH(W), .N(N), .LEVELS(LV)) dut (.in(in), .sel(sel), .out(out));
    integer e, r, bad;
    initial begin
        bad = 0;
        for (r = 0; r < 3; r = r + 1) begin
            for (e = 0; e < N; e = e + 1) in[W*e +: W] = W'(8'h11 * (e + 1) + r);
            for (e = 0; e < (1 << LV); e = e + 1) begin
                sel = SW'(e);
                #1;
                if (out !== (e < N ? in[W*e +: W] : {{W{{1'b0}}}})) begin
                    bad = bad + 1;
                    $display("sel %0d: %h", e, out);
                end
            end
        end
        $display("checked %0d mismatches", bad);
        $finish;
    end
endmodule
"""


@pytest.mark.parametrize("n, levels", [(1, 0), (2, 1), (4, 2), (5, 3), (3, 3), (16, 4)])
def test_every_select_chooses_its_entry(tmp_path, n, levels):
    tool = toolchain.find_icarus()
    tb = tmp_path / "tb.v"
    tb.write_text(TB.format(n=n, lv=levels))
    vvp = tmp_path / "a.vvp"
    subprocess.run([str(tool.executable), "-g2012", "-s", "tb", "-o", str(vvp), str(tb),
                    str(RTL_COMMON / "mux_tree.v")], check=True, capture_output=True, text=True)
    run = subprocess.run([str(tool.executable.parent / "vvp"), "-n", str(vvp)],
                         capture_output=True, text=True, check=True)
    assert "checked 0 mismatches" in run.stdout, run.stdout
