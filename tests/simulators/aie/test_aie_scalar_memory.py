"""Scalar, move and memory semantics: integer arithmetic, r0, pointers and every
post-modify form (immediate, modifier, 2-D/3-D address generators), loads and stores of
every width, broadcasts, and the bundle's read-before-write rule."""
import numpy as np

from aie_kit import accf, bf, image, run, x16

I32 = np.dtype("<i4")


def test_integer_arithmetic_wraps_and_r0_reads_zero():
    r = run("MOVI r1, -7\nMOVI r2, 3\nADD r3, r1, r2\nSUB r4, r1, r2\nMUL r5, r1, r2\nAND r6, r1, r2\n"
            "OR r7, r1, r2\nADDI r8, r1, -2048\nSLLI r9, r2, 30\nSRAI r10, r1, 1\nSRLI r11, r1, 28\n"
            "MOVI r0, 5\nADD r12, r0, r2\nMOVI r13, 0x1234\nMOVHI r13, 0xABCD\nMOV r14, r13")
    g = r.registers["r"]
    assert g[3:12] == [-4, -10, -21, -7 & 3, -7 | 3, -2055, -1073741824, -4, 15]
    assert g[0] == 0 and g[12] == 3
    assert g[13] == g[14] == np.int32(np.uint32(0xABCD1234)).item()


def test_scalar_multiply_wraps():
    r = run("MOVI r1, 65536\nMUL r2, r1, r1\nMOVI r3, 100000\nMUL r4, r3, r3")
    assert r.registers["r"][2] == 0 and r.registers["r"][4] == 1410065408


def test_pointer_moves_and_arithmetic():
    r = run("MOVPI p1, 0x400\nMOVI r1, 100\nMOVP p2, r1\nPADD p1, r1\nPADDI p3, p1, -4\nMOVM m2, r1")
    assert r.registers["p"][1:4] == [0x400 + 100, 100, 0x400 + 96] and r.registers["m"][2] == 100


def test_loads_and_stores_of_every_width():
    words = np.arange(64, dtype=I32) * 3 - 50
    src = """
    MOVPI p0, 0
    MOVPI p1, 1024
    LD r1, [p0], 4
    LD r2, [p0], 28
    VLD x1, [p0]
    ALD acc1, [p0], 128
    ST r1, [p1], 32
    VST x1, [p1], 64
    AST acc1, [p1], 128
    MOVI r4, 0x3F80
    VBCST.16 x2, r4
    VBCST.32 x3, r2
    ABCST acc2, r4
    VMOV x4, x1
    AMOV acc3, acc1
    MOVPI p2, 6
    VLDB x5, [p2]
    """
    r = run(src, image(dm={0: words}))
    assert r.registers["r"][1:3] == [-50, -47]
    assert np.array_equal(r.registers["x"][1].view(I32), words[8:24])
    assert np.array_equal(r.registers["acc"][1].view(I32), words[8:40])
    dmem = r.memories["dm"]
    assert dmem[1024:1028].view(I32)[0] == -50
    assert np.all(dmem[1028:1056] == 0)
    assert np.array_equal(dmem[1056:1120].view(I32), words[8:24])
    assert np.array_equal(dmem[1120:1248].view(I32), words[8:40])
    assert r.registers["p"][0] == 160 and r.registers["p"][1] == 1248
    assert np.all(x16(r, 2) == 0x3F80) and np.all(r.registers["x"][3].view(I32) == -47)
    assert np.all(r.registers["acc"][2] == 0x3F80)
    assert np.array_equal(r.registers["x"][4], r.registers["x"][1])
    assert np.array_equal(r.registers["acc"][3], r.registers["acc"][1])
    assert np.all(x16(r, 5) == words.view(np.uint16)[3])


def test_post_modify_by_modifier_register():
    r = run("MOVI r1, -32\nMOVM m3, r1\nMOVPI p0, 512\nVLD x0, [p0], m3\nVLD x1, [p0], m3")
    assert r.registers["p"][0] == 512 - 64


def test_address_generator_2d():
    # rows of 3 accesses 64 bytes apart, then jump to the next row 1024 bytes on
    src = "MOVI r1, 64\nGSET.INC g0, r1\nMOVI r1, 3\nGSET.N1 g0, r1\nMOVI r1, 1\nGSET.N2 g0, r1\n" \
          "MOVI r1, 1024 - 128\nGSET.J2 g0, r1\nMOVPI p0, 0\n"
    seen = []
    for k in range(7):
        r = run(src + "\n".join(["VLD x0, [p0], g0"] * k))
        seen.append(r.registers["p"][0])
    assert seen == [0, 64, 128, 1024, 1088, 1152, 2048]


def test_address_generator_3d():
    src = "\n".join(f"MOVI r1, {v}\nGSET.{f} g1, r1" for f, v in
                    (("INC", 4), ("N1", 2), ("J1", 12), ("N2", 2), ("J2", 100))) + "\nMOVPI p0, 0\n"
    r = run(src + "\n".join(["LD r2, [p0], g1"] * 9))
    # +4, +12 (next row), +4, +100 (next plane), +4, +12, +4, +100, +4
    assert r.registers["p"][0] == 4 + 12 + 4 + 100 + 4 + 12 + 4 + 100 + 4
    assert r.registers["g"][1]["C1"] == 1 and r.registers["g"][1]["C2"] == 0


def test_gset_clears_counters():
    r = run("MOVI r1, 4\nGSET.N1 g2, r1\nMOVPI p0, 0\nVLD x0, [p0], g2\nVLD x0, [p0], g2\nGSET.INC g2, r1")
    g = r.registers["g"][2]
    assert g["C1"] == 0 and g["INC"] == 4 and g["N1"] == 4


def test_bundle_reads_happen_before_writes():
    data = np.arange(64, dtype=np.uint8)
    # the store sees x0 from before this bundle's load; VMOV sees it too
    r = run("MOVPI p0, 0\nMOVPI p1, 512\nVLD x0, [p0], 64 || VST x0, [p1] || VMOV x2, x0", image(dm={0: data}))
    assert np.all(r.memories["dm"][512:576] == 0) and np.all(r.registers["x"][2] == 0)
    assert np.array_equal(r.registers["x"][0], data)


def test_exchange_in_one_bundle():
    a, b = np.full(32, 1.5, np.float32), np.full(32, -2.0, np.float32)
    r = run("MOVPI p0, 0\nVLD x1, [p0], 64\nVLD x2, [p0], 64\nVMOV x1, x2 || VMAX.BF16 x2, x1, x1",
            image(dm={0: bf(a), 64: bf(b)}))
    assert np.all(x16(r, 1) == bf(b)) and np.all(x16(r, 2) == bf(a))


def test_loads_in_a_bundle_see_memory_before_its_store():
    r = run("MOVPI p0, 0\nMOVI r1, 9\nST r1, [p0] || LD r2, [p1]\nLD r3, [p1]")
    assert r.registers["r"][2] == 0 and r.registers["r"][3] == 9


def test_vector_and_accumulator_results_round_trip_through_memory():
    v = np.linspace(-2, 2, 32).astype(np.float32)
    r = run("MOVPI p0, 0\nVLD x1, [p0]\nVUPS.BF16 acc0, x1\nMOVPI p1, 256\nAST acc0, [p1]\nALD acc1, [p1]",
            image(dm={0: bf(v)}))
    assert np.array_equal(accf(r, 1), accf(r, 0))
