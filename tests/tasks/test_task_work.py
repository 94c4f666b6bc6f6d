"""work() against counts done by hand (conventions in tasks/README.md)."""
from kernelcraft.tasks import get_task
from kernelcraft.tasks.core import Work


def test_gemm_c5():
    # 256 x 512 @ 512 x 512
    assert get_task("gemm").work("C5") == Work(
        macs=256 * 512 * 512, vector_elems=0, special_elems=0,
        input_elems=256 * 512 + 512 * 512, output_elems=256 * 512)


def test_linear_c1_counts_the_bias():
    assert get_task("linear").work("C1") == Work(
        macs=64 ** 3, vector_elems=64 * 64, special_elems=0,
        input_elems=64 * 64 * 2 + 64, output_elems=64 * 64)


def test_gemv_and_batch_matmul():
    assert get_task("gemv").work("C2").macs == 128 * 256
    assert get_task("gemv").work("C2").input_elems == 128 * 256 + 256
    assert get_task("batch_matmul").work("H1").macs == 3 * 192 * 128 * 320


def test_softmax_c1():
    # 4 rows of 64: max, subtract, sum, scale per element; exp per element, 1/sum per row
    w = get_task("softmax").work("C1")
    assert (w.vector_elems, w.special_elems) == (4 * 4 * 64, 4 * 64 + 4)
    assert (w.input_elems, w.output_elems) == (256, 256)


def test_layer_norm_h1():
    w = get_task("layer_norm").work("H1")           # 24 x 1216
    assert w.vector_elems == 7 * 24 * 1216 and w.special_elems == 2 * 24
    assert w.input_elems == 24 * 1216 + 2 * 1216


def test_conv2d_c1():
    # 4x4x64 image, 3x3 filters, 64 out -> 2x2x64 outputs, each 3*3*64 MACs
    w = get_task("conv2d").work("C1")
    assert w.macs == 2 * 2 * 64 * 9 * 64 == 147456
    assert w.input_elems == 4 * 4 * 64 + 9 * 64 * 64 and w.output_elems == 2 * 2 * 64


def test_depthwise_and_conv_block():
    assert get_task("depthwise_conv").work("C1").macs == 4 * 4 * 64 * 9
    w = get_task("conv_block").work("C1")           # 6x6x64 -> 4x4x64
    assert w.macs == 16 * 64 * 576 and w.vector_elems == 3 * 16 * 64


def test_elementwise():
    assert get_task("relu").work("C2").vector_elems == 16 * 256
    assert get_task("silu").work("C2").special_elems == 2 * 16 * 256
    assert get_task("gelu").work("C1").vector_elems == 6 * 4 * 64


def test_attention_counts_live_pairs():
    # sdpa C1: S=64, D=32, not causal: 64*64 pairs, QK^T and PV
    w = get_task("scaled_dot_product").work("C1")
    assert w.macs == 2 * 64 * 64 * 32
    assert w.special_elems == 64 * 64 + 64
    assert w.vector_elems == 3 * 64 * 64 + 2 * 64 * 32
    # flash C1: S=128 causal: 128*129/2 pairs
    w = get_task("flash_attention").work("C1")
    assert w.macs == 2 * (128 * 129 // 2) * 64
    # gqa C1: S=64 causal, 4 query heads of 32, inputs q [64,128], k and v [64,64]
    w = get_task("gqa").work("C1")
    assert w.macs == 4 * 2 * (64 * 65 // 2) * 32
    assert w.input_elems == 64 * 128 + 2 * 64 * 64 and w.output_elems == 64 * 128


def test_rope_and_mlps():
    assert get_task("rope").work("C1").vector_elems == 3 * 64 * 64
    assert get_task("rope").work("C1").input_elems == 64 * 64 * 3
    w = get_task("ffn").work("C1")                   # S=64 Dm=64 F=128
    assert w.macs == 2 * 64 * 64 * 128 and w.special_elems == 2 * 64 * 128
    assert w.vector_elems == 7 * 64 * 128 + 64 * 64
    assert get_task("swiglu").work("C1").macs == 3 * 64 * 64 * 128


def test_decoder_blocks_c1():
    # S=64 Dm=64 H=2 D=32 causal
    pairs = 2 * (64 * 65 // 2)
    llama = get_task("decoder_block_llama").work("C1")     # F=128
    assert llama.macs == 4 * 64 * 64 * 64 + 2 * pairs * 32 + 3 * 64 * 64 * 128
    assert llama.special_elems == 4 * 64 + pairs + 64 * 2 + 2 * 64 * 128
    assert llama.vector_elems == (8 + 6 + 2) * 64 * 64 + (3 * pairs + 2 * 64 * 64) + 3 * 64 * 128
    t5 = get_task("decoder_block_t5").work("C1")           # F=256, bias [2, 64, 64]
    assert t5.macs == 4 * 64 * 64 * 64 + 2 * pairs * 32 + 2 * 64 * 64 * 256
    assert t5.special_elems == 4 * 64 + pairs + 64 * 2
    assert t5.vector_elems == (8 + 2) * 64 * 64 + (4 * pairs + 64 * 64) + 64 * 256
    assert t5.input_elems == 64 * 64 + 2 * 64 + 4 * 64 * 64 + 2 * 256 * 64 + 2 * 64 * 64
