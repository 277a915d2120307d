"""Runs a quantized graph read from a compiled model (sbin_model.py) with the NumPy contract of
int8_ops.py. Only the operators docs/quantized-ops.md defines and a small model needs are here; any
other operator is an error naming it (add it from the page, not from the C++)."""
import numpy as np

import int8_ops as ops


def _quant(v):
    assert v.scale is not None and len(v.scale) == 1, f"'{v.name}' is not quantized per tensor"
    return v.scale[0], int(v.zero_point[0])


def _requantize(acc, node, zy, channel_axis, clamp=True):
    m = np.asarray(node.attrs["multiplier"], np.int64)
    s = np.asarray(node.attrs["shift"], np.int64)
    if m.size > 1:  # one per channel: put them on the channel axis
        shape = [1] * acc.ndim
        shape[channel_axis] = m.size
        m, s = m.reshape(shape), s.reshape(shape)
    lo, hi = (node.attrs["act_min"], node.attrs["act_max"]) if clamp else (-128, 127)
    return ops.requantize(acc, m, s, zy, lo, hi)


def _conv(g, node, x, xv, yv):
    w = g.values[node.inputs[1]].data
    b = g.values[node.inputs[2]].data if len(node.inputs) > 2 and node.inputs[2] >= 0 else None
    acc = ops.conv(x, _quant(xv)[1], w, b, node.attrs, yv.shape[2:])
    return _requantize(acc, node, _quant(yv)[1], 1)


def _gemm(g, node, x, xv, yv):
    assert node.attrs.get("transA", 0) == 0 and node.attrs.get("transB", 0) == 0, "transposes are folded into w [K, N]"
    assert node.attrs.get("alpha", 1.0) == 1.0 and node.attrs.get("beta", 1.0) == 1.0
    w = g.values[node.inputs[1]].data
    b = g.values[node.inputs[2]].data if len(node.inputs) > 2 and node.inputs[2] >= 0 else None
    return _requantize(ops.matmul(x, _quant(xv)[1], w, b), node, _quant(yv)[1], -1)


def _add(g, node, a, av, yv, env):
    bv = g.values[node.inputs[1]]
    acc = ops.wrap32(ops.widen(a, _quant(av)[1], node.attrs["a_multiplier"])
                     + ops.widen(env[node.inputs[1]], _quant(bv)[1], node.attrs["b_multiplier"]))
    return _requantize(acc, node, _quant(yv)[1], 1)


def _average(acc, node, yv):
    return _requantize(acc, node, _quant(yv)[1], 1, clamp=False)


def _requant(x, xv, node, yv):
    return _requantize(ops.widen(x, _quant(xv)[1], 1), node, _quant(yv)[1], 1, clamp=False)


def _step(g, node, env):
    x = env[node.inputs[0]]
    xv, yv = g.values[node.inputs[0]], g.values[node.outputs[0]]
    op, a = node.op, node.attrs
    if op == "QuantizeLinear":
        return ops.quantize_linear(x, *_quant(yv))
    if op == "DequantizeLinear":
        return ops.dequantize_linear(x, *_quant(xv))
    if op == "Conv":
        return _conv(g, node, x, xv, yv)
    if op in ("Gemm", "MatMul"):
        return _gemm(g, node, x, xv, yv)
    if op == "Add":
        return _add(g, node, x, xv, yv, env)
    if op == "MaxPool":
        return ops.max_pool(x, a, yv.shape[2:])
    if op == "AveragePool":
        assert a.get("count_include_pad", 0) == 1 or not any(a.get("pads", [0])), "the contract covers no padding or count_include_pad = 1"
        return _average(ops.window_sum(x, _quant(xv)[1], a, yv.shape[2:]), node, yv)
    if op == "GlobalAveragePool":
        return _average(ops.widen(x, _quant(xv)[1], 1).sum(axis=(2, 3), keepdims=True), node, yv)
    if op in ("Relu", "Clip"):
        return np.clip(x, a["act_min"], a["act_max"]).astype(np.int8)
    if op == "Requant":
        return _requant(x, xv, node, yv)
    if op in ("Flatten", "Reshape", "Identity"):
        return x.reshape(yv.shape)
    if op == "Concat":  # data movement: every input already has the output's Quant
        assert all(_quant(g.values[i]) == _quant(yv) for i in node.inputs), "Concat inputs must share the output's Quant"
        return np.concatenate([env[i] for i in node.inputs], axis=a["axis"])
    if op == "FlattenNhwc":
        return x.transpose(0, 2, 3, 1).reshape(yv.shape)
    if op == "UnflattenNhwc":  # rows [N, H*W, C] -> [N, C, H, W]
        n, c, hh, ww = yv.shape
        return x.reshape(n, hh, ww, c).transpose(0, 3, 1, 2)
    raise NotImplementedError(f"golden_model.py has no {op} (node '{node.name}'): add it from docs/quantized-ops.md")


def run(g, inputs):
    """inputs: graph input name -> float32 array. Returns every value computed, by value id."""
    env = {vid: inputs[g.values[vid].name] for vid in g.inputs}
    for vid, v in enumerate(g.values):
        if v.is_constant:
            env[vid] = v.data
    pending = list(range(len(g.nodes)))
    while pending:  # the file lists nodes in any order: run each once its inputs exist
        ready = [n for n in pending if all(i < 0 or i in env for i in g.nodes[n].inputs)]
        assert ready, "the graph has a cycle or reads a value nothing computes"
        for n in ready:
            node = g.nodes[n]
            assert len(node.outputs) == 1, f"{node.op} with {len(node.outputs)} outputs"
            env[node.outputs[0]] = _step(g, node, env)
            pending.remove(n)
    return env
