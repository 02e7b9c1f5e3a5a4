"""FLOPs of one oneDNN convolution or inner-product execution, from the problem descriptor ONEDNN_VERBOSE prints.

Two counts (multiply-adds x 2):
- direct: what the layer's shape asks for, the direct convolution's count. This is the figure a "% of the FMA
  peak" has always used (mgbench models' GFLOP per image, x 3 for a training step).
- executed: the arithmetic the implementation ran. It differs from direct only for Winograd. oneDNN 2.6's f32
  Winograd on AVX-512 (verbose name jit_wino_4x3, src/cpu/x64/jit_avx512_core_f32_wino_conv_4x3.cpp) is
  F(4x4, 3x3): 4x4 output tiles from 6x6 input tiles (alpha = 6, tile_size = 4 in
  src/cpu/x64/jit_avx512_common_conv_winograd_kernel_f32.hpp), so per tile and per input/output channel pair it
  does alpha^2 = 36 multiply-adds in the transformed domain where direct convolution does 4 * 4 * 3 * 3 = 144
  (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks", CVPR 2016). The same count holds for the
  backward passes, which run the same tiling (backward data over the input gradient's tiles). Partial tiles at
  the edges count whole, as the kernel computes them. The tile transforms (additions and a few multiplies by
  constants per tile and channel, not per channel pair) are not counted, so "executed" is a lower bound.
"""
import math
import re

SHAPE_TOKEN = re.compile(r"(mb|ic|oc|id|od|kd|ih|oh|kh|iw|ow|kw|g)(\d+)")
WINO_TILE = 4   # output tile side of F(4x4, 3x3)
WINO_ALPHA = 6  # input tile side: tile + kernel - 1


def shape(problem):
    v = {}
    for key, val in SHAPE_TOKEN.findall(problem):
        v.setdefault(key, int(val))
    return v


def is_winograd(impl):
    return "wino" in impl


def direct_flops(prim, problem):
    """The direct convolution's (or inner product's) multiply-adds x 2; None for other primitives."""
    if prim not in ("convolution", "inner_product"):
        return None
    v = shape(problem)
    g = v.get("g", 1)
    out_spatial = v.get("od", 1) * v.get("oh", 1) * v.get("ow", 1)
    kernel = v.get("kd", 1) * v.get("kh", 1) * v.get("kw", 1)
    if prim == "inner_product":  # ih/iw present when the source is spatial: they are part of the reduction
        kernel = v.get("id", 1) * v.get("ih", 1) * v.get("iw", 1)
        out_spatial = 1
    return 2.0 * v["mb"] * v["oc"] * out_spatial * (v["ic"] // g) * kernel


def executed_flops(prim, impl, prop, problem):
    """What the implementation computed: direct_flops, except Winograd's transformed-domain products."""
    direct = direct_flops(prim, problem)
    if direct is None or prim != "convolution" or not is_winograd(impl):
        return direct
    v = shape(problem)
    if v.get("kh") != 3 or v.get("kw") != 3:
        raise ValueError(f"Winograd F(4x4, 3x3) on a {v.get('kh')}x{v.get('kw')} kernel: {problem}")
    # Backward data produces the input gradient: its tiles cover the input; the other passes tile the output.
    h, w = (v["ih"], v["iw"]) if prop.startswith("backward_data") else (v["oh"], v["ow"])
    tiles = v["mb"] * math.ceil(h / WINO_TILE) * math.ceil(w / WINO_TILE)
    return 2.0 * tiles * WINO_ALPHA * WINO_ALPHA * (v["ic"] // v.get("g", 1)) * v["oc"]
