"""The integer contract of docs/quantized-ops.md, reimplemented in NumPy from the page alone (no
code shared with the compiler, the interpreter or the simulator). Tensors are NCHW; every sum is
exact in int64 and wrapped to int32 as the contract's two's-complement accumulators are; the
requantization rounds with Python's exact integers."""
import numpy as np


def wrap32(a):
    return ((np.asarray(a, np.int64) + 2**31) % 2**32 - 2**31).astype(np.int64)


def sat8(a):
    return np.clip(a, -128, 127).astype(np.int8)


def requantize(acc, multiplier, shift, zero_point, lo=-128, hi=127):
    """acc (int32 values) * M / 2^S, rounded to nearest with ties toward +infinity, plus the zero
    point, clamped to [lo, hi] and saturated to int8. `multiplier` and `shift` broadcast with acc."""
    acc = np.asarray(acc, np.int64)
    m = np.broadcast_to(np.asarray(multiplier, np.int64), acc.shape)
    s = np.broadcast_to(np.asarray(shift, np.int64) & 63, acc.shape)
    out = np.empty(acc.shape, np.int64)
    for i in np.ndindex(acc.shape):  # Python integers: the product needs up to 62 bits, the shift up to 63
        v, k = int(acc[i]) * int(m[i]), int(s[i])
        out[i] = (v + (1 << (k - 1))) >> k if k else v  # floor((v + 2^(k-1)) / 2^k)
    return sat8(np.clip(out + zero_point, lo, hi))


def quantize_linear(x, scale, zero_point):
    """float32 -> int8: sat8(round_half_to_even(x / s) + z), x / s in float32 as ONNX does."""
    q = np.rint(np.asarray(x, np.float32) / np.float32(scale)).astype(np.int64)
    return sat8(q + zero_point)


def dequantize_linear(q, scale, zero_point):
    return np.float32(scale) * (q.astype(np.int64) - zero_point).astype(np.float32)


def _window(attrs, in_hw, kernel):
    """(strides, dilations, pads [top, left, bottom, right]) of a 2-D window."""
    strides = attrs.get("strides", [1, 1])
    dilations = attrs.get("dilations", [1, 1])
    pads = attrs.get("pads", [0, 0, 0, 0])
    assert "auto_pad" not in attrs, "the importer resolves auto_pad into pads"
    assert len(kernel) == 2 and len(in_hw) == 2, "2-D windows only"
    return strides, dilations, pads


def _positions(out_len, in_len, stride, dilation, pad, k):
    """Input index of output o and tap k, and whether it lies inside the input."""
    i = np.arange(out_len) * stride + k * dilation - pad
    return np.clip(i, 0, in_len - 1), (i >= 0) & (i < in_len)


def conv(x, zx, w, b, attrs, out_hw):
    """int32 accumulators of a grouped 2-D Conv; padding positions contribute nothing."""
    n, c_in, h, wd = x.shape
    c_out, icg, kh, kw = w.shape
    groups = attrs.get("group", 1)
    strides, dil, pads = _window(attrs, (h, wd), (kh, kw))
    oh, ow = out_hw
    centred = x.astype(np.int64) - zx
    acc = np.zeros((n, c_out, oh, ow), np.int64)
    ocg = c_out // groups
    for ky in range(kh):
        iy, vy = _positions(oh, h, strides[0], dil[0], pads[0], ky)
        for kx in range(kw):
            ix, vx = _positions(ow, wd, strides[1], dil[1], pads[1], kx)
            patch = centred[:, :, iy][:, :, :, ix] * (vy[:, None] & vx[None, :])  # n, c_in, oh, ow
            for g in range(groups):
                tap = w[g * ocg:(g + 1) * ocg, :, ky, kx].astype(np.int64)  # ocg, icg
                acc[:, g * ocg:(g + 1) * ocg] += np.einsum("oc,nchw->nohw", tap, patch[:, g * icg:(g + 1) * icg])
    if b is not None:
        acc += b.astype(np.int64)[None, :, None, None]
    return wrap32(acc)


def matmul(a, za, w, b):
    """a [..., K] x w [K, N] + b [N] as int32 accumulators."""
    acc = (a.astype(np.int64) - za) @ w.astype(np.int64)
    if b is not None:
        acc += b.astype(np.int64)
    return wrap32(acc)


def widen(x, z, m):
    return wrap32((x.astype(np.int64) - z) * m)


def max_pool(x, attrs, out_hw):
    kh, kw = attrs["kernel_shape"]
    strides, dil, pads = _window(attrs, x.shape[2:], (kh, kw))
    y = np.full(x.shape[:2] + tuple(out_hw), -128, np.int64)
    for ky in range(kh):
        iy, vy = _positions(out_hw[0], x.shape[2], strides[0], dil[0], pads[0], ky)
        for kx in range(kw):
            ix, vx = _positions(out_hw[1], x.shape[3], strides[1], dil[1], pads[1], kx)
            inside = vy[:, None] & vx[None, :]
            y = np.maximum(y, np.where(inside, x[:, :, iy][:, :, :, ix], -128))  # padding never wins
    return y.astype(np.int8)


def window_sum(x, zx, attrs, out_hw):
    """AveragePool's accumulator: the sum of widen(x, z_x, 1) over the window's positions inside x."""
    kh, kw = attrs["kernel_shape"]
    strides, dil, pads = _window(attrs, x.shape[2:], (kh, kw))
    acc = np.zeros(x.shape[:2] + tuple(out_hw), np.int64)
    for ky in range(kh):
        iy, vy = _positions(out_hw[0], x.shape[2], strides[0], dil[0], pads[0], ky)
        for kx in range(kw):
            ix, vx = _positions(out_hw[1], x.shape[3], strides[1], dil[1], pads[1], kx)
            acc += widen(x[:, :, iy][:, :, :, ix], zx, 1) * (vy[:, None] & vx[None, :])
    return wrap32(acc)


def self_check():
    """Hand-computed cases of the contract, checked before any golden is made."""
    # x / 2 rounds half toward +infinity: 0.5 -> 1, -0.5 -> 0, 1.5 -> 2, -1.5 -> -1, then z and clamps
    assert requantize([1, -1, 3, -3], 1 << 30, 31, 0).tolist() == [1, 0, 2, -1]
    assert requantize([1, -1, 3, -3], 1 << 30, 31, -128, -128, 127).tolist() == [-127, -128, -126, -128]
    assert requantize([1000], 1 << 30, 30, 5, -128, 100).tolist() == [100]  # act_max, then saturation
    assert wrap32([2**31, -2**31 - 1]).tolist() == [-2**31, 2**31 - 1]
    # QuantizeLinear rounds half to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2
    assert quantize_linear(np.float32([0.5, 1.5, 2.5, -0.5, 300]), 1.0, 0).tolist() == [0, 2, 2, 0, 127]
    # a 1x3 conv of one row with padding 1: padding contributes nothing, z_x is subtracted inside
    x = np.int8([[[[3, 4, 5]]]])
    acc = conv(x, 1, np.ones((1, 1, 1, 3), np.int8), np.int32([10]), {"pads": [0, 1, 0, 1]}, (1, 3))
    assert acc.reshape(-1).tolist() == [10 + 2 + 3, 10 + 2 + 3 + 4, 10 + 3 + 4]
    assert max_pool(np.int8([[[[-100, -90]]]]), {"kernel_shape": [1, 2], "pads": [0, 1, 0, 1]}, (1, 3)).reshape(-1).tolist() == [-100, -90, -90]
