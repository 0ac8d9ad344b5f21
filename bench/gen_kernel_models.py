#!/usr/bin/env python3
"""Writes one-node .vkir models (+ .bin weights, + input .npy) for the
per-kernel benchmark: ResNet-50 and MobileNetV2 conv shapes (batch 1,
224x224), large GEMMs and a large elementwise add (set "kernels", the
default); RetinaNet-ResNet50-FPN's largest convs at 800x800 (set "retina":
its head at 100x100 and 3x3 convs at 100x100 to 25x25; set "rungs": its convs of over 2M
outputs); VGG-16's 3x3 convs as conv2d_winograd F(2x2) / F(4x4) and direct (set "winograd");
the fp32 GEMMs of ViT and ConvNeXt (set "fp32gemm"), attention's batched ones (set "attn"),
products of few tiles and a long k (set "splitk"), the attention op at the
transformers' shapes (set "fattn").
Random non-zero data.
usage: gen_kernel_models.py OUTDIR [SET]   (prints one line per model: name flops bytes)"""
import os, sys
import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(1)

def conv(name, cin, cout, hw, k, s, group=1, batch=1):
    pad = k // 2
    oh = (hw + 2 * pad - k) // s + 1
    w = rng.uniform(-0.1, 0.1, (cout, cin // group, k, k)).astype(np.float32)
    b = rng.uniform(-0.1, 0.1, cout).astype(np.float32)
    blob = w.tobytes() + b"\0" * (-w.nbytes % 64)
    boff = len(blob)
    blob += b.tobytes()
    text = (f"vkir 1\ngraph @{name}(%x: f32[{batch},{cin},{hw},{hw}]) -> (%y: f32[{batch},{cout},{oh},{oh}]) {{\n"
            f"  %w = const f32[{cout},{cin // group},{k},{k}] @blob[0, {w.nbytes}]\n"
            f"  %b = const f32[{cout}] @blob[{boff}, {b.nbytes}]\n"
            f"  %y = conv2d %x, %w, %b {{strides=[{s},{s}], pads=[{pad},{pad},{pad},{pad}], group={group}, act=relu}} : f32[{batch},{cout},{oh},{oh}]\n"
            f"  return %y\n}}\n")
    flops = 2 * batch * cout * oh * oh * (cin // group) * k * k
    nbytes = 4 * (batch * cin * hw * hw + w.size + cout + batch * cout * oh * oh)
    write(name, text, blob, {"x": (batch, cin, hw, hw)}, flops, nbytes)

def gemm(name, m, k, n):
    b = rng.uniform(-0.1, 0.1, (k, n)).astype(np.float32)
    text = (f"vkir 1\ngraph @{name}(%a: f32[{m},{k}]) -> (%y: f32[{m},{n}]) {{\n"
            f"  %b = const f32[{k},{n}] @blob[0, {b.nbytes}]\n"
            f"  %y = matmul %a, %b : f32[{m},{n}]\n  return %y\n}}\n")
    write(name, text, b.tobytes(), {"a": (m, k)}, 2 * m * n * k, 4 * (m * k + k * n + m * n))

def winograd(name, cin, cout, hw, m):
    """conv2d_winograd (3x3, pad 1, bias, relu) on a random transformed
    weight U [(m+2)^2, cin, cout] (timing only: any U is a valid input)."""
    a2 = (m + 2) ** 2
    u = rng.uniform(-0.1, 0.1, (a2, cin, cout)).astype(np.float32)
    b = rng.uniform(-0.1, 0.1, cout).astype(np.float32)
    blob = u.tobytes() + b"\0" * (-u.nbytes % 64)
    boff = len(blob)
    blob += b.tobytes()
    text = (f"vkir 1\ngraph @{name}(%x: f32[1,{cin},{hw},{hw}]) -> (%y: f32[1,{cout},{hw},{hw}]) {{\n"
            f"  %u = const f32[{a2},{cin},{cout}] @blob[0, {u.nbytes}]\n"
            f"  %b = const f32[{cout}] @blob[{boff}, {b.nbytes}]\n"
            f"  %y = conv2d_winograd %x, %u, %b {{pads=[1,1,1,1], out_tile={m}, act=relu}} : f32[1,{cout},{hw},{hw}]\n"
            f"  return %y\n}}\n")
    flops = 2 * cout * hw * hw * cin * 9  # the direct conv's, for comparable GFLOP/s
    write(name, text, blob, {"x": (1, cin, hw, hw)}, flops, 4 * (cin * hw * hw + u.size + cout + cout * hw * hw))

def add(name, n):
    text = (f"vkir 1\ngraph @{name}(%a: f32[{n}], %b: f32[{n}]) -> (%y: f32[{n}]) {{\n"
            f"  %y = add %a, %b : f32[{n}]\n  return %y\n}}\n")
    write(name, text, b"", {"a": (n,), "b": (n,)}, n, 12 * n)

def write(name, text, blob, inputs, flops, nbytes):
    open(os.path.join(out, name + ".vkir"), "w").write(text)
    if blob:
        open(os.path.join(out, name + ".bin"), "wb").write(blob)
    for k, shape in inputs.items():
        np.save(os.path.join(out, f"{name}.{k}.npy"), rng.uniform(-1, 1, shape).astype(np.float32))
    print(name, flops, nbytes)

def kernels():
    # ResNet-50 (batch 1, 224x224)
    conv("r50_conv1_7x7s2", 3, 64, 224, 7, 2)
    conv("r50_1x1_64_256_56", 64, 256, 56, 1, 1)
    conv("r50_3x3_64_56", 64, 64, 56, 3, 1)
    conv("r50_3x3_128_28", 128, 128, 28, 3, 1)
    conv("r50_3x3_256_14", 256, 256, 14, 3, 1)
    conv("r50_3x3_512_7", 512, 512, 7, 3, 1)
    conv("r50_1x1_1024_256_14", 1024, 256, 14, 1, 1)
    # MobileNetV2
    conv("mv2_dw3x3_32_112", 32, 32, 112, 3, 1, group=32)
    conv("mv2_dw3x3s2_96_112", 96, 96, 112, 3, 2, group=96)
    conv("mv2_dw3x3_144_56", 144, 144, 56, 3, 1, group=144)
    conv("mv2_pw_32_16_112", 32, 16, 112, 1, 1)
    conv("mv2_pw_144_24_56", 144, 24, 56, 1, 1)
    # large 3x3 conv (wide; batch 1 and batch 8): the 25%-of-peak target
    conv("big_3x3_256_56", 256, 256, 56, 3, 1)
    conv("big_3x3_256_56_b8", 256, 256, 56, 3, 1, batch=8)
    # GEMMs
    gemm("gemm_1024", 1024, 1024, 1024)
    gemm("gemm_4096", 4096, 4096, 4096)
    gemm("gemv_2048_1000", 1, 2048, 1000)
    # elementwise (bandwidth)
    add("add_16M", 16 * 1024 * 1024)


def retina():
    conv("retina_3x3_256_100", 256, 256, 100, 3, 1)
    conv("retina_cls_256_819_100", 256, 819, 100, 3, 1)
    conv("retina_3x3_256_50", 256, 256, 50, 3, 1)
    conv("retina_3x3_128_100", 128, 128, 100, 3, 1)
    conv("retina_3x3_512_25", 512, 512, 25, 3, 1)
    conv("retina_3x3_256_25", 256, 256, 25, 3, 1)
    # the 3x3 256->256 at 100x100's implicit GEMM (M 256, K 2304, N 10000)
    # two other ways: a 1x1 conv of the same sizes (contiguous, vector loads
    # of B) and a plain GEMM (weights [256, 2304] x im2col [2304, 10000])
    conv("retina_1x1_2304_256_100", 2304, 256, 100, 1, 1)
    gemm("retina_3x3_256_100_as_gemm", 256, 2304, 10000)


def winograd_set():
    # VGG-16's 3x3 convs (batch 1, 224x224): F(2x2) and F(4x4), and the direct conv
    for cin, cout, hw in [(64, 64, 224), (128, 128, 112), (256, 256, 56), (512, 512, 28), (512, 512, 14)]:
        for m in (2, 4):
            winograd(f"wino{m}_{cin}_{cout}_{hw}", cin, cout, hw, m)
        conv(f"direct_{cin}_{cout}_{hw}", cin, cout, hw, 3, 1)


def rungs():
    conv("r_conv1_7x7s2_800", 3, 64, 800, 7, 2)
    conv("r_l1_1x1_64_64_200", 64, 64, 200, 1, 1)
    conv("r_l1_3x3_64_200", 64, 64, 200, 3, 1)
    conv("r_l1_1x1_64_256_200", 64, 256, 200, 1, 1)
    conv("r_l1_1x1_256_64_200", 256, 64, 200, 1, 1)
    conv("r_l2_1x1_256_128_200", 256, 128, 200, 1, 1)
    conv("r_l2_1x1_128_512_100", 128, 512, 100, 1, 1)
    conv("r_fpn_1x1_512_256_100", 512, 256, 100, 1, 1)
    conv("r_head_3x3_256_100", 256, 256, 100, 3, 1)
    conv("r_cls_3x3_256_819_100", 256, 819, 100, 3, 1)


def taps():
    # the 3x3 convs of VGG-16 (the first's 3 channels aside), ResNet-50 and
    # RetinaNet's head, batch 1: where conv2d_coopmat reads tap-major weights
    for cin, cout, hw in [(64, 64, 224), (128, 128, 112), (256, 256, 56), (512, 512, 28),
                          (512, 512, 14), (64, 64, 56), (128, 128, 28), (256, 256, 14),
                          (512, 512, 7), (256, 256, 100)]:
        conv(f"t3x3_{cin}_{cout}_{hw}", cin, cout, hw, 3, 1)


def vit():
    # ViT-B/16's projections at batch 1 (197 tokens): qkv, attention out,
    # MLP in, MLP out
    gemm("vit_qkv_197_768_2304", 197, 768, 2304)
    gemm("vit_proj_197_768_768", 197, 768, 768)
    gemm("vit_mlp_in_197_768_3072", 197, 768, 3072)
    gemm("vit_mlp_out_197_3072_768", 197, 3072, 768)


def fp32gemm():
    # the fp32 GEMMs of the models slower than torch eager (ViT-B/L, ConvNeXt)
    # and two square ones: ViT-B/16's four projections, ViT-L/16's (1024
    # wide), ConvNeXt-T's first-stage MLP (3136 rows), ConvNeXt-L's
    # third-stage MLP (196 rows), 1024^3 and 4096^3
    vit()
    gemm("vitl_qkv_197_1024_3072", 197, 1024, 3072)
    gemm("vitl_mlp_in_197_1024_4096", 197, 1024, 4096)
    gemm("vitl_mlp_out_197_4096_1024", 197, 4096, 1024)
    gemm("cnxt_mlp_in_3136_96_384", 3136, 96, 384)
    gemm("cnxt_mlp_out_3136_384_96", 3136, 384, 96)
    gemm("cnxl_mlp_in_196_768_3072", 196, 768, 3072)
    gemm("cnxl_mlp_out_196_3072_768", 196, 3072, 768)
    gemm("gemm_1024", 1024, 1024, 1024)
    gemm("gemm_4096", 4096, 4096, 4096)


def splitk():
    # products of few 64x64 tiles and a long k, pass_split_k_gemm.c's:
    # ViT-B/16's and ViT-L/16's projections and MLP (197 tokens),
    # ConvNeXt-L's third-stage MLP (196), its fourth stage and Swin-T's (49)
    vit()
    gemm("vitl_proj_197_1024_1024", 197, 1024, 1024)
    gemm("vitl_mlp_in_197_1024_4096", 197, 1024, 4096)
    gemm("vitl_mlp_out_197_4096_1024", 197, 4096, 1024)
    gemm("cnxl_mlp_out_196_3072_768", 196, 3072, 768)
    gemm("cnxl4_mlp_in_49_1536_6144", 49, 1536, 6144)
    gemm("cnxl4_mlp_out_49_6144_1536", 49, 6144, 1536)
    gemm("swin4_mlp_in_49_768_3072", 49, 768, 3072)
    gemm("swin4_mlp_out_49_3072_768", 49, 3072, 768)


def small():
    # GoogLeNet's inception 5a/4e convs at 7x7 and 14x14 (batch 1), which
    # ran at 20-43 us each on the H200 (2026-11-28-conv-taps.md, call 6)
    conv("s_1x1_832_32_7", 832, 32, 7, 1, 1)
    conv("s_1x1_832_256_7", 832, 256, 7, 1, 1)
    conv("s_3x3_160_320_7", 160, 320, 7, 3, 1)
    conv("s_1x1_528_128_14", 528, 128, 14, 1, 1)


def small1x1():
    # 1x1 convs at 7x7 of 768, 832 (GoogLeNet's) and 1024 channels into 32
    # and 256: k a multiple of 128 or not
    for cin in (768, 832, 1024):
        for cout in (32, 256):
            conv(f"p_1x1_{cin}_{cout}_7", cin, cout, 7, 1, 1)


def oddk():
    # 1x1 convs at 7x7 whose k is an odd or even count of 64-steps (576 =
    # 9, 640 = 10, 704 = 11, 832 = 13, 960 = 15), into 32 and 256 channels;
    # and GoogLeNet's 3x3 convs whose k is not a multiple of 64
    for cin in (576, 640, 704, 832, 960):
        for cout in (32, 256):
            conv(f"o_1x1_{cin}_{cout}_7", cin, cout, 7, 1, 1)
    conv("o_3x3_96_128_28", 96, 128, 28, 3, 1)
    conv("o_3x3_112_224_14", 112, 224, 14, 3, 1)
    conv("o_3x3_160_320_7", 160, 320, 7, 3, 1)


def bgemm(name, batch, m, k, n):
    """y [batch, m, n] = a [batch, m, k] (constant) x b [batch, k, n] (input)."""
    a = rng.uniform(-0.1, 0.1, (batch, m, k)).astype(np.float32)
    text = (f"vkir 1\ngraph @{name}(%b: f32[{batch},{k},{n}]) -> (%y: f32[{batch},{m},{n}]) {{\n"
            f"  %a = const f32[{batch},{m},{k}] @blob[0, {a.nbytes}]\n"
            f"  %y = matmul %a, %b : f32[{batch},{m},{n}]\n  return %y\n}}\n")
    write(name, text, a.tobytes(), {"b": (batch, k, n)}, 2 * batch * m * n * k,
          4 * (batch * (m * k + k * n + m * n)))


def attn():
    # the batched matmuls of attention (fp32 GEMM defaults): ViT-B/16's and
    # ViT-L/16's q.k^T and softmax.v (12 and 16 heads, 197 tokens, 64 wide),
    # Swin-T's first stage (4 windows x 12 heads... as [48, 49, 32]); with two
    # GEMMs the gemm_tiled_vec4 ladder gave its 64x64 rung: ConvNeXt-L's first
    # MLP (3136x192 by 192x768) and 1024^3
    bgemm("att_qk_b", 12, 197, 64, 197)
    bgemm("att_av_b", 12, 197, 197, 64)
    bgemm("att_qk_l", 16, 197, 64, 197)
    bgemm("att_av_l", 16, 197, 197, 64)
    bgemm("swin_qk", 48, 49, 32, 49)
    bgemm("swin_av", 48, 49, 49, 32)
    gemm("cnxl_s1_in_3136_192_768", 3136, 192, 768)
    gemm("gemm_1024", 1024, 1024, 1024)


def attention(name, batch, m, n, d, bias=None):
    """y [batch.., m, d] = attention(q [batch.., m, d], kt [batch.., d, n], v [batch.., n, d])
    with alpha d^-1/2 and an optional constant bias (its dims)."""
    b = ",".join(str(x) for x in batch)
    blob, inputs = b"", {"q": (*batch, m, d), "k": (*batch, d, n), "v": (*batch, n, d)}
    lines = ""
    if bias:
        bv = rng.uniform(-1, 1, bias).astype(np.float32)
        blob = bv.tobytes()
        lines = f"  %bias = const f32[{','.join(str(x) for x in bias)}] @blob[0, {bv.nbytes}]\n"
    text = (f"vkir 1\ngraph @{name}(%q: f32[{b},{m},{d}], %k: f32[{b},{d},{n}], "
            f"%v: f32[{b},{n},{d}]) -> (%y: f32[{b},{m},{d}]) {{\n{lines}"
            f"  %y = attention %q, %k, %v{', %bias' if bias else ''} {{alpha={d ** -0.5:.9g}}}"
            f" : f32[{b},{m},{d}]\n  return %y\n}}\n")
    rows = int(np.prod(batch)) * m
    write(name, text, blob, inputs, 4 * rows * n * d, 4 * (4 * rows * d))


def fattn():
    # the attention op (pass_fuse_attention) at the transformers' shapes:
    # ViT-B/16 and ViT-L/16 (12 and 16 heads of 197 tokens, 64 wide), ViT-B/32
    # (50 tokens), Swin-T's first stage (64 windows x 3 heads of 49 tokens, 32
    # wide, its relative-position bias), and a long sequence (8 x 1024 x 64)
    attention("fa_vit_b16", (1, 12), 197, 197, 64)
    attention("fa_vit_l16", (1, 16), 197, 197, 64)
    attention("fa_vit_b32", (1, 12), 50, 50, 64)
    attention("fa_swin_t1", (64, 3), 49, 49, 32, bias=(3, 49, 49))
    attention("fa_long", (1, 8), 1024, 1024, 64)


def wgemm():
    # the batched GEMMs of Winograd F(2x2, 3x3) on VGG-16's 3x3 convs (batch
    # 1, 224x224): 16 products U^T [M, C] x V [C, T], T = the 2x2 tiles
    for cin, cout, hw in [(64, 64, 224), (64, 128, 112), (128, 128, 112), (128, 256, 56),
                          (256, 256, 56), (256, 512, 28), (512, 512, 28), (512, 512, 14)]:
        t = (hw // 2) ** 2
        bgemm(f"wg_{cin}_{cout}_{hw}", 16, cout, cin, t)


def kodd():
    # GEMMs whose k is not a multiple of 64: ViT-B/16's attention times v
    # (12 heads, 197 tokens: k = 197), a k of 1000 and of 96
    bgemm("kodd_vit_av_12x197x197x64", 12, 197, 197, 64)
    gemm("kodd_1024_1000_1024", 1024, 1000, 1024)
    gemm("kodd_3136_96_256", 3136, 96, 256)


def first():
    # the first convs of classifiers, on 3 input channels (k of 27-147):
    # VGG-16's 3x3 3->64 at 224, ResNet's 7x7/2 3->64, MobileNet's 3x3/2
    # 3->32; and VGG-16's 3x3 convs of 64- and 128-channel groups
    conv("f_3x3_3_64_224", 3, 64, 224, 3, 1)
    conv("f_7x7s2_3_64_224", 3, 64, 224, 7, 2)
    conv("f_3x3s2_3_32_224", 3, 32, 224, 3, 2)
    conv("f_3x3_64_64_224", 64, 64, 224, 3, 1)
    conv("f_3x3_128_128_112", 128, 128, 112, 3, 1)


def video():
    # the video classifiers' 3-D convs as frontend/onnx_conv3d.c lowers them
    # (depths as the batch, depth taps as channels), fp32: mc3_18's layer1
    # (3x3x3 64->64 at 16x56x56: 192 channels, batch 16) and its 2-D layers
    # (1x3x3 at 16 frames), r3d_18's layer3 / layer4 (3x3x3 at 4x14x14 and
    # 2x7x7)
    conv("v_mc3_l1_192_64_56_b16", 192, 64, 56, 3, 1, batch=16)
    conv("v_mc3_l2_128_28_b16", 128, 128, 28, 3, 1, batch=16)
    conv("v_mc3_l3_256_14_b16", 256, 256, 14, 3, 1, batch=16)
    conv("v_mc3_l4_512_7_b16", 512, 512, 7, 3, 1, batch=16)
    conv("v_r3d_l3_768_256_14_b4", 768, 256, 14, 3, 1, batch=4)
    conv("v_r3d_l4_1536_512_7_b2", 1536, 512, 7, 3, 1, batch=2)


{"video": video, "kernels": kernels, "retina": retina, "rungs": rungs, "winograd": winograd_set, "taps": taps, "vit": vit, "small": small, "small1x1": small1x1, "oddk": oddk, "wgemm": wgemm, "kodd": kodd, "first": first, "fp32gemm": fp32gemm, "attn": attn, "splitk": splitk, "fattn": fattn}[sys.argv[2] if len(sys.argv) > 2 else "kernels"]()
