#!/usr/bin/python3
"""Small ONNX models for the compiler's lit tests, built with onnx.helper (no torch, so lit stays
fast). Usage: make_model.py NAME OUT.onnx  (make_model.py --list prints the names).

Each model exercises one front-end behaviour; the bad_* ones are rejected by the importer.
Weights are seeded, so the printed IR is stable.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

RNG = np.random.default_rng(0)
MODELS = {}


def model(fn):
    MODELS[fn.__name__] = fn
    return fn


def f32(name, shape, lo=-1.0, hi=1.0):
    return nh.from_array(RNG.uniform(lo, hi, size=shape).astype(np.float32), name)


def i64(name, values):
    return nh.from_array(np.array(values, dtype=np.int64), name)


def scalar(name, value):
    return nh.from_array(np.array(value, dtype=np.float32), name)


def const_node(out, array):
    return h.make_node("Constant", [], [out], name=out + "_const", value=nh.from_array(np.asarray(array), out))


def vi(name, shape, elem=T.FLOAT):
    return h.make_tensor_value_info(name, elem, shape)


def build(nodes, inputs, outputs, inits=(), opset=14, value_info=()):
    g = h.make_graph(nodes, "lit", inputs, outputs, list(inits), value_info=list(value_info))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)], producer_name="systole-lit")
    m.ir_version = 7
    return m


# ---- passes --------------------------------------------------------------------------------------

@model
def identity():
    nodes = [h.make_node("Identity", ["x"], ["a"], name="id0"), h.make_node("Relu", ["a"], ["b"], name="relu"),
             h.make_node("Dropout", ["b"], ["c", "mask"], name="drop"), h.make_node("Identity", ["c"], ["y"], name="id1")]
    return build(nodes, [vi("x", [1, 8])], [vi("y", [1, 8])])


@model
def shape_chain():
    # y = x.reshape(x.size(1) // 2, -1), as torch exports it: ONNX's own shape inference gives up.
    nodes = [h.make_node("Shape", ["x"], ["s"], name="shape"),
             h.make_node("Gather", ["s", "i1"], ["d1"], name="gather", axis=0),
             h.make_node("Div", ["d1", "two"], ["half"], name="div"),
             h.make_node("Unsqueeze", ["half", "axes0"], ["hu"], name="unsqueeze"),
             h.make_node("Concat", ["hu", "minus1"], ["target"], name="concat", axis=0),
             h.make_node("Reshape", ["x", "target"], ["y"], name="reshape")]
    inits = [i64("i1", 1), i64("two", 2), i64("axes0", [0]), i64("minus1", [-1])]
    return build(nodes, [vi("x", [2, 6, 4])], [vi("y", [None, None])], inits)


@model
def shape_chain_bad():
    # The shape computation yields [6 // 4, 5] = [1, 5] for 48 elements: only visible once folded.
    nodes = [h.make_node("Shape", ["x"], ["s"], name="shape"),
             h.make_node("Gather", ["s", "i1"], ["d1"], name="gather", axis=0),
             h.make_node("Div", ["d1", "four"], ["q"], name="div"),
             h.make_node("Unsqueeze", ["q", "axes0"], ["qu"], name="unsqueeze"),
             h.make_node("Concat", ["qu", "five"], ["target"], name="concat", axis=0),
             h.make_node("Reshape", ["x", "target"], ["y"], name="reshape")]
    inits = [i64("i1", 1), i64("four", 4), i64("axes0", [0]), i64("five", [5])]
    return build(nodes, [vi("x", [2, 6, 4])], [vi("y", [None, None])], inits)


@model
def weight_math():
    # A weight computed from constants (Transpose, Mul) folds into one constant.
    nodes = [h.make_node("Transpose", ["w"], ["wt"], name="wt", perm=[1, 0]),
             h.make_node("Mul", ["wt", "k"], ["ws"], name="scale"),
             h.make_node("MatMul", ["x", "ws"], ["y"], name="mm")]
    return build(nodes, [vi("x", [2, 4])], [vi("y", [2, 3])], [f32("w", [3, 4]), scalar("k", 2.0)])


@model
def cse():
    nodes = [const_node("half_a", np.float32(0.5)), const_node("half_b", np.float32(0.5)),
             h.make_node("Mul", ["x", "half_a"], ["m1"], name="mul1"), h.make_node("Mul", ["x", "half_b"], ["m2"], name="mul2"),
             h.make_node("Sigmoid", ["m1"], ["s1"], name="sig1"), h.make_node("Sigmoid", ["m2"], ["s2"], name="sig2"),
             h.make_node("Add", ["s1", "s2"], ["y"], name="sum")]
    return build(nodes, [vi("x", [4])], [vi("y", [4])])


@model
def dce():
    nodes = [h.make_node("Exp", ["x"], ["unused"], name="exp_unused"),
             h.make_node("Sigmoid", ["unused"], ["unused2"], name="sig_unused"),
             h.make_node("Relu", ["x"], ["y"], name="relu")]
    return build(nodes, [vi("x", [4])], [vi("y", [4])])


def bn_nodes(x, out, c, prefix):
    inits = [f32(prefix + "_gamma", [c], 0.5, 1.5), f32(prefix + "_beta", [c]), f32(prefix + "_mean", [c]),
             f32(prefix + "_var", [c], 0.5, 2.0)]
    node = h.make_node("BatchNormalization", [x] + [i.name for i in inits], [out], name=prefix, epsilon=1e-3)
    return node, inits


@model
def bn_conv():
    bn, inits = bn_nodes("c", "y", 4, "bn")
    nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]), bn]
    return build(nodes, [vi("x", [1, 3, 8, 8])], [vi("y", [1, 4, 8, 8])], [f32("w", [4, 3, 3, 3])] + inits)


@model
def bn_gemm():
    bn, inits = bn_nodes("g", "y", 6, "bn")
    nodes = [h.make_node("Gemm", ["x", "w", "b"], ["g"], name="fc", transB=1), bn]
    return build(nodes, [vi("x", [2, 5])], [vi("y", [2, 6])], [f32("w", [6, 5]), f32("b", [6])] + inits)


@model
def fuse_conv():
    nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             h.make_node("Add", ["bias", "c"], ["a"], name="bias_add"),
             h.make_node("Relu", ["a"], ["y"], name="relu")]
    return build(nodes, [vi("x", [1, 3, 8, 8])], [vi("y", [1, 4, 8, 8])], [f32("w", [4, 3, 3, 3]), f32("bias", [4, 1, 1])])


@model
def fuse_gemm_clip():
    # ReLU6 as torch exports it: Clip with min and max from Constant nodes.
    nodes = [h.make_node("Gemm", ["x", "w"], ["g"], name="fc", transB=1),
             h.make_node("Add", ["g", "bias"], ["a"], name="bias_add"),
             const_node("lo", np.float32(0.0)), const_node("hi", np.float32(6.0)),
             h.make_node("Clip", ["a", "lo", "hi"], ["y"], name="relu6")]
    return build(nodes, [vi("x", [2, 5])], [vi("y", [2, 3])], [f32("w", [3, 5]), f32("bias", [1, 3])])


@model
def fuse_matmul():
    nodes = [h.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
             h.make_node("Add", ["m", "bias"], ["a"], name="bias_add"),
             h.make_node("Relu", ["a"], ["y"], name="relu")]
    return build(nodes, [vi("x", [1, 16, 8])], [vi("y", [1, 16, 4])], [f32("w", [8, 4]), f32("bias", [4])])


@model
def fuse_add_relu():
    nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="conv"),
             h.make_node("Add", ["x", "c"], ["a"], name="residual"),
             h.make_node("Relu", ["a"], ["y"], name="relu")]
    return build(nodes, [vi("x", [1, 4, 5, 5])], [vi("y", [1, 4, 5, 5])], [f32("w", [4, 4, 1, 1])])


@model
def fuse_blocked():
    # The Conv's output has a second reader: nothing fuses into it.
    nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="conv"),
             h.make_node("Relu", ["c"], ["r"], name="relu"),
             h.make_node("Add", ["r", "c"], ["y"], name="sum")]
    return build(nodes, [vi("x", [1, 2, 3, 3])], [vi("y", [1, 2, 3, 3])], [f32("w", [2, 2, 1, 1])])


@model
def clip_opset9():
    nodes = [h.make_node("Conv", ["x", "w", "b"], ["c"], name="conv"),
             h.make_node("Clip", ["c"], ["y"], name="clip", min=-1.0, max=1.0)]
    return build(nodes, [vi("x", [1, 2, 3, 3])], [vi("y", [1, 2, 3, 3])], [f32("w", [2, 2, 1, 1]), f32("b", [2])], opset=9)


@model
def layernorm():
    nodes = [h.make_node("ReduceMean", ["x"], ["mean"], name="ln/ReduceMean", axes=[-1]),
             h.make_node("Sub", ["x", "mean"], ["d"], name="ln/Sub"),
             const_node("two", np.float32(2.0)),
             h.make_node("Pow", ["d", "two"], ["sq"], name="ln/Pow"),
             h.make_node("ReduceMean", ["sq"], ["var"], name="ln/ReduceMean_1", axes=[-1]),
             const_node("eps", np.float32(1e-5)),
             h.make_node("Add", ["var", "eps"], ["ve"], name="ln/Add"),
             h.make_node("Sqrt", ["ve"], ["sd"], name="ln/Sqrt"),
             h.make_node("Div", ["d", "sd"], ["n"], name="ln/Div"),
             h.make_node("Mul", ["n", "gamma"], ["s"], name="ln/Mul"),
             h.make_node("Add", ["s", "beta"], ["y"], name="ln/Add_1")]
    return build(nodes, [vi("x", [1, 16, 32])], [vi("y", [1, 16, 32])], [f32("gamma", [32]), f32("beta", [32])])


@model
def gelu():
    nodes = [const_node("sqrt2", np.float32(1.4142135)), const_node("one", np.float32(1.0)), const_node("half", np.float32(0.5)),
             h.make_node("Div", ["x", "sqrt2"], ["t"], name="act/Div"),
             h.make_node("Erf", ["t"], ["e"], name="act/Erf"),
             h.make_node("Add", ["e", "one"], ["a"], name="act/Add"),
             h.make_node("Mul", ["x", "a"], ["m"], name="act/Mul"),
             h.make_node("Mul", ["m", "half"], ["y"], name="act/Mul_1")]
    return build(nodes, [vi("x", [1, 16, 32])], [vi("y", [1, 16, 32])])


# Hard-swish and hard-sigmoid spelled out as PaddlePaddle's paddle2onnx writes them (opset 11 Clip
# with constant inputs): a conv, x * relu6(x + 3) / 6, then relu6(x + 3) * (1/6) of that, and one
# x * (relu6(x + 3) / 6) grouping; the conv makes x a quantized int8 tensor.
@model
def hard_activations():
    nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             h.make_node("Add", ["c", "three"], ["a1"], name="hs/Add"),
             h.make_node("Clip", ["a1", "zero", "six"], ["r1"], name="hs/Clip"),
             h.make_node("Mul", ["c", "r1"], ["m1"], name="hs/Mul"),
             h.make_node("Div", ["m1", "six"], ["hs"], name="hs/Div"),
             h.make_node("Add", ["three", "hs"], ["a2"], name="hsig/Add"),
             h.make_node("Clip", ["a2", "zero", "six"], ["r2"], name="hsig/Clip"),
             h.make_node("Mul", ["r2", "sixth"], ["hsig"], name="hsig/Mul"),
             h.make_node("Add", ["hsig", "three"], ["a3"], name="hs2/Add"),
             h.make_node("Clip", ["a3", "zero", "six"], ["r3"], name="hs2/Clip"),
             h.make_node("Div", ["r3", "six"], ["d3"], name="hs2/Div"),
             h.make_node("Mul", ["hsig", "d3"], ["y"], name="hs2/Mul")]
    return build(nodes, [vi("x", [1, 4, 8, 8])], [vi("y", [1, 8, 8, 8])],
                 [f32("w", [8, 4, 3, 3]), scalar("three", 3.0), scalar("zero", 0.0), scalar("six", 6.0),
                  scalar("sixth", 1.0 / 6.0)], opset=11)


# Arithmetic with a one-element constant after a conv, as exported affine layers write it:
# c + 0.5, then times -2 (a negative factor is no rescale), then 1 - that (the constant first).
@model
def scalar_arithmetic():
    nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             h.make_node("Add", ["c", "half"], ["a"], name="add_half"),
             h.make_node("Mul", ["a", "minus_two"], ["m"], name="mul_minus_two"),
             h.make_node("Sub", ["one", "m"], ["y"], name="one_minus")]
    return build(nodes, [vi("x", [1, 4, 8, 8])], [vi("y", [1, 8, 8, 8])],
                 [f32("w", [8, 4, 3, 3]), scalar("half", 0.5), scalar("minus_two", -2.0), scalar("one", 1.0)])


# An affine layer spelled out after a Conv, as PaddlePaddle's MobileOne blocks export it: a scalar
# scale and a scalar shift, then a per-channel [1, C, 1, 1] scale and a Gemm scaled per column.
@model
def conv_affine():
    nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             h.make_node("Mul", ["s0", "c"], ["m0"], name="scale0"),
             h.make_node("Add", ["m0", "b0"], ["a0"], name="shift0"),
             h.make_node("Conv", ["a0", "w1"], ["c1"], name="conv1"),
             h.make_node("Mul", ["c1", "s1"], ["m1"], name="scale1"),
             h.make_node("Flatten", ["m1"], ["f"], name="flat"),
             h.make_node("Gemm", ["f", "wg"], ["g"], name="fc"),
             h.make_node("Mul", ["g", "sg"], ["y"], name="scale_fc")]
    return build(nodes, [vi("x", [1, 4, 6, 6])], [vi("y", [1, 5])],
                 [f32("w", [8, 4, 3, 3]), scalar("s0", 0.7), scalar("b0", 0.25), f32("w1", [6, 8, 1, 1]),
                  f32("s1", [1, 6, 1, 1], -2.0, 2.0), f32("wg", [216, 5]), f32("sg", [5])])


# ---- import --------------------------------------------------------------------------------------

@model
def constant_weights():
    # Weights in a Constant node (not an initializer), typed (not raw) data, a symbolic batch.
    w = h.make_tensor("w", T.FLOAT, [3, 2], [1, 2, 3, 4, 5, 6])
    nodes = [h.make_node("Constant", [], ["w"], name="weights", value=w), h.make_node("MatMul", ["x", "w"], ["y"], name="mm")]
    return build(nodes, [vi("x", ["batch", 3])], [vi("y", ["batch", 2])])


@model
def nhwc():
    # An NHWC model keeps its shapes: the Transpose to NCHW stays a Transpose.
    nodes = [h.make_node("Transpose", ["x"], ["t"], name="to_nchw", perm=[0, 3, 1, 2]),
             h.make_node("Conv", ["t", "w"], ["y"], name="conv")]
    return build(nodes, [vi("x", [1, 8, 8, 3])], [vi("y", [1, 4, 8, 8])], [f32("w", [4, 3, 1, 1])])


@model
def opset17_layernorm():
    nodes = [h.make_node("LayerNormalization", ["x", "g", "b"], ["y"], name="ln", axis=-1, epsilon=1e-5)]
    return build(nodes, [vi("x", [2, 8])], [vi("y", [2, 8])], [f32("g", [8]), f32("b", [8])], opset=17)


# ---- rejected --------------------------------------------------------------------------------------

# Back-end plans: one small convolution whose input needs a halo (padding 1), so the plan has a
# Pad layer, a haloed buffer, a conv layer and the scale, bias and weight constants.
@model
def plan_conv():
    conv = h.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1])
    relu = h.make_node("Relu", ["c"], ["y"], name="relu")
    return build([conv, relu], [vi("x", [1, 2, 4, 4])], [vi("y", [1, 4, 4, 4])], [f32("w", [4, 2, 3, 3]), f32("b", [4])])


# The same convolution on a batch of 2: the NPU has a lowering, but batch 1 only.
@model
def plan_conv_batch2():
    conv = h.make_node("Conv", ["x", "w", "b"], ["y"], name="conv", pads=[1, 1, 1, 1])
    return build([conv], [vi("x", [2, 2, 4, 4])], [vi("y", [2, 4, 4, 4])], [f32("w", [4, 2, 3, 3]), f32("b", [4])])


# A convolution over an input whose batch, height and width are symbolic (bound with --shape).
@model
def dynamic_hw():
    conv = h.make_node("Conv", ["x", "w"], ["y"], name="conv", pads=[1, 1, 1, 1])
    return build([conv], [vi("x", ["batch", 2, "h", "w"])], [vi("y", ["batch", 4, "h", "w"])], [f32("w", [4, 2, 3, 3])])


# Modern blocks: SiLU (x * sigmoid(x)), hard-swish, and a squeeze-and-excitation gate
# (global pool -> 1x1 convs -> hard-sigmoid -> per-channel Mul).
@model
def modern_blocks():
    nodes = [h.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
             h.make_node("Sigmoid", ["c1"], ["s1"], name="sigmoid"),
             h.make_node("Mul", ["c1", "s1"], ["silu"], name="silu"),
             h.make_node("HardSwish", ["silu"], ["hs"], name="hardswish"),
             h.make_node("GlobalAveragePool", ["hs"], ["gap"], name="gap"),
             h.make_node("Conv", ["gap", "w2"], ["r"], name="squeeze"),
             h.make_node("Relu", ["r"], ["rr"], name="relu"),
             h.make_node("Conv", ["rr", "w3"], ["e"], name="excite"),
             h.make_node("HardSigmoid", ["e"], ["gate"], name="hardsigmoid", alpha=1.0 / 6, beta=0.5),
             h.make_node("Mul", ["gate", "hs"], ["y"], name="scale")]
    return build(nodes, [vi("x", [1, 3, 8, 8])], [vi("y", [1, 8, 8, 8])],
                 [f32("w1", [8, 3, 3, 3]), f32("w2", [4, 8, 1, 1]), f32("w3", [8, 4, 1, 1])])


# A Reshape of an NCHW tensor into [1, H*W, C] rows (not a transpose: the elements move), then a
# matrix product: the NHWC bytes are not those rows, so the Reshape must not alias its input.
@model
def reshape_nchw_rows():
    nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="conv"),
             h.make_node("Reshape", ["c", "shape"], ["r"], name="reshape"),
             h.make_node("MatMul", ["r", "m"], ["y"], name="matmul")]
    return build(nodes, [vi("x", [1, 4, 3, 3])], [vi("y", [1, 9, 5])],
                 [f32("w", [4, 4, 1, 1]), i64("shape", [1, 9, 4]), f32("m", [4, 5])])


# A MatMul of a 4-D activation ([1, 2, 6, 9] x [9, 5]: a filter bank over the last axis, as
# openWakeWord's melspectrogram applies its mel matrix): it reduces W, not the channels.
@model
def matmul_4d():
    nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="conv"),
             h.make_node("Relu", ["c"], ["r"], name="relu"),
             h.make_node("MatMul", ["r", "m"], ["y"], name="filterbank")]
    return build(nodes, [vi("x", [1, 3, 6, 9])], [vi("y", [1, 2, 6, 5])], [f32("w", [2, 3, 1, 1]), f32("m", [9, 5])])


# U-Net's decoder join with its ranges far apart: a branch 40x larger than the skip connection it
# is concatenated with, then a convolution that mostly reads the skip (as U2-Netp's decoders).
@model
def mixed_range_concat():
    wa = RNG.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32) * 40
    w1 = RNG.uniform(-1, 1, (6, 8, 3, 3)).astype(np.float32)
    w1[:, :4] *= 0.01
    nodes = [h.make_node("Conv", ["x", "wa"], ["a0"], name="branch", pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["a0"], ["a"], name="relu_a"),
             h.make_node("Conv", ["x", "wb"], ["b0"], name="skip", pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["b0"], ["b"], name="relu_b"),
             h.make_node("Concat", ["a", "b"], ["c"], name="join", axis=1),
             h.make_node("Conv", ["c", "w1", "b1"], ["y0"], name="decoder", pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["y0"], ["y"], name="relu_y")]
    inits = [nh.from_array(wa, "wa"), f32("wb", [4, 3, 3, 3]), nh.from_array(w1, "w1"), f32("b1", [6])]
    return build(nodes, [vi("x", [1, 3, 8, 8])], [vi("y", [1, 6, 8, 8])], inits)


# A Concat of a convolution's output with a constant tensor.
@model
def concat_constant():
    nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="conv"),
             h.make_node("Concat", ["c", "k"], ["cat"], name="concat", axis=1),
             h.make_node("Conv", ["cat", "w2"], ["y"], name="conv2")]
    return build(nodes, [vi("x", [1, 4, 3, 3])], [vi("y", [1, 4, 3, 3])],
                 [f32("w", [4, 4, 1, 1]), f32("k", [1, 2, 3, 3]), f32("w2", [4, 6, 1, 1])])


# ShuffleNet's unit: a channel shuffle (Reshape to [N, g, C/g, H, W], Transpose [0, 2, 1, 3, 4],
# Reshape back) between two Concats, and the channel split (two Slices) after it. H != W.
@model
def channel_shuffle():
    nodes = [h.make_node("Conv", ["x", "w1"], ["a"], name="conv_a"),
             h.make_node("Conv", ["x", "w2"], ["b"], name="conv_b", pads=[1, 1, 1, 1]),
             h.make_node("Concat", ["a", "b"], ["cat"], name="concat", axis=1),
             h.make_node("Reshape", ["cat", "split_shape"], ["r5"], name="reshape5"),
             h.make_node("Transpose", ["r5"], ["t5"], name="transpose", perm=[0, 2, 1, 3, 4]),
             h.make_node("Reshape", ["t5", "flat_shape"], ["shuffled"], name="shuffle"),
             h.make_node("Slice", ["shuffled", "s0", "e0", "axes"], ["left"], name="slice_left"),
             h.make_node("Slice", ["shuffled", "s1", "e1", "axes"], ["right"], name="slice_right"),
             h.make_node("Conv", ["right", "w3"], ["r"], name="conv_right"),
             h.make_node("Relu", ["r"], ["rr"], name="relu"),
             h.make_node("Concat", ["left", "rr"], ["y"], name="concat_out", axis=1)]
    return build(nodes, [vi("x", [1, 3, 5, 7])], [vi("y", [1, 10, 5, 7])],
                 [f32("w1", [6, 3, 1, 1]), f32("w2", [6, 3, 3, 3]), f32("w3", [4, 6, 1, 1]),
                  i64("split_shape", [1, 2, 6, 5, 7]), i64("flat_shape", [1, 12, 5, 7]),
                  i64("s0", [0]), i64("e0", [6]), i64("s1", [6]), i64("e1", [12]), i64("axes", [1])])


# Pads torch writes before pools and convolutions: an all-zero Pad before an AveragePool, and a
# zero-fill spatial Pad (asymmetric) before a Conv with pads of its own.
@model
def pads_to_fold():
    nodes = [h.make_node("Conv", ["x", "w1"], ["c"], name="conv1"),
             h.make_node("Pad", ["c", "zero"], ["p0"], name="pad_zero", mode="constant"),
             h.make_node("AveragePool", ["p0"], ["pool"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
             h.make_node("Pad", ["pool", "spatial"], ["p1"], name="pad_spatial", mode="constant"),
             h.make_node("Conv", ["p1", "w2"], ["y"], name="conv2", pads=[1, 1, 1, 1])]
    return build(nodes, [vi("x", [1, 3, 8, 6])], [vi("y", [1, 4, 5, 4])],
                 [f32("w1", [4, 3, 1, 1]), f32("w2", [4, 4, 3, 3]), i64("zero", [0] * 8),
                  i64("spatial", [0, 0, 1, 0, 0, 0, 0, 1])])


# torch's dynamic-shape idiom on static shapes: ConstantOfShape -> Equal -> Where picks the
# Reshape's target; Not/And/Less too. Everything folds before quantization.
@model
def logic_folding():
    nodes = [h.make_node("ConstantOfShape", ["two"], ["ones"], name="ones",
                         value=nh.from_array(np.array([1], dtype=np.int64), "value")),
             h.make_node("Equal", ["target", "minus_one"], ["is_auto"], name="equal"),
             h.make_node("Less", ["target", "ones"], ["neg"], name="less"),
             h.make_node("Not", ["neg"], ["not_neg"], name="not"),
             h.make_node("And", ["is_auto", "not_neg"], ["never"], name="and"),
             h.make_node("Where", ["never", "ones", "target"], ["shape"], name="where"),
             h.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
             h.make_node("Gemm", ["r", "w"], ["y"], name="fc")]
    return build(nodes, [vi("x", [1, 2, 4])], [vi("y", [1, 3])],
                 [i64("two", [2]), i64("target", [1, -1]), i64("minus_one", [-1]), f32("w", [8, 3])])


# A classifier head on a batch of 3: logits [3, 5], one row per image.
@model
def logits_batch3():
    nodes = [h.make_node("Gemm", ["x", "w", "b"], ["y"], name="fc")]
    return build(nodes, [vi("x", [3, 8])], [vi("y", [3, 5])], [f32("w", [8, 5]), f32("b", [5])])


# A one-value output (a regression head, a score): cosine says nothing about one element.
@model
def scalar_output():
    nodes = [h.make_node("Gemm", ["x", "w", "b"], ["y"], name="fc")]
    return build(nodes, [vi("x", [1, 8])], [vi("y", [1, 1])], [f32("w", [8, 1]), f32("b", [1])])


# auto_pad (as TensorFlow and Keras exports write it) on an H != W input: kernel 3 stride 1 (total
# pad 2 on each axis), kernel 4 stride 1 (3: odd), kernel 3 stride 2 (H 7 -> 2, W 10 -> 1).
def conv_auto_pad(mode):
    nodes = [h.make_node("Conv", ["x", "w1"], ["c1"], name="conv_k3", auto_pad=mode),
             h.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             h.make_node("Conv", ["r1", "w2"], ["c2"], name="conv_k4", auto_pad=mode),
             h.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             h.make_node("Conv", ["r2", "w3"], ["y"], name="conv_k3_s2", auto_pad=mode, strides=[2, 2])]
    return build(nodes, [vi("x", [1, 3, 7, 10])], [vi("y", [1, 5, 4, 5])],
                 [f32("w1", [8, 3, 3, 3]), f32("w2", [6, 8, 4, 4]), f32("w3", [5, 6, 3, 3])])


MODELS["conv_same_upper"] = lambda: conv_auto_pad("SAME_UPPER")
MODELS["conv_same_lower"] = lambda: conv_auto_pad("SAME_LOWER")


# Stride-2 convolutions as in a ResNet: a 7 x 7 stem over 3 channels (kw packed into channels),
# a 3 x 3 with padding 1 and a 1 x 1 without padding (a downsampling shortcut); 32 -> 16 -> 8 -> 4.
@model
def conv_stride2():
    nodes = [h.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="stem", pads=[3, 3, 3, 3], strides=[2, 2]),
             h.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             h.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv3x3_s2", pads=[1, 1, 1, 1], strides=[2, 2]),
             h.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             h.make_node("Conv", ["r2", "w3"], ["y"], name="conv1x1_s2", strides=[2, 2])]
    return build(nodes, [vi("x", [1, 3, 32, 32])], [vi("y", [1, 24, 4, 4])],
                 [f32("w1", [16, 3, 7, 7]), f32("b1", [16]), f32("w2", [20, 16, 3, 3]), f32("b2", [20]), f32("w3", [24, 20, 1, 1])])


# Deep layers over a small image, as at the end of a ResNet: a 3 x 3 conv 40 -> 72 channels over
# 4 x 4 pixels, then a 1 x 1 conv 72 -> 144 and a grouped 1 x 1 conv (group 2) 144 -> 48.
@model
def oc_blocks():
    nodes = [h.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv3x3", pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             h.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv1x1"),
             h.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             h.make_node("Conv", ["r2", "w3"], ["y"], name="grouped", group=2)]
    return build(nodes, [vi("x", [1, 40, 4, 4])], [vi("y", [1, 48, 4, 4])],
                 [f32("w1", [72, 40, 3, 3]), f32("b1", [72]), f32("w2", [144, 72, 1, 1]), f32("b2", [144]), f32("w3", [48, 72, 1, 1])])


# Depthwise convolutions as in MobileNet and EfficientNet, 40 channels (three channel tiles of 16):
# 3 x 3 stride 1, 3 x 3 stride 2, 5 x 5 (two passes of the depthwise mode on a 16-row array) and
# 3 x 3 dilated by 2 in rows and columns (the mode takes no column dilation: weight tiles).
@model
def depthwise():
    nodes = [h.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="dw3x3", group=40, pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             h.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="dw3x3_s2", group=40, pads=[1, 1, 1, 1], strides=[2, 2]),
             h.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             h.make_node("Conv", ["r2", "w3", "b3"], ["c3"], name="dw5x5", group=40, pads=[2, 2, 2, 2]),
             h.make_node("Relu", ["c3"], ["r3"], name="relu3"),
             h.make_node("Conv", ["r3", "w4"], ["y"], name="dw3x3_d2", group=40, pads=[2, 2, 2, 2], dilations=[2, 2])]
    return build(nodes, [vi("x", [1, 40, 20, 24])], [vi("y", [1, 40, 10, 12])],
                 [f32("w1", [40, 1, 3, 3]), f32("b1", [40]), f32("w2", [40, 1, 3, 3]), f32("b2", [40]),
                  f32("w3", [40, 1, 5, 5]), f32("b3", [40]), f32("w4", [40, 1, 3, 3])])


# A MobileNet block as torch exports it: a 1x1 expansion with ReLU6 (Clip from Constant nodes),
# a 3x3 depthwise with ReLU6 and a linear 1x1 projection; the expansion's channels 0..3 are 100x
# smaller, as folding a BatchNorm can leave them.
@model
def mobilenet_block():
    w1 = RNG.uniform(-1, 1, size=[16, 4, 1, 1]).astype(np.float32)
    w1[:4] *= 0.01
    nodes = [h.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="expand"),
             const_node("lo", np.float32(0.0)), const_node("hi", np.float32(6.0)),
             h.make_node("Clip", ["c1", "lo", "hi"], ["r1"], name="relu6_1"),
             h.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="dw", group=16, pads=[1, 1, 1, 1]),
             h.make_node("Clip", ["c2", "lo", "hi"], ["r2"], name="relu6_2"),
             h.make_node("Conv", ["r2", "w3", "b3"], ["y"], name="project")]
    return build(nodes, [vi("x", [1, 4, 8, 8])], [vi("y", [1, 8, 8, 8])],
                 [nh.from_array(w1, "w1"), f32("b1", [16], 0, 0.1), f32("w2", [16, 1, 3, 3]), f32("b2", [16], 0, 0.1),
                  f32("w3", [8, 16, 1, 1]), f32("b3", [8])])


# Pooling with auto_pad SAME_UPPER after a convolution (so the pools run on the NPU): max pooling
# 3x3 stride 2 (H 7: total 2, W 10: total 1) and average pooling 2x2 stride 1 (total 1, at the end;
# count_include_pad, as the NPU's average pooling divides by the kernel size).
@model
def pool_same_upper():
    nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             h.make_node("MaxPool", ["c"], ["m"], name="maxpool", auto_pad="SAME_UPPER", kernel_shape=[3, 3], strides=[2, 2]),
             h.make_node("AveragePool", ["m"], ["y"], name="avgpool", auto_pad="SAME_UPPER", kernel_shape=[2, 2],
                         count_include_pad=1)]
    return build(nodes, [vi("x", [1, 3, 7, 10])], [vi("y", [1, 8, 4, 5])], [f32("w", [8, 3, 3, 3])])


# DenseNet's pre-activation: Concat -> BatchNormalization -> Relu -> Conv (nothing to fold the BN
# into), then a spatial ReduceMean (as x.mean([2, 3]) exports) and a classifier.
@model
def preact_reducemean():
    nodes = [h.make_node("Conv", ["x", "w0"], ["x0"], name="conv0", pads=[1, 1, 1, 1]),
             h.make_node("Conv", ["x0", "w1"], ["a"], name="conv1", pads=[1, 1, 1, 1]),
             h.make_node("Concat", ["x0", "a"], ["cat"], name="concat", axis=1),
             h.make_node("BatchNormalization", ["cat", "g", "b", "m", "v"], ["bn"], name="bn"),
             h.make_node("Relu", ["bn"], ["r"], name="relu"),
             h.make_node("Conv", ["r", "w2"], ["c"], name="conv2"),
             h.make_node("ReduceMean", ["c"], ["pooled"], name="mean", axes=[2, 3], keepdims=0),
             h.make_node("Gemm", ["pooled", "fc"], ["y"], name="fc")]
    inits = [f32("w0", [4, 4, 3, 3]), f32("w1", [4, 4, 3, 3]), f32("g", [8], 0.5, 1.5), f32("b", [8]), f32("m", [8]), f32("v", [8], 0.5, 1.5),
             f32("w2", [6, 8, 1, 1]), f32("fc", [6, 3])]
    return build(nodes, [vi("x", [1, 4, 6, 6])], [vi("y", [1, 3])], inits)


# A convolution, then a ConvTranspose (U-Net's k=2 s=2, or DCGAN's k=4 s=2 p=1; or k=3 s=2 p=1,
# whose odd output is a crop) and a Relu, on an H != W input.
def conv_transpose(k, pads, out_hw):
    nodes = [h.make_node("Conv", ["x", "w0"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             h.make_node("ConvTranspose", ["c", "wt", "bt"], ["t"], name="up", strides=[2, 2], pads=pads),
             h.make_node("Relu", ["t"], ["y"], name="relu")]
    return build(nodes, [vi("x", [1, 3, 5, 6])], [vi("y", [1, 5] + out_hw)],
                 [f32("w0", [4, 3, 3, 3]), f32("wt", [4, 5, k, k]), f32("bt", [5])])


# A ConvTranspose whose bias comes after it as an Add of a [1, C, 1, 1] constant (paddle2onnx's
# form, PaddleOCR's detector head).
@model
def convtranspose_bias_add():
    nodes = [h.make_node("Conv", ["x", "w0"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             h.make_node("ConvTranspose", ["c", "wt"], ["t"], name="up", strides=[2, 2]),
             h.make_node("Add", ["t", "bt"], ["tb"], name="bias"),
             h.make_node("Relu", ["tb"], ["y"], name="relu")]
    return build(nodes, [vi("x", [1, 3, 5, 6])], [vi("y", [1, 5, 10, 12])],
                 [f32("w0", [4, 3, 3, 3]), f32("wt", [4, 5, 2, 2]), f32("bt", [1, 5, 1, 1])])


MODELS["convtranspose_k2s2"] = lambda: conv_transpose(2, [0, 0, 0, 0], [10, 12])
MODELS["convtranspose_k4s2p1"] = lambda: conv_transpose(4, [1, 1, 1, 1], [10, 12])
MODELS["convtranspose_k3s2_crop"] = lambda: conv_transpose(3, [1, 1, 1, 1], [9, 11])


# DepthToSpace in CRD order (a phase's channels are blocksize^2 apart) between two convolutions.
@model
def depth_to_space_crd():
    nodes = [h.make_node("Conv", ["x", "w0"], ["c"], name="conv0", pads=[1, 1, 1, 1]),
             h.make_node("DepthToSpace", ["c"], ["d"], name="d2s", blocksize=2, mode="CRD"),
             h.make_node("Conv", ["d", "w1"], ["y"], name="conv1", pads=[1, 1, 1, 1])]
    return build(nodes, [vi("x", [1, 3, 4, 5])], [vi("y", [1, 4, 8, 10])], [f32("w0", [12, 3, 3, 3]), f32("w1", [4, 3, 3, 3])])


# Resize between two convolutions: nearest by 2 x 3 (asymmetric/floor, as torch exports it), or
# bilinear by 2 with half_pixel or align_corners.
def resize(mode, ctm, scales, out_hw):
    nodes = [h.make_node("Conv", ["x", "w0"], ["c"], name="conv0", pads=[1, 1, 1, 1]),
             h.make_node("Resize", ["c", "", "scales"], ["r"], name="resize", mode=mode, coordinate_transformation_mode=ctm,
                         nearest_mode="floor"),
             h.make_node("Conv", ["r", "w1"], ["y"], name="conv1", pads=[1, 1, 1, 1])]
    return build(nodes, [vi("x", [1, 3, 4, 5])], [vi("y", [1, 4] + out_hw)],
                 [f32("w0", [6, 3, 3, 3]), nh.from_array(np.array(scales, dtype=np.float32), "scales"), f32("w1", [4, 6, 3, 3])])


MODELS["resize_nearest"] = lambda: resize("nearest", "asymmetric", [1, 1, 2, 3], [8, 15])
MODELS["resize_linear_half_pixel"] = lambda: resize("linear", "half_pixel", [1, 1, 2, 2], [8, 10])
MODELS["resize_linear_align_corners"] = lambda: resize("linear", "align_corners", [1, 1, 2, 2], [8, 10])


# A spatial Pad (edge or reflect, asymmetric) between two convolutions, on an H != W tensor.
def pad_spatial(mode):
    pads = [0, 0, 1, 2, 0, 0, 2, 1]
    nodes = [h.make_node("Conv", ["x", "w0"], ["c"], name="conv0", pads=[1, 1, 1, 1]),
             h.make_node("Pad", ["c", "pads"], ["p"], name="pad", mode=mode),
             h.make_node("Conv", ["p", "w1"], ["y"], name="conv1")]
    return build(nodes, [vi("x", [1, 3, 5, 7])], [vi("y", [1, 4, 6, 8])],
                 [f32("w0", [6, 3, 3, 3]), i64("pads", pads), f32("w1", [4, 6, 3, 3])])


MODELS["pad_edge"] = lambda: pad_spatial("edge")
MODELS["pad_reflect"] = lambda: pad_spatial("reflect")


# A Slice of channels [2, 7), rows [1, 6) and every second column from 1, between two convolutions.
@model
def slice_spatial():
    nodes = [h.make_node("Conv", ["x", "w0"], ["c"], name="conv0", pads=[1, 1, 1, 1]),
             h.make_node("Slice", ["c", "starts", "ends", "axes", "steps"], ["s"], name="crop"),
             h.make_node("Conv", ["s", "w1"], ["y"], name="conv1", pads=[1, 1, 1, 1])]
    inits = [f32("w0", [8, 3, 3, 3]), i64("starts", [2, 1, 1]), i64("ends", [7, 6, 100]), i64("axes", [1, 2, 3]), i64("steps", [1, 1, 2]),
             f32("w1", [4, 5, 3, 3])]
    return build(nodes, [vi("x", [1, 3, 7, 9])], [vi("y", [1, 4, 5, 4])], inits)


# A Split of a convolution's channels into 3 + 5 and of the 5 into rows 2 + 3 (opset 13: sizes as
# an input), each part convolved, the results concatenated.
@model
def split_parts():
    nodes = [h.make_node("Conv", ["x", "w0"], ["c"], name="conv0", pads=[1, 1, 1, 1]),
             h.make_node("Split", ["c", "ch"], ["a", "b"], name="split_c", axis=1),
             h.make_node("Split", ["b", "rows"], ["b0", "b1"], name="split_h", axis=2),
             h.make_node("Conv", ["a", "wa"], ["ya"], name="conv_a", pads=[1, 1, 1, 1]),
             h.make_node("Conv", ["b1", "wb"], ["yb"], name="conv_b", pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["b0"], ["y0"], name="relu")]
    inits = [f32("w0", [8, 3, 3, 3]), i64("ch", [3, 5]), i64("rows", [2, 3]), f32("wa", [4, 3, 3, 3]), f32("wb", [4, 5, 3, 3])]
    return build(nodes, [vi("x", [1, 3, 5, 6])], [vi("ya", [1, 4, 5, 6]), vi("yb", [1, 4, 3, 6]), vi("y0", [1, 5, 2, 6])], inits,
                 opset=13)


# Products with and quotients by positive constant scalars (x / 6 as in a decomposed hard-swish,
# 0.125 * x as attention's 1/sqrt(d), x * 3), between convolutions; and a negative factor, which
# stays on the host.
@model
def scale_constants():
    # (a Relu after each Conv, so that fold-batchnorm does not fold the factors into the Conv)
    nodes = [h.make_node("Conv", ["x", "w0"], ["c0"], name="conv0", pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["c0"], ["c"], name="relu0"),
             h.make_node("Div", ["c", "six"], ["d"], name="div6"),
             h.make_node("Mul", ["eighth", "d"], ["e"], name="mul_eighth"),
             h.make_node("Conv", ["e", "w1"], ["f0"], name="conv1"),
             h.make_node("Relu", ["f0"], ["f"], name="relu1"),
             h.make_node("Mul", ["f", "three"], ["g"], name="mul3"),
             h.make_node("Mul", ["g", "minus"], ["y"], name="mul_neg")]
    inits = [f32("w0", [6, 3, 3, 3]), scalar("six", 6.0), scalar("eighth", 0.125), f32("w1", [4, 6, 1, 1]), scalar("three", 3.0),
             scalar("minus", -0.5)]
    return build(nodes, [vi("x", [1, 3, 5, 6])], [vi("y", [1, 4, 5, 6])], inits)


# An SSD-style detection head (UltraFace, RetinaFace): per scale, box and score convolutions whose
# maps are laid out as rows per anchor (Transpose to NHWC, Reshape to [1, -1, K]), the scales
# concatenated along the rows, the scores through a Softmax.
@model
def ssd_head():
    nodes = [h.make_node("Conv", ["x", "w0"], ["c0"], name="conv0", pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["c0"], ["f0"], name="relu0"),
             h.make_node("Conv", ["f0", "wd"], ["c1"], name="down", pads=[1, 1, 1, 1], strides=[2, 2]),
             h.make_node("Relu", ["c1"], ["f1"], name="relu1")]
    inits = [f32("w0", [8, 3, 3, 3]), f32("wd", [8, 8, 3, 3]), i64("rows4", [1, -1, 4]), i64("rows2", [0, -1, 2])]
    for kind, k in (("loc", 4), ("score", 2)):
        for scale in (0, 1):
            name = f"{kind}{scale}"
            nodes += [h.make_node("Conv", [f"f{scale}", "w" + name], ["m" + name], name="conv_" + name, pads=[1, 1, 1, 1]),
                      h.make_node("Transpose", ["m" + name], ["t" + name], name="nhwc_" + name, perm=[0, 2, 3, 1]),
                      h.make_node("Reshape", ["t" + name, f"rows{k}"], ["r" + name], name="rows_" + name)]
            inits.append(f32("w" + name, [2 * k, 8, 3, 3]))
        nodes.append(h.make_node("Concat", [f"r{kind}0", f"r{kind}1"], ["j" + kind], name="join_" + kind, axis=1))
    nodes += [h.make_node("Identity", ["jloc"], ["boxes"], name="boxes"),
              h.make_node("Softmax", ["jscore"], ["scores"], name="softmax", axis=2)]
    return build(nodes, [vi("x", [1, 3, 8, 8])], [vi("boxes", [1, 160, 4]), vi("scores", [1, 160, 2])], inits)


# A YOLOX-style detector: a Focus (space-to-depth of the input by four strided Slices and a
# Concat), two scales of [1, 6, H, W] predictions reshaped to [1, 6, H*W], concatenated and
# transposed to rows of 6 per anchor.
@model
def yolox_head():
    nodes, inits = [], []
    for i, (y0, x0) in enumerate(((0, 0), (1, 0), (0, 1), (1, 1))):
        nodes.append(h.make_node("Slice", ["x", f"st{i}", "big", "hw", "two"], [f"s{i}"], name=f"focus{i}"))
        inits.append(i64(f"st{i}", [y0, x0]))
    nodes += [h.make_node("Concat", ["s0", "s1", "s2", "s3"], ["sd"], name="focus", axis=1),
              h.make_node("Conv", ["sd", "w0"], ["c0"], name="stem", pads=[1, 1, 1, 1]),
              h.make_node("Sigmoid", ["c0"], ["g0"], name="sig0"),
              h.make_node("Mul", ["c0", "g0"], ["f0"], name="silu0"),
              h.make_node("Conv", ["f0", "wd"], ["f1"], name="down", pads=[1, 1, 1, 1], strides=[2, 2]),
              h.make_node("Conv", ["f0", "p0"], ["m0"], name="pred0"),
              h.make_node("Conv", ["f1", "p1"], ["m1"], name="pred1"),
              h.make_node("Reshape", ["m0", "flat0"], ["r0"], name="flat0"),
              h.make_node("Reshape", ["m1", "flat1"], ["r1"], name="flat1"),
              h.make_node("Concat", ["r0", "r1"], ["j"], name="join", axis=2),
              h.make_node("Transpose", ["j"], ["y"], name="rows", perm=[0, 2, 1])]
    inits += [i64("big", [1 << 30, 1 << 30]), i64("hw", [2, 3]), i64("two", [2, 2]), f32("w0", [8, 12, 3, 3]),
              f32("wd", [8, 8, 3, 3]), f32("p0", [6, 8, 1, 1]), f32("p1", [6, 8, 1, 1]), i64("flat0", [1, 6, 16]),
              i64("flat1", [1, 6, 4])]
    return build(nodes, [vi("x", [1, 3, 8, 8])], [vi("y", [1, 20, 6])], inits)


# A vision transformer's patch embedding: a stride-4 Conv, `x.flatten(2).transpose(1, 2)` (Reshape
# to [1, C, H*W], Transpose to [1, H*W, C]) and a linear layer over the tokens.
@model
def patch_embedding():
    nodes = [h.make_node("Conv", ["x", "w0"], ["c"], name="patches", strides=[4, 4]),
             h.make_node("Reshape", ["c", "flat"], ["f"], name="flatten2"),
             h.make_node("Transpose", ["f"], ["t"], name="tokens", perm=[0, 2, 1]),
             h.make_node("MatMul", ["t", "m"], ["y"], name="linear")]
    return build(nodes, [vi("x", [1, 3, 8, 12])], [vi("y", [1, 6, 8])],
                 [f32("w0", [16, 3, 4, 4]), i64("flat", [1, 16, 6]), f32("m", [16, 8])])


# A classifier head as AlexNet and VGG export it: convolution, max pooling, Flatten of the
# [N, 8, 3, 3] features (NCHW order), two Gemms (transB = 1, then a MatMul-style transB = 0).
def flatten_head(batch):
    nodes = [h.make_node("Conv", ["x", "w0"], ["c"], name="conv0", pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["c"], ["r"], name="relu0"),
             h.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
             h.make_node("Flatten", ["p"], ["f"], name="flatten"),
             h.make_node("Gemm", ["f", "fc1", "b1"], ["g"], name="fc1", transB=1),
             h.make_node("Gemm", ["f", "fc2"], ["y2"], name="fc2"),
             h.make_node("Relu", ["g"], ["y"], name="relu1")]
    inits = [f32("w0", [8, 3, 3, 3]), f32("fc1", [10, 72]), f32("b1", [10]), f32("fc2", [72, 5])]
    return build(nodes, [vi("x", [batch, 3, 6, 7])], [vi("y", [batch, 10]), vi("y2", [batch, 5])], inits)


MODELS["flatten_head"] = lambda: flatten_head(1)
MODELS["flatten_head_b2"] = lambda: flatten_head(2)


# Layer scales: products with per-channel positive constants ([C, 1, 1] and, divided, [1, C, 1, 1])
# of 40 channels (several vector-lane tiles), between convolutions.
@model
def channel_scales():
    # (a Relu after the Conv, so that fold-batchnorm does not fold the layer scale into it)
    nodes = [h.make_node("Conv", ["x", "w0"], ["c0"], name="conv0", pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["c0"], ["c"], name="relu0"),
             h.make_node("Mul", ["gamma", "c"], ["m"], name="layer_scale"),
             h.make_node("Div", ["m", "sigma"], ["d"], name="div_scale"),
             h.make_node("Conv", ["d", "w1"], ["y"], name="conv1")]
    inits = [f32("w0", [40, 3, 3, 3]), f32("gamma", [40, 1, 1], 0.05, 2.0), f32("sigma", [1, 40, 1, 1], 0.5, 4.0), f32("w1", [4, 40, 1, 1])]
    return build(nodes, [vi("x", [1, 3, 5, 6])], [vi("y", [1, 4, 5, 6])], inits)


# Inception-style branches concatenated (one of them a Concat itself) and convolved with padding
# (so the concatenation's buffer has a halo), and a branch also read elsewhere (not elidable).
@model
def concat_branches():
    nodes = [h.make_node("Conv", ["x", "wa"], ["a"], name="branch_a", pads=[1, 1, 1, 1]),
             h.make_node("Conv", ["x", "wb"], ["b"], name="branch_b"),
             h.make_node("Conv", ["x", "wc"], ["c0"], name="branch_c", pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["c0"], ["c"], name="relu_c"),
             h.make_node("Concat", ["a", "b"], ["ab"], name="inner", axis=1),
             h.make_node("Concat", ["ab", "c"], ["abc"], name="outer", axis=1),
             h.make_node("Conv", ["abc", "w1"], ["y"], name="head", pads=[1, 1, 1, 1]),
             h.make_node("Conv", ["x", "wd"], ["d"], name="branch_d"),
             h.make_node("Relu", ["d"], ["a2"], name="reuse"),
             h.make_node("Concat", ["d", "a2"], ["y2"], name="shared", axis=1)]
    inits = [f32("wa", [5, 3, 3, 3]), f32("wb", [6, 3, 1, 1]), f32("wc", [3, 3, 3, 3]), f32("w1", [4, 14, 3, 3]), f32("wd", [3, 3, 1, 1])]
    return build(nodes, [vi("x", [1, 3, 5, 6])], [vi("y", [1, 4, 5, 6]), vi("y2", [1, 6, 5, 6])], inits)


# PRelu with one slope, with positive per-channel slopes ([C, 1, 1]) and with slopes of both signs.
@model
def prelu_slopes():
    nodes = [h.make_node("Conv", ["x", "w0"], ["c"], name="conv0", pads=[1, 1, 1, 1]),
             h.make_node("PRelu", ["c", "one"], ["p1"], name="prelu_scalar"),
             h.make_node("Conv", ["p1", "w1"], ["d"], name="conv1", pads=[1, 1, 1, 1]),
             h.make_node("PRelu", ["d", "per_channel"], ["p2"], name="prelu_channels"),
             h.make_node("Conv", ["p2", "w2"], ["e"], name="conv2"),
             h.make_node("PRelu", ["e", "mixed"], ["y"], name="prelu_mixed")]
    inits = [f32("w0", [6, 3, 3, 3]), scalar("one", 0.25), f32("w1", [20, 6, 3, 3]), f32("per_channel", [20, 1, 1], 0.05, 0.5),
             f32("w2", [4, 20, 1, 1]), nh.from_array(np.array([[[0.2]], [[-0.1]], [[0.3]], [[0.1]]], dtype=np.float32), "mixed")]
    return build(nodes, [vi("x", [1, 3, 5, 6])], [vi("y", [1, 4, 5, 6])], inits)


# A spatial ReduceSum (opset 13: axes as an input, keepdims 0) of a convolution, then a Gemm.
@model
def reduce_sum_pool():
    nodes = [h.make_node("Conv", ["x", "w0"], ["c"], name="conv0", pads=[1, 1, 1, 1]),
             h.make_node("ReduceSum", ["c", "axes"], ["s"], name="sum", keepdims=0),
             h.make_node("Gemm", ["s", "fc"], ["y"], name="fc")]
    return build(nodes, [vi("x", [1, 3, 5, 6])], [vi("y", [1, 4])], [f32("w0", [6, 3, 3, 3]), i64("axes", [2, 3]), f32("fc", [6, 4])],
                 opset=13)


# The difference of two convolutions of one input, then a Relu.
@model
def sub_activations():
    nodes = [h.make_node("Conv", ["x", "w0"], ["a"], name="conv_a", pads=[1, 1, 1, 1]),
             h.make_node("Conv", ["x", "w1"], ["b"], name="conv_b"),
             h.make_node("Sub", ["a", "b"], ["d"], name="sub"),
             h.make_node("Relu", ["d"], ["y"], name="relu")]
    return build(nodes, [vi("x", [1, 3, 5, 6])], [vi("y", [1, 6, 5, 6])], [f32("w0", [6, 3, 3, 3]), f32("w1", [6, 3, 1, 1], -2.0, 2.0)])


# Abs, Elu, Softplus and Softsign between convolutions, and Mish (x * tanh(softplus(x))) as
# exporters write it.
@model
def smooth_activations():
    nodes = [h.make_node("Conv", ["x", "w0"], ["a"], name="conv0", pads=[1, 1, 1, 1]),
             h.make_node("Softplus", ["a"], ["sp"], name="softplus"),
             h.make_node("Tanh", ["sp"], ["th"], name="tanh"),
             h.make_node("Mul", ["a", "th"], ["mish"], name="mish"),
             h.make_node("Conv", ["mish", "w1"], ["b"], name="conv1", pads=[1, 1, 1, 1]),
             h.make_node("Elu", ["b"], ["e"], name="elu", alpha=0.5),
             h.make_node("Conv", ["e", "w2"], ["c"], name="conv2"),
             h.make_node("Abs", ["c"], ["ab"], name="abs"),
             h.make_node("Softsign", ["ab"], ["y"], name="softsign")]
    return build(nodes, [vi("x", [1, 3, 5, 6])], [vi("y", [1, 8, 5, 6])],
                 [f32("w0", [8, 3, 3, 3]), f32("w1", [8, 8, 3, 3]), f32("w2", [8, 8, 1, 1])])


# Max and Min of two convolutions of one input (different weight ranges, so different scales),
# concatenated.
@model
def max_min():
    nodes = [h.make_node("Conv", ["x", "w0"], ["a"], name="conv_a", pads=[1, 1, 1, 1]),
             h.make_node("Conv", ["x", "w1"], ["b"], name="conv_b"),
             h.make_node("Max", ["a", "b"], ["hi"], name="max"),
             h.make_node("Min", ["a", "b"], ["lo"], name="min"),
             h.make_node("Concat", ["hi", "lo"], ["y"], name="cat", axis=1)]
    return build(nodes, [vi("x", [1, 3, 5, 6])], [vi("y", [1, 40, 5, 6])], [f32("w0", [20, 3, 3, 3]), f32("w1", [20, 3, 1, 1], -2.0, 2.0)])


# A matrix product: one input row, a K x N weight matrix, and a residual add of two such products.
@model
def plan_gemm_add():
    g1 = h.make_node("Gemm", ["x", "w1"], ["a"], name="gemm1")
    g2 = h.make_node("Gemm", ["x", "w2"], ["b"], name="gemm2")
    add = h.make_node("Add", ["a", "b"], ["y"], name="add")
    return build([g1, g2, add], [vi("x", [1, 8])], [vi("y", [1, 4])], [f32("w1", [8, 4]), f32("w2", [8, 4])])


@model
def bad_prelu_slope():
    # A PRelu slope of shape [4, 1] does not broadcast to X [1, 4, 5, 6] (5 against 4); the kernel
    # read past the slope (heap-buffer-overflow; found by tests/fuzz/onnx_fuzzer).
    nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="conv"),
             h.make_node("PRelu", ["c", "slope"], ["y"], name="prelu")]
    return build(nodes, [vi("x", [1, 3, 5, 6])], [vi("y", [1, 4, 5, 6])], [f32("w", [4, 3, 1, 1]), f32("slope", [4, 1])])


@model
def bad_clip_empty_bound():
    # fuse_gemm_clip whose Clip max is an empty tensor, not a scalar.
    nodes = [h.make_node("Gemm", ["x", "w"], ["g"], name="fc", transB=1),
             h.make_node("Add", ["g", "bias"], ["a"], name="bias_add"),
             const_node("lo", np.float32(0.0)), const_node("hi", np.zeros(0, np.float32)),
             h.make_node("Clip", ["a", "lo", "hi"], ["y"], name="relu6")]
    return build(nodes, [vi("x", [2, 5])], [vi("y", [2, 3])], [f32("w", [3, 5]), f32("bias", [1, 3])])


@model
def bad_unsupported_op():
    nodes = [h.make_node("Relu", ["x"], ["r"], name="relu"), h.make_node("TopK", ["r", "k"], ["y", "idx"], name="topk")]
    return build(nodes, [vi("x", [1, 8])], [vi("y", [1, 2]), vi("idx", [1, 2], T.INT64)], [i64("k", [2])])


@model
def bad_missing_initializer():
    nodes = [h.make_node("Conv", ["x", "conv1.weight"], ["y"], name="conv1")]
    return build(nodes, [vi("x", [1, 3, 8, 8])], [vi("y", [1, 4, 8, 8])])


@model
def bad_inconsistent_shapes():
    nodes = [h.make_node("Gemm", ["x", "w"], ["g"], name="fc", transB=1), h.make_node("Add", ["g", "b"], ["y"], name="bias_add")]
    return build(nodes, [vi("x", [2, 5])], [vi("y", [2, 3])], [f32("w", [3, 5]), f32("b", [4])])


@model
def bad_declared_shape():
    nodes = [h.make_node("MatMul", ["x", "w"], ["y"], name="mm")]
    return build(nodes, [vi("x", [2, 4])], [vi("y", [2, 5])], [f32("w", [4, 3])])


@model
def bad_reshape():
    nodes = [h.make_node("Reshape", ["x", "s"], ["y"], name="reshape")]
    return build(nodes, [vi("x", [2, 6])], [vi("y", [None, None])], [i64("s", [5, -1])])


@model
def bad_opset8():
    return build([h.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [4])], [vi("y", [4])], opset=8)


@model
def bad_opset18():
    return build([h.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [4])], [vi("y", [4])], opset=18)


@model
def bad_int_input():
    return build([h.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [4], T.INT32)], [vi("y", [4], T.INT32)])


# A Gather whose indices come from the input (Cast to int64): calibration's inputs in [-1, 1) index
# row 0, an input of 100 is out of range only when `run` runs it (issue 16 D12).
@model
def gather_by_input():
    nodes = [h.make_node("Cast", ["x"], ["i"], name="cast", to=T.INT64),
             h.make_node("Gather", ["table", "i"], ["y"], name="lookup", axis=0)]
    return build(nodes, [vi("x", [2])], [vi("y", [2, 4])], [f32("table", [3, 4])])


def bad_conv(**attrs):
    conv = h.make_node("Conv", ["x", "w", "b"], ["y"], name="conv", **attrs)
    return build([conv], [vi("x", [1, 2, 8, 8])], [vi("y", [None] * 4)], [f32("w", [4, 2, 3, 3]), f32("b", [4])])


# Window attributes ONNX's shape inference would divide by or overflow with (issue 16 D4, D6, D7).
MODELS["bad_conv_stride0"] = lambda: bad_conv(strides=[0, 1])
MODELS["bad_conv_pads_negative"] = lambda: bad_conv(pads=[-5, 0, 0, 0])
MODELS["bad_conv_pads_2e62"] = lambda: bad_conv(pads=[2**62, 0, 0, 0])
MODELS["bad_conv_group0"] = lambda: bad_conv(group=0)


@model
def bad_pool_stride0():
    pool = h.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2], strides=[2, 0])
    return build([pool], [vi("x", [1, 2, 8, 8])], [vi("y", [None] * 4)])


@model
def bad_convtranspose_stride0():
    ct = h.make_node("ConvTranspose", ["x", "w"], ["y"], name="up", strides=[0, 2])
    return build([ct], [vi("x", [1, 4, 8, 8])], [vi("y", [None] * 4)], [f32("w", [4, 2, 3, 3])])


def redim(t, dims):
    out = onnx.TensorProto()
    out.CopyFrom(t)
    del out.dims[:]
    out.dims.extend(dims)
    return out


# Initializers whose dims disagree with their data or with the shape the graph declares (D5).
def bad_pads_init(dims):
    pad = h.make_node("Pad", ["x", "p"], ["y"], name="pad")
    return build([pad], [vi("x", [1, 2, 8, 8])], [vi("y", [None] * 4)], [redim(i64("p", [0] * 8), dims)])


MODELS["bad_init_negative_dim"] = lambda: bad_pads_init([-1])
MODELS["bad_init_dims_exceed_data"] = lambda: bad_pads_init([192, 1048576])


@model
def bad_init_declared():
    conv = h.make_node("Conv", ["x", "w", "b"], ["y"], name="conv")
    return build([conv], [vi("x", [1, 2, 8, 8])], [vi("y", [None] * 4)], [f32("w", [4, 2, 3, 3]), f32("b", [4])],
                 value_info=[vi("b", [192])])


# Sizes past the per-tensor limit: an input, and a Pad whose output would be 2^41 wide (D7).
@model
def bad_huge_input():
    return build([h.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [1, 2**40])], [vi("y", [None, None])])


def bad_pad(amount):
    pad = h.make_node("Pad", ["x", "p"], ["y"], name="pad")
    return build([pad], [vi("x", [1, 2, 8, 8])], [vi("y", [None] * 4)], [i64("p", [0, 0, 0, amount, 0, 0, 0, amount])])


MODELS["bad_huge_pad"] = lambda: bad_pad(2**40)
MODELS["bad_overflowing_pad"] = lambda: bad_pad(2**62)  # 8 + 2 * 2^62 overflows int64 (D6)


# A Conv or ConvTranspose whose input has fewer dimensions than its weight, a graph input or an
# earlier node's output (whose rank only shape inference knows): ONNX 1.12's inference reads past the
# input's dimensions (SIGSEGV; found by tests/fuzz/onnx_fuzzer).
def bad_rank(op, after_relu):
    x = "r" if after_relu else "x"
    nodes = [h.make_node("Relu", ["x"], ["r"], name="relu")] if after_relu else []
    nodes.append(h.make_node(op, [x, "w"], ["y"], name="conv"))
    return build(nodes, [vi("x", [1, 4, 119])], [vi("y", [None] * 4)], [f32("w", [4, 4, 1, 1])])


MODELS["bad_conv_rank"] = lambda: bad_rank("Conv", False)
MODELS["bad_conv_rank_inferred"] = lambda: bad_rank("Conv", True)
MODELS["bad_convtranspose_rank"] = lambda: bad_rank("ConvTranspose", True)


# An int64 shape whose raw_data (17 bytes) is not a whole number of elements, as an initializer or
# as a Constant's tensor attribute (typed TENSOR, or with its type left unset): ONNX's
# ParseData<int64_t> copied 17 bytes into a 16-byte buffer (issue 16 D8, heap-buffer-overflow).
def ragged_shape_tensor():
    t = onnx.TensorProto(name="shape", data_type=T.INT64, dims=[2])
    t.raw_data = np.array([1, 8], dtype="<i8").tobytes() + b"\x00"
    return t


def bad_raw_size(where):
    reshape = h.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")
    if where == "initializer":
        return build([reshape], [vi("x", [1, 8])], [vi("y", [None, None])], [ragged_shape_tensor()])
    value = onnx.AttributeProto(name="value", t=ragged_shape_tensor())
    if where == "constant":
        value.type = onnx.AttributeProto.TENSOR
    const = onnx.NodeProto(op_type="Constant", name="c", output=["shape"], attribute=[value])
    return build([const, reshape], [vi("x", [1, 8])], [vi("y", [None, None])])


MODELS["bad_raw_size_initializer"] = lambda: bad_raw_size("initializer")
MODELS["bad_raw_size_constant"] = lambda: bad_raw_size("constant")
MODELS["bad_raw_size_untyped_attribute"] = lambda: bad_raw_size("untyped")


# A Softmax over the rows of a matrix between two matrix products (the vector unit's exponential
# table, row sums and reciprocal).
def softmax_between(width):
    nodes = [h.make_node("MatMul", ["x", "w1"], ["s"], name="scores"),
             h.make_node("Softmax", ["s"], ["p"], name="softmax", axis=-1),
             h.make_node("MatMul", ["p", "w2"], ["y"], name="mix")]
    return build(nodes, [vi("x", [1, 8, 16])], [vi("y", [1, 8, 16])],
                 [f32("w1", [16, width], -2, 2), f32("w2", [width, 16])])


@model
def softmax_rows():
    return softmax_between(32)


# Rows of 40: not a whole number of 16- or 32-lane vector tiles (PaddleOCR's SVTR attention).
@model
def softmax_ragged():
    return softmax_between(40)


# A LayerNormalization (opset 17) of a matrix between two matrix products: row sums, the
# reciprocal square root of the variance, per-channel gamma and beta on the vector unit.
def layernorm_between(width):
    nodes = [h.make_node("MatMul", ["x", "w1"], ["s"], name="proj"),
             h.make_node("LayerNormalization", ["s", "g", "b"], ["n"], name="ln", axis=-1, epsilon=1e-5),
             h.make_node("MatMul", ["n", "w2"], ["y"], name="head")]
    inits = [f32("w1", [32, width]), f32("g", [width], -1.5, 1.5), f32("b", [width], -0.5, 0.5),
             f32("w2", [width, 16])]
    return build(nodes, [vi("x", [1, 8, 32])], [vi("y", [1, 8, 16])], inits, opset=17)


@model
def layernorm_rows():
    return layernorm_between(64)


# Rows of 40 (a ragged last tile).
@model
def layernorm_ragged():
    return layernorm_between(40)


# A ViT's token handling: a class token (a constant row) concatenated before the patches' rows, a
# position embedding (a constant of the same shape) added, the class token's row taken back by a
# Gather (x[:, 0]) and the patches' rows by a Slice, each into a matrix product.
@model
def class_token():
    nodes = [h.make_node("MatMul", ["x", "w"], ["p"], name="patches"),
             h.make_node("Concat", ["cls", "p"], ["t"], name="with_class", axis=1),
             h.make_node("Add", ["t", "pos"], ["e"], name="position"),
             h.make_node("Gather", ["e", "zero"], ["c"], name="class_row", axis=1),
             h.make_node("Gemm", ["c", "wc"], ["y"], name="head"),
             h.make_node("Slice", ["e", "one", "end", "axis1"], ["rest"], name="patch_rows"),
             h.make_node("MatMul", ["rest", "wr"], ["z"], name="mix")]
    inits = [f32("w", [16, 16]), f32("cls", [1, 1, 16], -0.5, 0.5), f32("pos", [1, 9, 16], -0.5, 0.5),
             nh.from_array(np.array(0, dtype=np.int64), "zero"), f32("wc", [16, 8]),
             i64("one", [1]), i64("end", [9]), i64("axis1", [1]), f32("wr", [16, 16])]
    return build(nodes, [vi("x", [1, 8, 16])], [vi("y", [1, 8]), vi("z", [1, 8, 16])], inits)


# PaddleOCR's SVTR (and timm's) attention: the packed Q, K, V projection reshaped to
# [1, S, 3, H, d], transposed (2, 0, 3, 1, 4) and split by Slice + Squeeze of the first axis, the
# scaled Q K^T over rank-4 [1, H, S, d] tensors, Softmax over axis 3, P V, and the heads merged by
# Transpose (0, 2, 1, 3) and a Reshape whose target copies its first axis (0, as paddle2onnx
# writes it). Heads of 5 (not a whole vector tile).
@model
def packed_heads():
    S, H, d = 8, 2, 5
    D = H * d
    nodes = [h.make_node("MatMul", ["x", "w"], ["m"], name="qkv"),
             h.make_node("Add", ["m", "b"], ["p"], name="qkv_bias"),
             h.make_node("Reshape", ["p", "split"], ["r"], name="split"),
             h.make_node("Transpose", ["r"], ["t"], name="heads", perm=[2, 0, 3, 1, 4])]
    for i, name in enumerate("qkv"):
        nodes += [h.make_node("Slice", ["t", f"s{i}", f"e{i}", "axis0"], [name + "5"], name="slice_" + name),
                  h.make_node("Squeeze", [name + "5", "axis0"], [name], name="squeeze_" + name)]
    nodes += [h.make_node("Mul", ["q", "scale"], ["qs"], name="scale"),
              h.make_node("Transpose", ["k"], ["kt"], name="k_t", perm=[0, 1, 3, 2]),
              h.make_node("MatMul", ["qs", "kt"], ["scores"], name="qk"),
              h.make_node("Softmax", ["scores"], ["probs"], name="softmax", axis=3),
              h.make_node("MatMul", ["probs", "v"], ["o"], name="pv"),
              h.make_node("Transpose", ["o"], ["om"], name="merge", perm=[0, 2, 1, 3]),
              h.make_node("Reshape", ["om", "rows"], ["o2"], name="merge_rows"),
              h.make_node("MatMul", ["o2", "wo"], ["y"], name="out_proj")]
    inits = [f32("w", [D, 3 * D]), f32("b", [3 * D], -0.1, 0.1), i64("split", [1, S, 3, H, d]), i64("axis0", [0]),
             scalar("scale", d ** -0.5), i64("rows", [0, S, D]), f32("wo", [D, D])]
    inits += [i64(f"s{i}", [i]) for i in range(3)] + [i64(f"e{i}", [i + 1]) for i in range(3)]
    return build(nodes, [vi("x", [1, S, D])], [vi("y", [1, S, D])], inits, opset=13)


# PaddleOCR's SVTR neck: a map flattened to its sequence (Reshape to [N, C, H*W], Transpose
# (0, 2, 1)), a LayerNormalization of the rows, and back (Reshape to [N, H, W, C], Transpose
# (0, 3, 1, 2)) into a convolution.
@model
def rows_to_map():
    nodes = [h.make_node("Conv", ["x", "w1"], ["c"], name="conv1"),
             h.make_node("Reshape", ["c", "seq_shape"], ["s"], name="to_seq"),
             h.make_node("Transpose", ["s"], ["rows"], name="to_rows", perm=[0, 2, 1]),
             h.make_node("LayerNormalization", ["rows", "g", "b"], ["n"], name="ln", axis=-1, epsilon=1e-5),
             h.make_node("Reshape", ["n", "map_shape"], ["m"], name="to_map"),
             h.make_node("Transpose", ["m"], ["back"], name="to_nchw", perm=[0, 3, 1, 2]),
             h.make_node("Conv", ["back", "w2"], ["y"], name="conv2", pads=[1, 1, 1, 1])]
    inits = [f32("w1", [24, 3, 1, 1]), i64("seq_shape", [1, 24, 8]), f32("g", [24], 0.5, 1.5),
             f32("b", [24], -0.2, 0.2), i64("map_shape", [1, 2, 4, 24]), f32("w2", [8, 24, 3, 3])]
    return build(nodes, [vi("x", [1, 3, 2, 4])], [vi("y", [1, 8, 2, 4])], inits, opset=17)


# PyTorch's packed in-projection: one MatMul and bias for Q, K and V, then three Slices of the
# last axis.
@model
def packed_qkv():
    nodes = [h.make_node("MatMul", ["x", "w"], ["m"], name="in_proj"),
             h.make_node("Add", ["b", "m"], ["p"], name="in_proj_bias")]
    for i, name in enumerate("qkv"):
        nodes.append(h.make_node("Slice", ["p", f"s{i}", f"e{i}", "axis"], [name], name="slice_" + name))
    nodes += [h.make_node("Add", ["q", "k"], ["qk"], name="sum1"), h.make_node("Add", ["qk", "v"], ["y"], name="sum2")]
    inits = [f32("w", [16, 48]), f32("b", [48], -0.1, 0.1), i64("axis", [-1])]
    inits += [i64(f"s{i}", [16 * i]) for i in range(3)] + [i64(f"e{i}", [16 * (i + 1)]) for i in range(3)]
    return build(nodes, [vi("x", [1, 8, 16])], [vi("y", [1, 8, 16])], inits)

# A causal mask added to attention scores before the Softmax (-inf above the diagonal), as
# nn.MultiheadAttention's attn_mask exports it.
def causal_softmax_of(S):
    mask = np.triu(np.full((S, S), -np.inf, dtype=np.float32), k=1)
    nodes = [h.make_node("MatMul", ["x", "w1"], ["s"], name="scores"),
             h.make_node("Add", ["s", "mask"], ["sm"], name="causal"),
             h.make_node("Softmax", ["sm"], ["p"], name="softmax", axis=-1),
             h.make_node("MatMul", ["p", "w2"], ["y"], name="mix")]
    inits = [f32("w1", [16, S], -2, 2), nh.from_array(mask, "mask"), f32("w2", [S, 16])]
    return build(nodes, [vi("x", [2, S, 16])], [vi("y", [2, S, 16])], inits)


@model
def causal_softmax():
    return causal_softmax_of(16)


# Rows of 20: the mask and the padding lanes together.
@model
def causal_softmax_ragged():
    return causal_softmax_of(20)

# Multi-head self-attention as PyTorch's batch_first nn.MultiheadAttention exports it (2 heads of
# 16, sequence 16): the [1, S, D] <-> [S, 1, D] Transposes, the heads split by Reshape and
# Transpose(1, 0, 2), K transposed by Transpose(1, 2, 0), Q K^T, Softmax, P V, the heads merged.
@model
def attention():
    S, H, d = 16, 2, 16
    D = H * d
    nodes = [h.make_node("Transpose", ["x"], ["xt"], name="to_seq_first", perm=[1, 0, 2])]
    for name in "qkv":
        nodes += [h.make_node("MatMul", ["xt", "w" + name], [name + "m"], name=name + "_proj"),
                  h.make_node("Add", [name + "m", "b" + name], [name + "b"], name=name + "_bias"),
                  h.make_node("Reshape", [name + "b", "heads"], [name + "h"], name=name + "_heads")]
    nodes += [h.make_node("Transpose", ["qh"], ["qt"], name="q_split", perm=[1, 0, 2]),
              h.make_node("Div", ["qt", "sqrt_d"], ["qs"], name="q_scale"),
              h.make_node("Transpose", ["kh"], ["kt"], name="k_split_transposed", perm=[1, 2, 0]),
              h.make_node("Transpose", ["vh"], ["vt"], name="v_split", perm=[1, 0, 2]),
              h.make_node("MatMul", ["qs", "kt"], ["scores"], name="qk"),
              h.make_node("Softmax", ["scores"], ["probs"], name="softmax", axis=-1),
              h.make_node("MatMul", ["probs", "vt"], ["o"], name="pv"),
              h.make_node("Transpose", ["o"], ["om"], name="merge", perm=[1, 0, 2]),
              h.make_node("Reshape", ["om", "rows"], ["o2"], name="merge_rows"),
              h.make_node("MatMul", ["o2", "wo"], ["out"], name="out_proj"),
              h.make_node("Reshape", ["out", "seq_batch"], ["out3"], name="to_3d"),
              h.make_node("Transpose", ["out3"], ["y"], name="to_batch_first", perm=[1, 0, 2])]
    inits = [f32("w" + n, [D, D]) for n in "qkv"] + [f32("b" + n, [D], -0.1, 0.1) for n in "qkv"]
    inits += [f32("wo", [D, D]), i64("heads", [S, H, d]), i64("rows", [S, D]), i64("seq_batch", [S, 1, D]),
              scalar("sqrt_d", 4.0)]
    return build(nodes, [vi("x", [1, S, D])], [vi("y", [1, S, D])], inits)


# Weight widths (--precision): two convolutions and a classifier, every weight a matrix layer.
@model
def precision_net():
    nodes = [h.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             h.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2"),
             h.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             h.make_node("GlobalAveragePool", ["r2"], ["p"], name="pool"),
             h.make_node("Flatten", ["p"], ["f"], name="flatten"),
             h.make_node("Gemm", ["f", "w3", "b3"], ["y"], name="fc", transB=1)]
    inits = [f32("w1", [20, 3, 3, 3]), f32("b1", [20], -0.1, 0.1), f32("w2", [20, 20, 1, 1]),
             f32("b2", [20], -0.1, 0.1), f32("w3", [10, 20]), f32("b3", [10], -0.1, 0.1)]
    return build(nodes, [vi("x", [1, 3, 8, 8])], [vi("y", [1, 10])], inits)


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--list":
        print("\n".join(MODELS))
        return 0
    if len(sys.argv) != 3 or sys.argv[1] not in MODELS:
        sys.stderr.write(f"usage: {sys.argv[0]} NAME OUT.onnx  (--list for the names)\n")
        return 2
    onnx.save(MODELS[sys.argv[1]](), sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
