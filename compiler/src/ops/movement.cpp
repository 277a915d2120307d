// Data movement and shape operators: they work on bytes, so on every element type (Reshape,
// Transpose, Concat, Split, Slice, Pad, Gather, Resize, DepthToSpace, Shape, Cast, Constant...).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ops/int8_kernel.h"
#include "ops/op_def.h"

namespace systole::compiler::float_kernels {

namespace {

/// v converted to the integer type T, saturating (NaN is 0): ONNX leaves an out-of-range Cast
/// undefined, and in C++ the plain conversion is undefined behaviour.
template <typename T>
T saturatingCast(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

/// Y's element i set to v, converted to Y's element type (Bool: v != 0).
void storeElement(HostTensor& Y, int64_t i, double v) {
  switch (Y.type) {
    case ElemType::Float32: Y.data<float>()[i] = static_cast<float>(v); break;
    case ElemType::Int64: Y.data<int64_t>()[i] = saturatingCast<int64_t>(v); break;
    case ElemType::Int32: Y.data<int32_t>()[i] = saturatingCast<int32_t>(v); break;
    case ElemType::Int8: Y.data<int8_t>()[i] = saturatingCast<int8_t>(v); break;
    case ElemType::Int16: Y.data<int16_t>()[i] = saturatingCast<int16_t>(v); break;
    case ElemType::Bool: Y.data<uint8_t>()[i] = v != 0; break;
  }
}

/// FlattenNhwc (Systole op): [N, C, H, W] -> [N, H * W * C] in (h, w, c) order, on any element type.
void flattenNhwc(const Ctx& c) {
  const auto& X = c.input(0);
  moveNhwc(X.bytes.data(), c.output().bytes.data(), X.shape.at(0), X.shape.at(1), X.shape.at(2) * X.shape.at(3),
           static_cast<size_t>(elemTypeBytes(X.type)), true);
}

/// UnflattenNhwc (Systole op, FlattenNhwc's inverse): rows [N, H * W, C] -> [N, C, H, W] with
/// y[n, c, h, w] = x[n, h * W + w, c] (attribute `height` = H), on any element type.
void unflattenNhwc(const Ctx& c) {
  auto& Y = c.output();
  moveNhwc(c.input(0).bytes.data(), Y.bytes.data(), Y.shape.at(0), Y.shape.at(1), Y.shape.at(2) * Y.shape.at(3),
           static_cast<size_t>(elemTypeBytes(Y.type)), false);
}

void copyBytes(const Ctx& c) {
  const auto& x = c.input(0);
  auto& y = c.output();
  if (x.bytes.size() != y.bytes.size()) throw Error("input and output sizes differ");
  y.bytes = x.bytes;
}

void transpose(const Ctx& c) {
  const auto& X = c.input(0);
  auto& Y = c.output();
  const size_t rank = X.shape.size();
  const auto perm = ops::transposePerm(c.n, rank);
  const size_t eb = static_cast<size_t>(elemTypeBytes(X.type));
  std::vector<int64_t> inStride(rank);
  for (size_t i = rank, s = 1; i-- > 0;) {
    inStride[i] = static_cast<int64_t>(s);
    s *= static_cast<size_t>(X.shape[i]);
  }
  Shape permStride(rank);  // input stride of each output axis
  for (size_t i = 0; i < rank; ++i) permStride[i] = inStride[static_cast<size_t>(perm[i])];
  // Walk the output in order; `off` follows in the input through the permuted strides.
  const int64_t total = Y.elements();
  std::vector<int64_t> idx(rank, 0);
  int64_t off = 0;
  const uint8_t* src = X.bytes.data();
  uint8_t* dst = Y.bytes.data();
  for (int64_t o = 0; o < total; ++o) {
    std::memcpy(dst + static_cast<size_t>(o) * eb, src + static_cast<size_t>(off) * eb, eb);
    for (size_t d = rank; d-- > 0;) {
      ++idx[d];
      off += permStride[d];
      if (idx[d] < Y.shape[d]) break;
      off -= permStride[d] * Y.shape[d];
      idx[d] = 0;
    }
  }
}

void concat(const Ctx& c) {
  auto& Y = c.output();
  const size_t axis = ops::normAxis(c.n.getInt("axis", 0), Y.shape.size());
  const size_t eb = static_cast<size_t>(elemTypeBytes(Y.type));
  const int64_t outer = ops::product(Y.shape, 0, axis);
  const size_t outChunk = static_cast<size_t>(ops::product(Y.shape, axis)) * eb;
  size_t offset = 0;
  for (size_t k = 0; k < c.in.size(); ++k) {
    const auto& X = c.input(k);
    if (X.type != Y.type) throw Error("Concat inputs have different element types");
    const size_t chunk = static_cast<size_t>(ops::product(X.shape, axis)) * eb;
    if (chunk == 0) continue;
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(Y.bytes.data() + static_cast<size_t>(o) * outChunk + offset,
                  X.bytes.data() + static_cast<size_t>(o) * chunk, chunk);
    offset += chunk;
  }
}

void split(const Ctx& c) {
  const auto& X = c.input(0);
  const size_t axis = ops::normAxis(c.n.getInt("axis", 0), X.shape.size());
  const auto sizes = ops::splitSizes(c.n, c.g.opset, c.operands, c.out.size());
  const size_t eb = static_cast<size_t>(elemTypeBytes(X.type));
  const int64_t outer = ops::product(X.shape, 0, axis), inner = ops::product(X.shape, axis + 1);
  const size_t inChunk = static_cast<size_t>(X.shape[axis] * inner) * eb;
  size_t offset = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const size_t chunk = static_cast<size_t>(sizes[k] * inner) * eb;
    if (c.out[k] && chunk > 0) {
      HostTensor& Y = c.output(k);
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(Y.bytes.data() + static_cast<size_t>(o) * chunk,
                    X.bytes.data() + static_cast<size_t>(o) * inChunk + offset, chunk);
    }
    offset += chunk;
  }
}

/// Copies elements: output position o reads input element index(o) (a multi-index map per axis).
template <typename MapAxis>
void gatherAxes(const HostTensor& X, HostTensor& Y, MapAxis map, const uint8_t* fill) {
  const size_t rank = Y.shape.size();
  const size_t eb = static_cast<size_t>(elemTypeBytes(X.type));
  std::vector<int64_t> inStride(rank);
  for (size_t i = rank, s = 1; i-- > 0;) {
    inStride[i] = static_cast<int64_t>(s);
    s *= static_cast<size_t>(X.shape[i]);
  }
  const int64_t total = Y.elements();
  Shape idx(rank);  // zeros; spelled (rank, 0), GCC 12 warns falsely (-Wfree-nonheap-object) in pad()
  for (int64_t o = 0; o < total; ++o) {
    int64_t off = 0;
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      const int64_t i = map(d, idx[d]);
      if (i < 0) {
        inside = false;
        break;
      }
      off += i * inStride[d];
    }
    std::memcpy(Y.bytes.data() + static_cast<size_t>(o) * eb,
                inside ? X.bytes.data() + static_cast<size_t>(off) * eb : fill, eb);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < Y.shape[d]) break;
      idx[d] = 0;
    }
  }
}

void slice(const Ctx& c) {
  const auto axes = ops::sliceParams(c.n, c.g.opset, c.operands);
  gatherAxes(
      c.input(0), c.output(), [&](size_t d, int64_t i) { return axes[d].start + i * axes[d].step; }, nullptr);
}

void pad(const Ctx& c) {
  const auto& X = c.input(0);
  const auto p = ops::padParams(c.n, c.g.opset, c.operands);
  HostTensor fill(X.type, {});
  storeElement(fill, 0, p.value);
  gatherAxes(
      X, c.output(), [&](size_t d, int64_t o) { return ops::padSource(p.mode, o, p.pads[d], X.shape[d]); },
      fill.bytes.data());
}

void gather(const Ctx& c) {
  const auto& X = c.input(0);
  const auto& I = c.input(1);
  auto& Y = c.output();
  const size_t axis = ops::normAxis(c.n.getInt("axis", 0), X.shape.size());
  const auto indices = ops::readInts(I.type, I.bytes.data(), I.elements());
  const int64_t outer = ops::product(X.shape, 0, axis), dim = X.shape[axis], inner = ops::product(X.shape, axis + 1);
  const size_t eb = static_cast<size_t>(elemTypeBytes(X.type));
  const size_t chunk = static_cast<size_t>(inner) * eb;
  if (chunk == 0 || indices.empty()) return;
  size_t dst = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j : indices) {
      if (j < 0) j += dim;
      if (j < 0 || j >= dim)
        throw Error("Gather index " + std::to_string(j) + " is out of range for dimension " + std::to_string(dim));
      std::memcpy(Y.bytes.data() + dst, X.bytes.data() + static_cast<size_t>((o * dim + j) * inner) * eb, chunk);
      dst += chunk;
    }
}

/// Linear interpolation, separable: each output element blends the 2^k corners of the k resized
/// axes, weighting each by the product of its per-axis weights.
void resizeLinear(const Ctx& c, const ops::ResizeParams& p) {
  const auto& X = c.input(0);
  auto& Y = c.output();
  const size_t rank = X.shape.size();
  std::vector<std::vector<ops::LinearTap>> taps(rank);
  std::vector<size_t> resized;
  for (size_t d = 0; d < rank; ++d) {
    taps[d] = ops::resizeLinearTaps(p, p.scales[d], X.shape[d], Y.shape[d]);
    if (X.shape[d] != Y.shape[d] ||
        std::any_of(taps[d].begin(), taps[d].end(), [](const ops::LinearTap& t) { return t.w != 0; }))
      resized.push_back(d);
  }
  std::vector<int64_t> inStride(rank);
  for (size_t i = rank, s = 1; i-- > 0;) {
    inStride[i] = static_cast<int64_t>(s);
    s *= static_cast<size_t>(X.shape[i]);
  }
  const float* x = c.f(0);
  float* y = c.fo();
  const int64_t total = Y.elements();
  std::vector<int64_t> idx(rank, 0);
  for (int64_t o = 0; o < total; ++o) {
    int64_t base = 0;
    for (size_t d = 0; d < rank; ++d) base += taps[d][static_cast<size_t>(idx[d])].lo * inStride[d];
    double sum = 0;
    for (uint32_t corner = 0; corner < (1u << resized.size()); ++corner) {
      double weight = 1;
      int64_t off = base;
      for (size_t k = 0; k < resized.size(); ++k) {
        const size_t d = resized[k];
        const ops::LinearTap& t = taps[d][static_cast<size_t>(idx[d])];
        const bool high = (corner >> k) & 1u;
        weight *= high ? t.w : 1 - t.w;
        if (high) off += (t.hi - t.lo) * inStride[d];
      }
      if (weight != 0) sum += weight * static_cast<double>(x[off]);
    }
    y[o] = static_cast<float>(sum);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < Y.shape[d]) break;
      idx[d] = 0;
    }
  }
}

void resize(const Ctx& c) {
  const auto& X = c.input(0);
  auto& Y = c.output();
  const auto p = ops::resizeParams(c.n, c.g.opset, c.operands, Y.shape);
  if (p.mode == "linear") return resizeLinear(c, p);
  const auto maps = ops::resizeNearestMaps(p, X.shape, Y.shape);
  gatherAxes(
      X, Y, [&](size_t d, int64_t o) { return maps[d][static_cast<size_t>(o)]; }, nullptr);
}

/// Works on bytes: output pixel (h * b + i, w * b + j) of channel c is input pixel (h, w) of the
/// channel ops::DepthToSpace::inputChannel names.
void depthToSpace(const Ctx& c) {
  const auto& X = c.input(0);
  auto& Y = c.output();
  const auto d = ops::depthToSpace(c.n, X.shape);
  const int64_t C = Y.shape[1], H = X.shape[2], W = X.shape[3], b = d.block;
  const size_t eb = static_cast<size_t>(elemTypeBytes(X.type));
  for (int64_t n = 0; n < Y.shape[0]; ++n)
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t oh = 0; oh < H * b; ++oh)
        for (int64_t ow = 0; ow < W * b; ++ow) {
          const int64_t ic = d.inputChannel(ch, oh % b, ow % b, C);
          const int64_t src = ((n * X.shape[1] + ic) * H + oh / b) * W + ow / b;
          const int64_t dst = ((n * C + ch) * H * b + oh) * W * b + ow;
          std::memcpy(Y.bytes.data() + static_cast<size_t>(dst) * eb, X.bytes.data() + static_cast<size_t>(src) * eb,
                      eb);
        }
}

void shapeOp(const Ctx& c) {
  const auto& X = c.input(0);
  auto& Y = c.output();
  const int64_t r = static_cast<int64_t>(X.shape.size());
  int64_t start = c.n.getInt("start", 0);
  if (start < 0) start += r;
  start = std::clamp<int64_t>(start, 0, r);
  int64_t* y = Y.data<int64_t>();
  for (int64_t i = 0; i < Y.elements(); ++i) y[i] = X.shape[static_cast<size_t>(start + i)];
}

void cast(const Ctx& c) {
  const auto& X = c.input(0);
  auto& Y = c.output();
  const int64_t n = X.elements();
  auto read = [&](int64_t i) -> double {
    switch (X.type) {
      case ElemType::Float32: return X.data<float>()[i];
      case ElemType::Int64: return static_cast<double>(X.data<int64_t>()[i]);
      case ElemType::Int32: return X.data<int32_t>()[i];
      case ElemType::Int8: return X.data<int8_t>()[i];
      case ElemType::Int16: return X.data<int16_t>()[i];
      case ElemType::Bool: return X.data<uint8_t>()[i];
    }
    return 0;
  };
  for (int64_t i = 0; i < n; ++i) storeElement(Y, i, read(i));
}

/// ConstantOfShape: the output (shape given by input 0) filled with the `value` attribute (0 if absent).
void constantOfShape(const Ctx& c) {
  const auto& S = c.input(0);
  auto& Y = c.output();
  if (ops::readInts(S.type, S.bytes.data(), S.elements()) != Y.shape ||
      Y.bytes.size() != static_cast<size_t>(Y.elements() * elemTypeBytes(Y.type)))
    throw Error("ConstantOfShape: the output does not have the requested shape");
  const double v = c.n.getFloat("value", 0.0);
  for (int64_t i = 0; i < Y.elements(); ++i) storeElement(Y, i, v);
}

/// Expand: the input broadcast (numpy's rules) with the shape input, bytes of any element type.
void expand(const Ctx& c) {
  const auto& X = c.input(0);
  auto& Y = c.output();
  const size_t bytes = static_cast<size_t>(elemTypeBytes(X.type));
  forEachBroadcast(Y.shape, {X.shape}, [&](int64_t o, const std::vector<int64_t>& off) {
    std::memcpy(Y.bytes.data() + static_cast<size_t>(o) * bytes, X.bytes.data() + static_cast<size_t>(off[0]) * bytes,
                bytes);
  });
}

void constant(const Ctx& c) {
  auto& Y = c.output();
  if (c.n.has("value_float"))
    Y.data<float>()[0] = static_cast<float>(c.n.getFloat("value_float", 0));
  else if (c.n.has("value_int"))
    Y.data<int64_t>()[0] = c.n.getInt("value_int", 0);
  else if (c.n.has("value_floats")) {
    const auto v = c.n.getFloats("value_floats");
    for (size_t i = 0; i < v.size(); ++i) Y.data<float>()[i] = static_cast<float>(v[i]);
  } else if (c.n.has("value_ints")) {
    const auto v = c.n.getInts("value_ints");
    for (size_t i = 0; i < v.size(); ++i) Y.data<int64_t>()[i] = v[i];
  } else {
    throw Error("Constant without a value attribute");
  }
}

}  // namespace

}  // namespace systole::compiler::float_kernels

// ---- int8 kernels (docs/quantized-ops.md: Concat) ----

namespace systole::compiler::int8_kernels {

namespace {

void concat(const Graph&, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  const int64_t rank = static_cast<int64_t>(y.shape.size());
  int64_t axis = n.getInt("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) throw Error("'axis' out of range");
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= y.shape[static_cast<size_t>(d)];
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d) inner *= y.shape[static_cast<size_t>(d)];
  int64_t offset = 0;
  const int64_t rowOut = y.shape[static_cast<size_t>(axis)] * inner;
  for (const HostTensor* t : in) {
    expectActivation(t, "Concat input", &y);
    if (static_cast<int64_t>(t->shape.size()) != rank) throw Error("Concat inputs must have the output's rank");
    const int64_t rowIn = t->shape[static_cast<size_t>(axis)] * inner;
    if (offset + rowIn > rowOut || t->elements() != outer * rowIn)
      throw Error("Concat input shapes do not fit the output");
    const auto lane = static_cast<size_t>(elemTypeBytes(y.type));
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y.bytes.data() + static_cast<size_t>(o * rowOut + offset) * lane,
                  t->bytes.data() + static_cast<size_t>(o * rowIn) * lane, static_cast<size_t>(rowIn) * lane);
    offset += rowIn;
  }
  if (offset != rowOut) throw Error("Concat inputs do not fill the output");
}

}  // namespace

}  // namespace systole::compiler::int8_kernels

namespace systole::compiler {

namespace {

// ---- shapes ----

ElemType castTarget(int64_t to) {
  switch (to) {
    case 1: return ElemType::Float32;
    case 3: return ElemType::Int8;
    case 6: return ElemType::Int32;
    case 7: return ElemType::Int64;
    case 9: return ElemType::Bool;
    default: throw Error("Cast to ONNX type " + std::to_string(to) + " is not supported");
  }
}

std::vector<OutputInfo> sameShape(const ShapeCtx& c) { return c.same(c.x().shape); }

std::vector<OutputInfo> dropoutShape(const ShapeCtx& c) {
  auto out = c.same(c.x().shape);
  if (out.size() > 1) out[1].type = ElemType::Float32;  // the mask (bool in ONNX) must go unused
  return out;
}

std::vector<OutputInfo> castShape(const ShapeCtx& c) {
  return {OutputInfo{castTarget(c.n.getInt("to", 1)), c.x().shape}};
}

std::vector<OutputInfo> constantOfShapeShape(const ShapeCtx& c) {
  auto shape = ops::intsInput(c.in, 0);
  if (!shape) throw Error("ConstantOfShape needs its shape input");
  for (int64_t d : *shape)
    if (d < 0) throw Error("ConstantOfShape with a negative dimension");
  return {OutputInfo{castTarget(c.n.getInt("value_type", 1)), *shape}};
}

std::vector<OutputInfo> expandShape(const ShapeCtx& c) {
  c.need(2);
  const auto shape = ops::intsInput(c.in, 1);
  for (int64_t d : *shape)
    if (d < 0) throw Error("Expand with a negative dimension");
  return c.same(ops::broadcast(c.x().shape, *shape));
}

std::vector<OutputInfo> flattenShape(const ShapeCtx& c) {
  const size_t rank = c.rank();
  const int64_t axis = c.n.getInt("axis", 1);
  const size_t a = axis == static_cast<int64_t>(rank) ? rank : ops::normAxis(axis, rank);
  return c.same({ops::product(c.x().shape, 0, a), ops::product(c.x().shape, a)});
}

std::vector<OutputInfo> flattenNhwcShape(const ShapeCtx& c) {
  if (c.rank() != 4) throw Error("FlattenNhwc needs a 4-D input");
  return c.same({c.x().shape[0], ops::product(c.x().shape, 1)});
}

std::vector<OutputInfo> unflattenNhwcShape(const ShapeCtx& c) {
  const auto& x = c.x().shape;
  const int64_t h = c.n.getInt("height", 0);
  if (x.size() != 3 || h < 1 || x[1] % h != 0)
    throw Error("UnflattenNhwc needs rows [N, H * W, C] and a height H that divides H * W");
  return c.same({x[0], x[2], h, x[1] / h});
}

std::vector<OutputInfo> reshapeShape(const ShapeCtx& c) {
  c.need(2);
  return c.same(ops::reshapeTarget(c.n, c.in));
}

std::vector<OutputInfo> transposeShape(const ShapeCtx& c) {
  const size_t rank = c.rank();
  const auto perm = ops::transposePerm(c.n, rank);
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) shape[i] = c.x().shape[static_cast<size_t>(perm[i])];
  return c.same(shape);
}

std::vector<OutputInfo> concatShape(const ShapeCtx& c) {
  const size_t rank = c.rank();
  const auto& x = c.x();
  const size_t axis = ops::normAxis(c.n.getInt("axis", 0), rank);
  std::vector<int64_t> shape = x.shape;
  for (size_t k = 1; k < c.in.size(); ++k) {
    const auto& s = c.in[k].shape;
    if (s.size() != rank) throw Error("Concat inputs have different ranks");
    for (size_t i = 0; i < rank; ++i)
      if (i != axis && s[i] != shape[i])
        throw Error("Concat inputs " + ops::shapeText(x.shape) + " and " + ops::shapeText(s) + " differ outside axis " +
                    std::to_string(axis));
    shape[axis] = ops::checkedSum({shape[axis], s[axis]});
  }
  return c.same(shape);
}

std::vector<OutputInfo> splitShape(const ShapeCtx& c) {
  const size_t axis = ops::normAxis(c.n.getInt("axis", 0), c.rank());
  const auto sizes = ops::splitSizes(c.n, c.opset, c.in, c.n.outputs.size());
  std::vector<OutputInfo> out;
  for (int64_t s : sizes) {
    OutputInfo o{c.x().type, c.x().shape};
    o.shape[axis] = s;
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<OutputInfo> sliceShape(const ShapeCtx& c) {
  const auto axes = ops::sliceParams(c.n, c.opset, c.in);
  std::vector<int64_t> shape;
  for (const auto& a : axes) shape.push_back(a.count);
  return c.same(shape);
}

std::vector<OutputInfo> padShape(const ShapeCtx& c) {
  const size_t rank = c.rank();
  const auto& x = c.x();
  const auto p = ops::padParams(c.n, c.opset, c.in);
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    shape[i] = ops::checkedSum({x.shape[i], p.pads[i], p.pads[i + rank]});
    if (shape[i] < 0) throw Error("Pad removes more than the whole dimension " + std::to_string(i));
    if (p.mode == "reflect" && (p.pads[i] >= x.shape[i] || p.pads[i + rank] >= x.shape[i]))
      throw Error("reflect padding must be smaller than the dimension");
  }
  return c.same(shape);
}

std::vector<OutputInfo> resizeShape(const ShapeCtx& c) {
  const auto shape = ops::resizeOutput(c.n, c.opset, c.in);
  ops::resizeParams(c.n, c.opset, c.in, shape);  // mode and coordinate transformation are supported
  return c.same(shape);
}

std::vector<OutputInfo> depthToSpaceShape(const ShapeCtx& c) {
  const auto& x = c.x().shape;
  const int64_t b = ops::depthToSpace(c.n, x).block;
  return c.same({x[0], x[1] / (b * b), x[2] * b, x[3] * b});
}

std::vector<OutputInfo> shapeShape(const ShapeCtx& c) {
  const int64_t r = static_cast<int64_t>(c.rank());
  int64_t start = c.n.getInt("start", 0), end = c.n.getInt("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  return {OutputInfo{ElemType::Int64, {std::max<int64_t>(0, end - start)}}};
}

std::vector<OutputInfo> gatherShape(const ShapeCtx& c) {
  c.need(2);
  const auto& x = c.x().shape;
  const size_t axis = ops::normAxis(c.n.getInt("axis", 0), c.rank());
  std::vector<int64_t> shape(x.begin(), x.begin() + static_cast<long>(axis));
  shape.insert(shape.end(), c.in[1].shape.begin(), c.in[1].shape.end());
  shape.insert(shape.end(), x.begin() + static_cast<long>(axis) + 1, x.end());
  return c.same(shape);
}

std::vector<OutputInfo> unsqueezeShape(const ShapeCtx& c) {
  const auto axes = ops::axesParam(c.n, c.opset, c.in);
  const size_t outRank = c.rank() + axes.size();
  std::vector<bool> inserted(outRank, false);
  for (int64_t a : axes) {
    const size_t i = ops::normAxis(a, outRank);
    if (inserted[i]) throw Error("Unsqueeze repeats an axis");
    inserted[i] = true;
  }
  std::vector<int64_t> shape;
  size_t src = 0;
  for (size_t i = 0; i < outRank; ++i) shape.push_back(inserted[i] ? 1 : c.x().shape[src++]);
  return c.same(shape);
}

std::vector<OutputInfo> squeezeShape(const ShapeCtx& c) {
  const size_t rank = c.rank();
  const auto& x = c.x().shape;
  const auto axes = ops::axesParam(c.n, c.opset, c.in);
  std::vector<bool> removed(rank, false);
  if (axes.empty())
    for (size_t i = 0; i < rank; ++i) removed[i] = x[i] == 1;
  for (int64_t a : axes) {
    const size_t i = ops::normAxis(a, rank);
    if (x[i] != 1) throw Error("Squeeze axis " + std::to_string(a) + " has size " + std::to_string(x[i]));
    removed[i] = true;
  }
  std::vector<int64_t> shape;
  for (size_t i = 0; i < rank; ++i)
    if (!removed[i]) shape.push_back(x[i]);
  return c.same(shape);
}

std::vector<OutputInfo> constantShape(const ShapeCtx& c) {
  const Node& n = c.n;
  if (n.has("value_float")) return {OutputInfo{ElemType::Float32, {}}};
  if (n.has("value_int")) return {OutputInfo{ElemType::Int64, {}}};
  if (n.has("value_floats"))
    return {OutputInfo{ElemType::Float32, {static_cast<int64_t>(n.getFloats("value_floats").size())}}};
  if (n.has("value_ints")) return {OutputInfo{ElemType::Int64, {static_cast<int64_t>(n.getInts("value_ints").size())}}};
  throw Error("Constant without a value attribute");
}

}  // namespace

void defineMovementOps(OpTable& t) {
  using namespace float_kernels;
  t.floatKernels({
      {Op::Identity, copyBytes},
      {Op::Dropout, copyBytes},
      {Op::Flatten, copyBytes},
      {Op::FlattenNhwc, flattenNhwc},
      {Op::UnflattenNhwc, unflattenNhwc},
      {Op::Reshape, copyBytes},
      {Op::Squeeze, copyBytes},
      {Op::Unsqueeze, copyBytes},
      {Op::Transpose, transpose},
      {Op::Concat, concat},
      {Op::Split, split},
      {Op::Slice, slice},
      {Op::Pad, pad},
      {Op::Gather, gather},
      {Op::Resize, resize},
      {Op::DepthToSpace, depthToSpace},
      {Op::Upsample, resize},
      {Op::Shape, shapeOp},
      {Op::Cast, cast},
      {Op::Constant, constant},
      {Op::ConstantOfShape, constantOfShape},
      {Op::Expand, expand},
  });
  t.shapes({
      {Op::Identity, sameShape},
      {Op::Dropout, dropoutShape},
      {Op::Cast, castShape},
      {Op::ConstantOfShape, constantOfShapeShape},
      {Op::Flatten, flattenShape},
      {Op::FlattenNhwc, flattenNhwcShape},
      {Op::UnflattenNhwc, unflattenNhwcShape},
      {Op::Reshape, reshapeShape},
      {Op::Transpose, transposeShape},
      {Op::Concat, concatShape},
      {Op::Split, splitShape},
      {Op::Slice, sliceShape},
      {Op::Pad, padShape},
      {Op::Resize, resizeShape},
      {Op::Upsample, resizeShape},
      {Op::DepthToSpace, depthToSpaceShape},
      {Op::Shape, shapeShape},
      {Op::Gather, gatherShape},
      {Op::Unsqueeze, unsqueezeShape},
      {Op::Squeeze, squeezeShape},
      {Op::Constant, constantShape},
      {Op::Expand, expandShape},
  });
  t[Op::Constant].min_inputs = 0;
  t.flag(kImported,
         {Op::Cast,   Op::Concat,   Op::Constant,  Op::DepthToSpace, Op::Dropout,  Op::Expand,         Op::Flatten,
          Op::Gather, Op::Identity, Op::Pad,       Op::Reshape,      Op::Resize,   Op::Shape,          Op::Slice,
          Op::Split,  Op::Squeeze,  Op::Transpose, Op::Unsqueeze,    Op::Upsample, Op::ConstantOfShape});
  t.flag(kByteCopy, {Op::Identity, Op::Dropout, Op::Flatten, Op::Reshape, Op::Squeeze, Op::Unsqueeze});
  t.int8Form(Int8Form::Move,
             {Op::Reshape, Op::Flatten, Op::FlattenNhwc, Op::UnflattenNhwc, Op::Squeeze, Op::Unsqueeze, Op::Identity,
              Op::Transpose, Op::Slice, Op::Gather, Op::DepthToSpace, Op::Resize, Op::Upsample, Op::Pad});
  t.int8Form(Int8Form::Concat, {Op::Concat});
  t.int8Kernels({{Op::Concat, int8_kernels::concat}});
}

}  // namespace systole::compiler
