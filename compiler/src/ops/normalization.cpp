// Normalizations and reductions: BatchNormalization, LayerNormalization, Softmax, ReduceMean,
// ReduceSum and ReduceMax.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/int8_kernel.h"
#include "ops/op_def.h"
#include "systole/isa/arith.h"

namespace systole::compiler::float_kernels {

namespace {

void batchNorm(const Ctx& c) {
  const auto& X = c.input(0);
  const double eps = c.n.getFloat("epsilon", 1e-5);
  const float *x = c.f(0), *scale = c.f(1), *bias = c.f(2), *mean = c.f(3), *var = c.f(4);
  float* y = c.fo();
  const int64_t N = X.shape[0], C = X.shape[1], size = ops::product(X.shape, 2);
  for (int64_t ch = 0; ch < C; ++ch) {
    const float s = static_cast<float>(scale[ch] / std::sqrt(static_cast<double>(var[ch]) + eps));
    const float b = bias[ch] - mean[ch] * s;
    for (int64_t n = 0; n < N; ++n) {
      const int64_t base = (n * C + ch) * size;
      for (int64_t i = 0; i < size; ++i) y[base + i] = x[base + i] * s + b;
    }
  }
}

void layerNorm(const Ctx& c) {
  const auto& X = c.input(0);
  const size_t axis = ops::normAxis(c.n.getInt("axis", -1), X.shape.size());
  const double eps = c.n.getFloat("epsilon", 1e-5);
  const Shape normShape(X.shape.begin() + static_cast<long>(axis), X.shape.end());
  const int64_t outer = ops::product(X.shape, 0, axis), inner = ops::product(normShape);
  // Scale and bias broadcast to the normalized shape once.
  std::vector<float> scale(static_cast<size_t>(inner), 1.f), bias(static_cast<size_t>(inner), 0.f);
  auto expand = [&](size_t k, std::vector<float>& dst) {
    const float* p = c.f(k);
    forEachBroadcast(normShape, {c.input(k).shape},
                     [&](int64_t o, const std::vector<int64_t>& off) { dst[static_cast<size_t>(o)] = p[off[0]]; });
  };
  expand(1, scale);
  if (c.has(2)) expand(2, bias);
  const float* x = c.f(0);
  float* y = c.fo();
  float* meanOut = c.out.size() > 1 && c.out[1] ? c.fo(1) : nullptr;
  float* invOut = c.out.size() > 2 && c.out[2] ? c.fo(2) : nullptr;
  for (int64_t o = 0; o < outer; ++o) {
    const float* xr = x + o * inner;
    float* yr = y + o * inner;
    double mean = 0;
    for (int64_t i = 0; i < inner; ++i) mean += xr[i];
    mean /= static_cast<double>(inner);
    double var = 0;
    for (int64_t i = 0; i < inner; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    var /= static_cast<double>(inner);
    const double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t i = 0; i < inner; ++i)
      yr[i] = static_cast<float>((xr[i] - mean) * inv) * scale[static_cast<size_t>(i)] + bias[static_cast<size_t>(i)];
    if (meanOut) meanOut[o] = static_cast<float>(mean);
    if (invOut) invOut[o] = static_cast<float>(inv);
  }
}

void softmax(const Ctx& c) {
  const auto& X = c.input(0);
  const size_t rank = X.shape.size();
  const bool legacy = c.g.opset < 13;
  const size_t axis = ops::normAxis(c.n.getInt("axis", legacy ? 1 : -1), rank);
  // Before opset 13 the input is coerced to 2-D at `axis`; from 13 on only `axis` is reduced.
  const int64_t outer = ops::product(X.shape, 0, axis);
  const int64_t len = legacy ? ops::product(X.shape, axis) : X.shape[axis];
  const int64_t inner = legacy ? 1 : ops::product(X.shape, axis + 1);
  const float* x = c.f(0);
  float* y = c.fo();
  // Systole's masked form (attention-layout): input 1 keeps (1) or masks (0) each element of the
  // last axis, its rows repeating over the others' (a causal mask); masked elements are 0.
  const float* keep = c.has(1) ? c.f(1) : nullptr;
  const int64_t keepRows = keep ? c.input(1).elements() / len : 1;
  if (keep && (inner != 1 || keepRows * len != c.input(1).elements()))
    throw Error("a masked Softmax reduces its last axis, and its mask has whole rows of it");
  const auto kept = [&](int64_t o, int64_t k) { return !keep || keep[(o % keepRows) * len + k] != 0.0f; };
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * len * inner + i;
      float mx = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < len; ++k)
        if (kept(o, k)) mx = std::max(mx, x[base + k * inner]);
      double sum = 0;
      for (int64_t k = 0; k < len; ++k) {
        const float e = kept(o, k) ? std::exp(x[base + k * inner] - mx) : 0.0f;
        y[base + k * inner] = e;
        sum += e;
      }
      const float inv = sum > 0 ? static_cast<float>(1.0 / sum) : 0.0f;  // every element masked: all 0
      for (int64_t k = 0; k < len; ++k) y[base + k * inner] *= inv;
    }
}

/// ReduceMean, ReduceSum and ReduceMax: sums in double over the reduced axes, divided by their
/// size for a mean; or the maximum.
void reduce(const Ctx& c) {
  const auto& X = c.input(0);
  const size_t rank = X.shape.size();
  const auto axes = ops::reduceAxes(c.n, c.g.opset, c.operands, rank);
  Shape kept = X.shape;  // the output shape with reduced axes kept as 1
  int64_t count = 1;
  for (size_t a : axes) {
    count *= X.shape[a];
    kept[a] = 1;
  }
  const bool max = c.n.op == Op::ReduceMax;
  std::vector<double> acc(static_cast<size_t>(ops::product(kept)),
                          max ? -std::numeric_limits<double>::infinity() : 0.0);
  const float* x = c.f(0);
  // Walk the input; each element goes into its output position (`kept` broadcast over the input).
  forEachBroadcast(X.shape, {X.shape, kept}, [&](int64_t, const std::vector<int64_t>& off) {
    double& a = acc[static_cast<size_t>(off[1])];
    a = max ? std::max(a, double{x[off[0]]}) : a + x[off[0]];
  });
  float* y = c.fo();
  const double divisor = c.n.op == Op::ReduceMean ? static_cast<double>(count) : 1.0;
  for (size_t i = 0; i < acc.size(); ++i) y[i] = static_cast<float>(acc[i] / divisor);
}

}  // namespace

}  // namespace systole::compiler::float_kernels

namespace systole::compiler::int8_kernels {

namespace {

/// Softmax over the last axis, as the vector unit computes it (docs/quantized-ops.md), row by row:
///   M = max_j (x_j - zx)                                        vector_max, vector_widen, vector_reduce
///   i_j = requantize(M - (x_j - zx), index multiplier, zp -128)  vector_widen (x -1), vector_add, requantize
///   e_j = 256 hi[i_j] + lo[i_j] + 128 (round(32767 exp(-t (i_j + 128))), two tables)
///                                                               vector_lut x 2, vector_widen x 2, vector_add
///   Z = sum_j e_j,  R = floor(2^recip_shift / Z)                 vector_add, vector_reduce, vector_recip
///   y_j = requantize(e_j * R, multiplier, zy)                     vector_mul, requantize
void softmax(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectType(in.at(0), ElemType::Int8, "Softmax input");
  const int32_t zx = perTensorQuant(g, n.inputs[0]).zero_point;
  const Requantizer out(n, 1, perTensorQuant(g, n.outputs.at(0)).zero_point, false, 8);  // int8 only (its tables)
  const std::vector<int64_t> hi = intsAttr(n, "table"), lo = intsAttr(n, "table_lo");
  if (hi.size() != 256 || lo.size() != 256) throw Error("a Softmax's 'table' and 'table_lo' have 256 entries");
  const int32_t im = intAttr(n, "index_multiplier"), is = intAttr(n, "index_shift"), rs = intAttr(n, "recip_shift");
  const int64_t len = in[0]->shape.empty() ? 1 : in[0]->shape.back();
  // The masked form: input 1 (int8, 1 = masked) has whole rows, repeating over x's rows.
  const int8_t* mask = in.size() > 1 && in[1] ? in[1]->data<int8_t>() : nullptr;
  const int32_t push = mask ? intAttr(n, "mask_push") : 0;  // below -128 for the max, past the table for d
  const int64_t maskRows = mask && len > 0 ? in[1]->elements() / len : 1;
  if (mask && maskRows * len != in[1]->elements()) throw Error("a masked Softmax's mask has whole rows");
  const int8_t* x = in[0]->data<int8_t>();
  int8_t* yd = y.data<int8_t>();
  std::vector<int32_t> e(static_cast<size_t>(len));
  for (int64_t r = 0; len > 0 && r < in[0]->elements() / len; ++r) {
    const int8_t* xr = x + r * len;
    const int8_t* mr = mask ? mask + (r % maskRows) * len : nullptr;
    // The max of the kept elements (a masked one is pushed below -128 and clamped there).
    int8_t top = isa::arith::kActMin;
    for (int64_t j = 0; j < len; ++j)
      top = std::max(top, mr ? arith::requantize(arith::add(arith::widen(xr[j], 0, 1), arith::widen(mr[j], 0, -push)),
                                                 1 << 30, 30, 0, isa::arith::kActMin, isa::arith::kActMax)
                             : xr[j]);
    const int32_t M = arith::widen(top, zx, 1);
    int32_t Z = 0;
    for (int64_t j = 0; j < len; ++j) {
      int32_t d = arith::add(arith::widen(xr[j], zx, -1), M);
      if (mr) d = arith::add(d, arith::widen(mr[j], 0, push));  // past the table's end: e = 0
      const auto k = static_cast<size_t>(
          arith::lutIndex(arith::requantize(d, im, is, isa::arith::kActMin, isa::arith::kActMin, isa::arith::kActMax)));
      e[static_cast<size_t>(j)] = arith::add(arith::widen(static_cast<int8_t>(hi[k]), 0, 256),
                                             arith::widen(static_cast<int8_t>(lo[k]), isa::arith::kActMin, 1));
      Z = arith::add(Z, e[static_cast<size_t>(j)]);
    }
    const int32_t R = arith::reciprocal(Z, rs);
    for (int64_t j = 0; j < len; ++j) yd[r * len + j] = out(arith::mul(e[static_cast<size_t>(j)], R), 0);
  }
}

/// LayerNormalization over the last axis, as the vector unit computes it (docs/quantized-ops.md),
/// row by row, with X_j = x_j - zx and C the row's length:
///   D_j = C X_j - sum X,  D'_j = requantize(D_j, stats multiplier)          vector_widen, vector_add, requantize
///   V = sum D'_j^2 + epsilon_q,  R = floor(2^k / sqrt(V))                  vector_mul, vector_add, vector_reduce,
///   vector_recip t_j = requantize(D_j R, gamma multiplier_j)                             vector_mul, requantize y_j =
///   requantize(256 t_j + beta_q_j, multiplier, zy)                    vector_widen, vector_add, requantize
void layerNorm(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectType(in.at(0), ElemType::Int8, "LayerNormalization input");
  const int32_t zx = perTensorQuant(g, n.inputs[0]).zero_point;
  const int64_t C = in[0]->shape.empty() ? 1 : in[0]->shape.back();
  const Requantizer out(n, 1, perTensorQuant(g, n.outputs.at(0)).zero_point, false, 8);  // int8 only
  const std::vector<int64_t> gm = intsAttr(n, "gamma_multiplier"), gs = intsAttr(n, "gamma_shift"),
                             bq = intsAttr(n, "beta_q");
  if (static_cast<int64_t>(gm.size()) != C || gs.size() != gm.size() || bq.size() != gm.size())
    throw Error("a LayerNormalization's gamma and beta attributes have one entry per channel");
  const int32_t sm = intAttr(n, "stats_multiplier"), ss = intAttr(n, "stats_shift"), eq = intAttr(n, "epsilon_q"),
                k = intAttr(n, "rsqrt_shift");
  const auto c32 = static_cast<int32_t>(C);
  const int8_t* x = in[0]->data<int8_t>();
  int8_t* yd = y.data<int8_t>();
  std::vector<int32_t> d(static_cast<size_t>(C));
  for (int64_t r = 0; C > 0 && r < in[0]->elements() / C; ++r) {
    const int8_t* xr = x + r * C;
    int32_t negSum = 0, V = 0;
    for (int64_t j = 0; j < C; ++j) negSum = arith::add(negSum, arith::widen(xr[j], zx, -1));
    for (int64_t j = 0; j < C; ++j) {
      d[static_cast<size_t>(j)] = arith::add(arith::widen(xr[j], zx, c32), negSum);
      const int32_t half = arith::widen(
          arith::requantize(d[static_cast<size_t>(j)], sm, ss, 0, isa::arith::kActMin, isa::arith::kActMax), 0, 1);
      V = arith::add(V, arith::mul(half, half));
    }
    const int32_t R = arith::reciprocalSqrt(arith::add(V, eq), k);
    for (int64_t j = 0; j < C; ++j) {
      const auto c = static_cast<size_t>(j);
      const int8_t t = arith::requantize(arith::mul(d[c], R), static_cast<int32_t>(gm[c]), static_cast<int32_t>(gs[c]),
                                         0, isa::arith::kActMin, isa::arith::kActMax);
      yd[r * C + j] = out(arith::add(arith::widen(t, 0, 256), static_cast<int32_t>(bq[c])), 0);
    }
  }
}

}  // namespace

}  // namespace systole::compiler::int8_kernels

namespace systole::compiler {

namespace {

// ---- shapes ----

std::vector<OutputInfo> batchNormShape(const ShapeCtx& c) {
  c.need(5);
  const auto& x = c.x();
  if (c.n.getInt("training_mode", 0) != 0) throw Error("BatchNormalization in training mode is not supported");
  if (c.n.getInt("spatial", 1) != 1) throw Error("BatchNormalization with spatial=0 is not supported");
  if (c.rank() < 2) throw Error("BatchNormalization input needs a channel dimension");
  for (size_t k = 1; k < 5; ++k)
    if (c.in[k].elements() != x.shape[1])
      throw Error("BatchNormalization parameter " + std::to_string(k) + " has " + std::to_string(c.in[k].elements()) +
                  " values for " + std::to_string(x.shape[1]) + " channels");
  auto out = c.same(x.shape);
  for (size_t k = 1; k < out.size(); ++k) out[k].shape = {x.shape[1]};
  return out;
}

std::vector<OutputInfo> layerNormShape(const ShapeCtx& c) {
  c.need(2);
  const auto& x = c.x();
  const size_t rank = c.rank();
  const size_t axis = ops::normAxis(c.n.getInt("axis", -1), rank);
  std::vector<int64_t> normShape(x.shape.begin() + static_cast<long>(axis), x.shape.end());
  if (ops::broadcast(c.in[1].shape, normShape) != normShape)
    throw Error("LayerNormalization scale does not match the normalized dimensions");
  if (ops::present(c.in, 2) && ops::broadcast(c.in[2].shape, normShape) != normShape)
    throw Error("LayerNormalization bias does not match the normalized dimensions");
  auto out = c.same(x.shape);
  for (size_t k = 1; k < out.size(); ++k) {
    out[k].shape = x.shape;
    for (size_t i = axis; i < rank; ++i) out[k].shape[i] = 1;
  }
  return out;
}

std::vector<OutputInfo> softmaxShape(const ShapeCtx& c) { return c.same(c.x().shape); }

std::vector<OutputInfo> reduceShape(const ShapeCtx& c) {
  const size_t rank = c.rank();
  const auto axes = ops::reduceAxes(c.n, c.opset, c.in, rank);
  const bool keep = c.n.getInt("keepdims", 1) != 0;
  std::vector<int64_t> shape;
  for (size_t i = 0; i < rank; ++i) {
    const bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!reduced)
      shape.push_back(c.x().shape[i]);
    else if (keep)
      shape.push_back(1);
  }
  return c.same(shape);
}

}  // namespace

void defineNormalizationOps(OpTable& t) {
  using namespace float_kernels;
  t.floatKernels({
      {Op::BatchNormalization, batchNorm},
      {Op::LayerNormalization, layerNorm},
      {Op::Softmax, softmax},
      {Op::ReduceMean, reduce},
      {Op::ReduceSum, reduce},
      {Op::ReduceMax, reduce},
  });
  t.shapes({
      {Op::BatchNormalization, batchNormShape},
      {Op::LayerNormalization, layerNormShape},
      {Op::Softmax, softmaxShape},
      {Op::ReduceMean, reduceShape},
      {Op::ReduceSum, reduceShape},
      {Op::ReduceMax, reduceShape},
  });
  t.flag(kImported,
         {Op::BatchNormalization, Op::LayerNormalization, Op::ReduceMax, Op::ReduceMean, Op::ReduceSum, Op::Softmax});
  t[Op::LayerNormalization].since_opset = 17;
  t.int8Kernels({{Op::Softmax, int8_kernels::softmax}, {Op::LayerNormalization, int8_kernels::layerNorm}});
  t.int8Form(Int8Form::Softmax, {Op::Softmax});
  t.int8Form(Int8Form::LayerNorm, {Op::LayerNormalization});
}

}  // namespace systole::compiler
