// Operator geometry shared by the shape-inference pass and the float kernels, so that a value's
// inferred shape and the kernel that fills it can never disagree: axis normalization, numpy
// broadcasting, convolution/pooling windows, Slice, Pad and Resize parameters, and the
// opset-dependent places where an operator reads a parameter from an attribute or an input.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "systole/compiler/graph.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler::ops {

using compiler::shapeText;

/// Shape arithmetic on a model's dimensions, pads and strides, which can be anything: a sum or a
/// product that overflows int64 throws instead of wrapping into an undersized buffer.
inline int64_t checkedSum(std::initializer_list<int64_t> terms) {
  int64_t n = 0;
  for (int64_t t : terms)
    if (__builtin_add_overflow(n, t, &n)) throw Error("shape arithmetic overflows int64");
  return n;
}
inline int64_t checkedProduct(int64_t a, int64_t b) {
  int64_t n = 0;
  if (__builtin_mul_overflow(a, b, &n)) throw Error("shape arithmetic overflows int64");
  return n;
}

inline int64_t product(const std::vector<int64_t>& s, size_t from = 0, size_t to = SIZE_MAX) {
  int64_t n = 1;
  for (size_t i = from; i < s.size() && i < to; ++i) n = checkedProduct(n, s[i]);
  return n;
}

/// An axis in [-rank, rank) as a non-negative index; throws otherwise.
inline size_t normAxis(int64_t axis, size_t rank, const char* what = "axis") {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    throw Error(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

/// Integers from an int64 or int32 tensor's bytes.
inline std::vector<int64_t> readInts(ElemType type, const uint8_t* data, int64_t n) {
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (type == ElemType::Int64)
      std::memcpy(&out[static_cast<size_t>(i)], data + 8 * i, 8);
    else if (type == ElemType::Int32) {
      int32_t x;
      std::memcpy(&x, data + 4 * i, 4);
      out[static_cast<size_t>(i)] = x;
    } else if (type == ElemType::Float32) {
      float f;
      std::memcpy(&f, data + 4 * i, 4);
      out[static_cast<size_t>(i)] = static_cast<int64_t>(f);
    } else {
      out[static_cast<size_t>(i)] = static_cast<int8_t>(data[i]);
    }
  }
  return out;
}

inline std::vector<float> readFloats(ElemType type, const uint8_t* data, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  if (n == 0) return out;
  if (type == ElemType::Float32) {
    std::memcpy(out.data(), data, static_cast<size_t>(n) * 4);
    return out;
  }
  auto ints = readInts(type, data, n);
  for (size_t i = 0; i < ints.size(); ++i) out[i] = static_cast<float>(ints[i]);
  return out;
}

/// numpy broadcasting of two shapes; throws on incompatible dimensions.
inline std::vector<int64_t> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      throw Error("shapes " + shapeText(a) + " and " + shapeText(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

/// Strides (in elements) to read a tensor of shape `in` broadcast to `out` (0 on broadcast axes).
/// Throws Error when `in` does not broadcast to `out` (a kernel must never read past its input,
/// whatever shapes a malformed model declares).
inline std::vector<int64_t> broadcastStrides(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t s = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    const size_t i = in.size() - 1 - k;
    if (k >= out.size() || (in[i] != 1 && in[i] != out[out.size() - 1 - k]))
      throw Error("shape " + shapeText(in) + " does not broadcast to " + shapeText(out));
    const size_t o = out.size() - 1 - k;
    strides[o] = in[i] == 1 ? 0 : s;
    s *= in[i];
  }
  return strides;
}

/// Windows of a Conv or pooling node over the spatial dimensions of `x` (shape [N, C, spatial...]).
struct Windows {
  std::vector<int64_t> kernel, strides, dilations, padBegin, padEnd, out;
};

inline Windows windows(const Node& n, const std::vector<int64_t>& x, const std::vector<int64_t>& kernel,
                       bool ceilMode) {
  const size_t sp = x.size() - 2;
  if (kernel.size() != sp)
    throw Error("kernel has " + std::to_string(kernel.size()) + " dimensions, the input " + std::to_string(sp) +
                " spatial ones");
  Windows w;
  w.kernel = kernel;
  w.strides = n.getInts("strides", std::vector<int64_t>(sp, 1));
  w.dilations = n.getInts("dilations", std::vector<int64_t>(sp, 1));
  std::vector<int64_t> pads = n.getInts("pads", std::vector<int64_t>(2 * sp, 0));
  if (w.strides.size() != sp || w.dilations.size() != sp || pads.size() != 2 * sp)
    throw Error("strides, dilations or pads do not match the " + std::to_string(sp) + " spatial dimensions");
  w.padBegin.assign(pads.begin(), pads.begin() + static_cast<long>(sp));
  w.padEnd.assign(pads.begin() + static_cast<long>(sp), pads.end());
  for (size_t i = 0; i < sp; ++i) {
    const int64_t in = x[i + 2];
    const int64_t s = w.strides[i], d = w.dilations[i], k = kernel[i];
    if (s <= 0 || d <= 0 || k <= 0) throw Error("kernel, strides and dilations must be positive");
    const int64_t span = checkedSum({checkedProduct(k - 1, d), 1});
    const int64_t paddedIn = checkedSum({in, w.padBegin[i], w.padEnd[i]});
    const int64_t padded = paddedIn - span;
    if (padded < 0)
      throw Error("the window (" + std::to_string(span) + ") is larger than the padded input (" +
                  std::to_string(paddedIn) + ")");
    int64_t out = ceilMode ? (padded + s - 1) / s + 1 : padded / s + 1;
    w.out.push_back(out);
  }
  return w;
}

/// ConvTranspose geometry over the spatial dimensions of `x` ([N, C, spatial...]) with weight
/// [C, M / group, kernel...]: output o receives input i through tap k where
/// o = i * stride - padBegin + k * dilation, and out = stride * (in - 1) + output_padding +
/// (k - 1) * dilation + 1 - padBegin - padEnd. Pads are explicit (output_shape is not supported).
struct TransposedWindows {
  std::vector<int64_t> kernel, strides, dilations, padBegin, padEnd, outputPadding, out;
};

inline TransposedWindows transposedWindows(const Node& n, const std::vector<int64_t>& x,
                                           const std::vector<int64_t>& kernel) {
  const size_t sp = x.size() - 2;
  if (kernel.size() != sp)
    throw Error("kernel has " + std::to_string(kernel.size()) + " dimensions, the input " + std::to_string(sp) +
                " spatial ones");
  if (n.has("output_shape"))
    throw Error("ConvTranspose with output_shape is not supported (give pads and output_padding)");
  TransposedWindows w;
  w.kernel = kernel;
  w.strides = n.getInts("strides", std::vector<int64_t>(sp, 1));
  w.dilations = n.getInts("dilations", std::vector<int64_t>(sp, 1));
  w.outputPadding = n.getInts("output_padding", std::vector<int64_t>(sp, 0));
  const std::vector<int64_t> pads = n.getInts("pads", std::vector<int64_t>(2 * sp, 0));
  if (w.strides.size() != sp || w.dilations.size() != sp || w.outputPadding.size() != sp || pads.size() != 2 * sp)
    throw Error("strides, dilations, output_padding or pads do not match the " + std::to_string(sp) +
                " spatial dimensions");
  w.padBegin.assign(pads.begin(), pads.begin() + static_cast<long>(sp));
  w.padEnd.assign(pads.begin() + static_cast<long>(sp), pads.end());
  for (size_t i = 0; i < sp; ++i) {
    const int64_t s = w.strides[i], d = w.dilations[i], k = kernel[i];
    if (s <= 0 || d <= 0 || k <= 0) throw Error("kernel, strides and dilations must be positive");
    if (w.outputPadding[i] < 0 || w.outputPadding[i] >= std::max(s, d))
      throw Error("output_padding must be in [0, max(stride, dilation))");
    const int64_t out = checkedSum({checkedProduct(s, x[i + 2] - 1), w.outputPadding[i], checkedProduct(k - 1, d), 1,
                                    checkedProduct(-1, w.padBegin[i]), checkedProduct(-1, w.padEnd[i])});
    if (out <= 0) throw Error("the pads leave no output");
    w.out.push_back(out);
  }
  return w;
}

/// DepthToSpace: the block size and whether the input channels are ordered depth-column-row
/// (DCR, channel (i * b + j) * C' + c, the default) or column-row-depth (CRD, c * b * b + i * b + j).
struct DepthToSpace {
  int64_t block = 1;
  bool dcr = true;
  /// The input channel that output pixel phase (i, j) of output channel c reads.
  int64_t inputChannel(int64_t c, int64_t i, int64_t j, int64_t outChannels) const {
    return dcr ? (i * block + j) * outChannels + c : (c * block + i) * block + j;
  }
};

inline DepthToSpace depthToSpace(const Node& n, const std::vector<int64_t>& x) {
  DepthToSpace d{n.getInt("blocksize", 0), true};
  const std::string mode = n.getString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") throw Error("DepthToSpace mode '" + mode + "' is not DCR or CRD");
  d.dcr = mode == "DCR";
  if (d.block <= 0) throw Error("DepthToSpace needs a positive blocksize");
  if (x.size() != 4 || x[1] % (d.block * d.block) != 0)
    throw Error("DepthToSpace needs a 4-D input whose channels divide by blocksize^2, not " + shapeText(x));
  return d;
}

/// Resolved Slice parameters per axis of the input: first index, step and count.
struct SliceAxis {
  int64_t start = 0, step = 1, count = 0;
};

inline std::vector<SliceAxis> sliceAxes(const std::vector<int64_t>& shape, const std::vector<int64_t>& starts,
                                        const std::vector<int64_t>& ends, std::vector<int64_t> axes,
                                        std::vector<int64_t> steps) {
  std::vector<SliceAxis> r(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) r[i] = {0, 1, shape[i]};
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    throw Error("starts, ends, axes and steps have different lengths");
  for (size_t k = 0; k < starts.size(); ++k) {
    const size_t a = normAxis(axes[k], shape.size());
    const int64_t dim = shape[a], step = steps[k];
    if (step == 0) throw Error("a Slice step is 0");
    int64_t s = starts[k], e = ends[k];
    if (s < 0) s += dim;
    if (e < 0 && e > std::numeric_limits<int64_t>::min() / 2) e += dim;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      r[a] = {s, step, e > s ? (e - s + step - 1) / step : 0};
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      r[a] = {s, step, s > e ? (s - e + (-step) - 1) / (-step) : 0};
    }
  }
  return r;
}

/// Resize/Upsample output shape from `sizes` (if given) or `scales`.
inline std::vector<int64_t> resizeShape(const std::vector<int64_t>& in, const std::vector<float>& scales,
                                        const std::vector<int64_t>& sizes) {
  if (!sizes.empty()) {
    if (sizes.size() != in.size())
      throw Error("Resize sizes have " + std::to_string(sizes.size()) + " entries for rank " +
                  std::to_string(in.size()));
    return sizes;
  }
  if (scales.size() != in.size())
    throw Error("Resize scales have " + std::to_string(scales.size()) + " entries for rank " +
                std::to_string(in.size()));
  std::vector<int64_t> out(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    out[i] = static_cast<int64_t>(std::floor(static_cast<double>(in[i]) * static_cast<double>(scales[i])));
  return out;
}

/// Clip bounds: attributes before opset 11, optional inputs 1 and 2 from then on. `readInput(k)`
/// returns the scalar value of input k or nullopt when it is omitted.
template <typename ReadScalar>
inline std::pair<float, float> clipBounds(const Node& n, int64_t opset, ReadScalar readInput) {
  float lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
  if (opset < 11) {
    lo = static_cast<float>(n.getFloat("min", lo));
    hi = static_cast<float>(n.getFloat("max", hi));
  } else {
    if (auto v = readInput(1)) lo = *v;
    if (auto v = readInput(2)) hi = *v;
  }
  return {lo, hi};
}

/// One input of a node as the shape functions and kernels see it: type, shape and, when known
/// (a constant, or any tensor at run time), its bytes.
struct Operand {
  bool present = false;  // false for an omitted optional input
  ElemType type = ElemType::Float32;
  std::vector<int64_t> shape;
  const uint8_t* data = nullptr;
  int64_t elements() const { return product(shape); }
};

/// A node's inputs as operands: shapes and types from the graph, contents for constants.
inline std::vector<Operand> graphOperands(const Graph& g, const Node& n) {
  std::vector<Operand> in;
  for (int v : n.inputs) {
    Operand o;
    if (v >= 0) {
      const Value& val = g.values[static_cast<size_t>(v)];
      o.present = true;
      o.type = val.type;
      o.shape = val.shape;
      if (val.is_constant) o.data = val.data.data();
    }
    in.push_back(std::move(o));
  }
  return in;
}

/// Thrown when a parameter lives in an input whose contents are not known (not a constant yet).
struct NeedsData {};

inline bool present(const std::vector<Operand>& in, size_t k) { return k < in.size() && in[k].present; }

inline std::optional<std::vector<int64_t>> intsInput(const std::vector<Operand>& in, size_t k) {
  if (!present(in, k)) return std::nullopt;
  if (!in[k].data && in[k].elements() != 0) throw NeedsData{};  // an empty tensor has no bytes
  return readInts(in[k].type, in[k].data, in[k].elements());
}

inline std::optional<std::vector<float>> floatsInput(const std::vector<Operand>& in, size_t k) {
  if (!present(in, k)) return std::nullopt;
  if (!in[k].data && in[k].elements() != 0) throw NeedsData{};
  return readFloats(in[k].type, in[k].data, in[k].elements());
}

inline std::optional<float> scalarInput(const std::vector<Operand>& in, size_t k) {
  auto v = floatsInput(in, k);
  if (!v) return std::nullopt;
  if (v->size() != 1)
    throw Error("input " + std::to_string(k) + " must hold one value, not " + std::to_string(v->size()));
  return (*v)[0];
}

inline std::pair<float, float> clipBounds(const Node& n, int64_t opset, const std::vector<Operand>& in) {
  return clipBounds(n, opset, [&](size_t k) { return scalarInput(in, k); });
}

inline std::vector<SliceAxis> sliceParams(const Node& n, int64_t opset, const std::vector<Operand>& in) {
  const auto& shape = in.at(0).shape;
  if (opset < 10) return sliceAxes(shape, n.getInts("starts"), n.getInts("ends"), n.getInts("axes"), {});
  auto starts = intsInput(in, 1), ends = intsInput(in, 2);
  if (!starts || !ends) throw Error("Slice needs starts and ends");
  return sliceAxes(shape, *starts, *ends, intsInput(in, 3).value_or(std::vector<int64_t>{}),
                   intsInput(in, 4).value_or(std::vector<int64_t>{}));
}

/// Unsqueeze/Squeeze axes: an attribute before opset 13, an optional input from then on.
inline std::vector<int64_t> axesParam(const Node& n, int64_t opset, const std::vector<Operand>& in) {
  if (opset < 13) return n.getInts("axes");
  return intsInput(in, 1).value_or(std::vector<int64_t>{});
}

/// Pad: pads (begin values for every axis, then end values) and the constant fill value.
struct PadParams {
  std::vector<int64_t> pads;
  float value = 0.f;
  std::string mode;
};

inline PadParams padParams(const Node& n, int64_t opset, const std::vector<Operand>& in) {
  PadParams p;
  p.mode = n.getString("mode", "constant");
  if (opset < 11) {
    p.pads = n.getInts("pads");
    p.value = static_cast<float>(n.getFloat("value", 0.0));
  } else {
    auto pads = intsInput(in, 1);
    if (!pads) throw Error("Pad needs pads");
    p.pads = *pads;
    if (auto v = scalarInput(in, 2)) p.value = *v;
  }
  if (p.pads.size() != 2 * in.at(0).shape.size())
    throw Error("Pad has " + std::to_string(p.pads.size()) + " pads for rank " + std::to_string(in.at(0).shape.size()));
  if (p.mode != "constant" && p.mode != "reflect" && p.mode != "edge")
    throw Error("Pad mode '" + p.mode + "' is not supported");
  return p;
}

/// The input index that output index `o` of a padded axis (`begin` pads, `n` input elements)
/// copies, or -1 where constant mode fills.
inline int64_t padSource(const std::string& mode, int64_t o, int64_t begin, int64_t n) {
  int64_t i = o - begin;
  if (i >= 0 && i < n) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return std::clamp<int64_t>(i, 0, n - 1);
  // reflect (without repeating the edge)
  const int64_t period = 2 * (n - 1);
  if (period == 0) return 0;
  i = ((i % period) + period) % period;
  return i < n ? i : period - i;
}

/// Resize (opset 10: X, scales; 11+: X, roi, scales, sizes) and Upsample (X, scales).
inline std::vector<int64_t> resizeOutput(const Node& n, int64_t opset, const std::vector<Operand>& in) {
  const auto& shape = in.at(0).shape;
  if (n.op == Op::Upsample || opset < 11) {
    auto scales = floatsInput(in, 1);
    if (!scales) throw Error(n.op + " needs scales");
    return resizeShape(shape, *scales, {});
  }
  auto sizes = intsInput(in, 3);
  if (sizes && !sizes->empty()) return resizeShape(shape, {}, *sizes);
  auto scales = floatsInput(in, 2);
  if (!scales || scales->empty()) throw Error("Resize needs scales or sizes");
  return resizeShape(shape, *scales, {});
}

/// Resize (and Upsample) interpolation: mode "nearest" or "linear", the coordinate transformation,
/// the nearest rounding, and the scale of each axis (the `scales` input, or out / in from `sizes`).
struct ResizeParams {
  std::string mode, ctm, nearest;
  std::vector<double> scales;
};

inline ResizeParams resizeParams(const Node& n, int64_t opset, const std::vector<Operand>& in,
                                 const std::vector<int64_t>& out) {
  const bool legacy = n.op == Op::Upsample || opset < 11;
  ResizeParams p;
  p.mode = n.getString("mode", "nearest");
  if (p.mode != "nearest" && p.mode != "linear")
    throw Error(n.op + " mode '" + p.mode + "' is not supported (only nearest and linear)");
  p.ctm = legacy ? "asymmetric" : n.getString("coordinate_transformation_mode", "half_pixel");
  for (const char* m : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"})
    if (p.ctm == m) p.nearest = legacy ? "floor" : n.getString("nearest_mode", "round_prefer_floor");
  if (p.nearest.empty()) throw Error("coordinate_transformation_mode '" + p.ctm + "' is not supported");
  std::vector<float> scales;
  if (legacy)
    scales = floatsInput(in, 1).value_or(std::vector<float>{});
  else if (intsInput(in, 3).value_or(std::vector<int64_t>{}).empty())
    scales = floatsInput(in, 2).value_or(std::vector<float>{});
  const auto& x = in.at(0).shape;
  for (size_t d = 0; d < x.size(); ++d)
    p.scales.push_back(scales.empty() ? static_cast<double>(out[d]) / static_cast<double>(x[d])
                                      : static_cast<double>(scales[d]));
  return p;
}

/// The input coordinate that output index `o` of an axis (`in` -> `out` elements) samples.
inline double resizeSource(const ResizeParams& p, double scale, int64_t o, int64_t in, int64_t out) {
  const double x = static_cast<double>(o);
  if (p.ctm == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (p.ctm == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (p.ctm == "align_corners") return out == 1 ? 0.0 : x * static_cast<double>(in - 1) / static_cast<double>(out - 1);
  if (p.ctm == "asymmetric") return x / scale;
  return (x + 0.5) / scale;  // tf_half_pixel_for_nn
}

/// Nearest mode: the input index of every output index, per axis.
inline std::vector<std::vector<int64_t>> resizeNearestMaps(const ResizeParams& p, const std::vector<int64_t>& in,
                                                           const std::vector<int64_t>& out) {
  std::vector<std::vector<int64_t>> maps(in.size());
  for (size_t d = 0; d < in.size(); ++d)
    for (int64_t o = 0; o < out[d]; ++o) {
      const double x = resizeSource(p, p.scales[d], o, in[d], out[d]);
      int64_t i;
      if (p.nearest == "floor")
        i = static_cast<int64_t>(std::floor(x));
      else if (p.nearest == "ceil")
        i = static_cast<int64_t>(std::ceil(x));
      else if (p.nearest == "round_prefer_ceil")
        i = static_cast<int64_t>(std::floor(x + 0.5));
      else if (p.nearest == "round_prefer_floor")
        i = x - std::floor(x) == 0.5 ? static_cast<int64_t>(std::floor(x)) : static_cast<int64_t>(std::round(x));
      else
        throw Error("nearest_mode '" + p.nearest + "' is not supported");
      maps[d].push_back(std::clamp<int64_t>(i, 0, in[d] - 1));
    }
  return maps;
}

/// Linear mode along one axis: output index o blends input indices lo and hi, (1 - w) * x[lo] + w * x[hi].
struct LinearTap {
  int64_t lo = 0, hi = 0;
  double w = 0;
};

inline std::vector<LinearTap> resizeLinearTaps(const ResizeParams& p, double scale, int64_t in, int64_t out) {
  std::vector<LinearTap> taps;
  for (int64_t o = 0; o < out; ++o) {
    const double x = std::clamp(resizeSource(p, scale, o, in, out), 0.0, static_cast<double>(in - 1));
    const int64_t lo = static_cast<int64_t>(std::floor(x));
    taps.push_back({lo, std::min(lo + 1, in - 1), x - static_cast<double>(lo)});
  }
  return taps;
}

/// Reshape's target shape: 0 copies the input's dimension (unless allowzero), -1 is inferred.
inline std::vector<int64_t> reshapeTarget(const Node& n, const std::vector<Operand>& in) {
  const auto& shape = in.at(0).shape;
  auto target = intsInput(in, 1);
  if (!target) throw Error("Reshape needs a shape");
  std::vector<int64_t> out = *target;
  const bool allowZero = n.getInt("allowzero", 0) != 0;
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0 && !allowZero) {
      if (i >= shape.size())
        throw Error("Reshape copies dimension " + std::to_string(i) + " of a rank-" + std::to_string(shape.size()) +
                    " input");
      out[i] = shape[i];
    }
    if (out[i] == -1) {
      if (inferred >= 0) throw Error("Reshape shape has two -1 entries");
      inferred = static_cast<int>(i);
    } else if (out[i] < 0) {
      throw Error("Reshape shape has a negative entry");
    } else {
      known = checkedProduct(known, out[i]);
    }
  }
  const int64_t total = product(shape);
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      throw Error("cannot reshape " + shapeText(shape) + " to " + shapeText(*target));
    out[static_cast<size_t>(inferred)] = total / known;
  } else if (known != total) {
    throw Error("cannot reshape " + shapeText(shape) + " (" + std::to_string(total) + " elements) to " +
                shapeText(out));
  }
  return out;
}

/// ReduceMean and ReduceSum axes (an attribute; ReduceSum's optional input from opset 13),
/// normalized and sorted; all axes when absent, none when absent with noop_with_empty_axes.
inline std::vector<size_t> reduceAxes(const Node& n, int64_t opset, const std::vector<Operand>& in, size_t rank) {
  const bool fromInput = n.op == Op::ReduceSum && opset >= 13;
  const std::vector<int64_t> a = fromInput ? intsInput(in, 1).value_or(std::vector<int64_t>{}) : n.getInts("axes");
  std::vector<size_t> axes;
  if (a.empty() && !(fromInput && n.getInt("noop_with_empty_axes", 0) != 0))
    for (size_t i = 0; i < rank; ++i) axes.push_back(i);
  for (int64_t x : a) axes.push_back(normAxis(x, rank));
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

/// Split's output sizes along `axis`: the `split` attribute before opset 13, an optional input from
/// then on; equal parts when absent.
inline std::vector<int64_t> splitSizes(const Node& n, int64_t opset, const std::vector<Operand>& in, size_t outputs) {
  const auto& shape = in.at(0).shape;
  const size_t axis = normAxis(n.getInt("axis", 0), shape.size());
  std::vector<int64_t> sizes = opset < 13 ? n.getInts("split") : intsInput(in, 1).value_or(std::vector<int64_t>{});
  if (sizes.empty()) {
    if (outputs == 0 || shape[axis] % static_cast<int64_t>(outputs) != 0)
      throw Error("Split cannot divide dimension " + std::to_string(shape[axis]) + " into " + std::to_string(outputs) +
                  " equal parts");
    sizes.assign(outputs, shape[axis] / static_cast<int64_t>(outputs));
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) throw Error("Split has a negative size");
    total += s;
  }
  if (sizes.size() != outputs || total != shape[axis])
    throw Error("Split sizes " + shapeText(sizes) + " do not cover dimension " + std::to_string(shape[axis]) +
                " with " + std::to_string(outputs) + " outputs");
  return sizes;
}

/// Transpose's permutation (reversed axes by default), checked.
inline std::vector<int64_t> transposePerm(const Node& n, size_t rank) {
  std::vector<int64_t> perm = n.getInts("perm");
  if (perm.empty())
    for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(rank - 1 - i));
  if (perm.size() != rank)
    throw Error("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  for (int64_t& p : perm) {
    p = static_cast<int64_t>(normAxis(p, rank, "perm entry"));
    if (seen[static_cast<size_t>(p)]) throw Error("perm repeats an axis");
    seen[static_cast<size_t>(p)] = true;
  }
  return perm;
}

}  // namespace systole::compiler::ops
