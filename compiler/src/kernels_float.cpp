// Algorithm: one plain-loop kernel per operator, float32 arithmetic (int64/int32 for the shape
// computations torch exports: Shape, Gather, Concat, Add...); data movement (Reshape, Transpose,
// Concat, Split, Slice, Gather, Pad...) works on bytes and so on every element type. Output tensors arrive
// shaped from the graph; parameters that may live in attributes or inputs, and all window geometry,
// come from src/float_ops.h, the same code the shape-inference pass uses. Loops are ordered so the
// innermost one walks contiguous memory (Conv: im2col, then the blocked GEMM of float_gemm.h; MatMul: i-k-j).
// Fused forms: Conv/Gemm/MatMul/Add with attribute "activation" ("relu", or "clip" with
// clip_min/clip_max), MatMul with a third (bias) input, LayerNormalization and Gelu.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numbers>

#include "float_gemm.h"
#include "float_ops.h"
#include "systole/compiler/interpreter.h"

namespace systole::compiler {

namespace {

using ops::Operand;
using Shape = std::vector<int64_t>;

struct Ctx {
  const Graph& g;
  const Node& n;
  const std::vector<const HostTensor*>& in;
  std::vector<HostTensor*>& out;
  std::vector<Operand> operands;

  const HostTensor& input(size_t k) const {
    if (k >= in.size() || !in[k]) throw Error("input " + std::to_string(k) + " is missing");
    return *in[k];
  }
  bool has(size_t k) const { return k < in.size() && in[k] != nullptr; }
  HostTensor& output(size_t k = 0) const {
    if (k >= out.size() || !out[k]) throw Error("output " + std::to_string(k) + " is missing");
    return *out[k];
  }
  const float* f(size_t k) const { return requireFloat(input(k)).data<float>(); }
  float* fo(size_t k = 0) const { return requireFloat(output(k)).data<float>(); }

  static const HostTensor& requireFloat(const HostTensor& t) {
    if (t.type != ElemType::Float32) throw Error("expects float32 tensors, got " + std::string(elemTypeName(t.type)));
    return t;
  }
  static HostTensor& requireFloat(HostTensor& t) {
    if (t.type != ElemType::Float32) throw Error("expects float32 tensors, got " + std::string(elemTypeName(t.type)));
    return t;
  }
};

// ---- Element-wise ------------------------------------------------------------------------------

/// Calls body(outIndex, inOffsets...) for every output element, with numpy broadcasting. The
/// innermost dimension is a tight loop over strided offsets.
template <typename Body>
void forEachBroadcast(const Shape& outShape, const std::vector<Shape>& inShapes, Body body) {
  const size_t r = outShape.size();
  const size_t k = inShapes.size();
  std::vector<Shape> strides;
  for (const auto& s : inShapes) strides.push_back(ops::broadcastStrides(s, outShape));
  const int64_t total = ops::product(outShape);
  if (total == 0) return;
  const int64_t inner = r ? outShape[r - 1] : 1;
  std::vector<int64_t> innerStride(k);
  for (size_t j = 0; j < k; ++j) innerStride[j] = r ? strides[j][r - 1] : 0;
  std::vector<int64_t> idx(r, 0), base(k, 0), offs(k);
  for (int64_t o = 0; o < total; o += inner) {
    for (int64_t i = 0; i < inner; ++i) {
      for (size_t j = 0; j < k; ++j) offs[j] = base[j] + i * innerStride[j];
      body(o + i, offs);
    }
    for (size_t d = r - 1; d-- > 0;) {  // advance the outer odometer
      ++idx[d];
      for (size_t j = 0; j < k; ++j) base[j] += strides[j][d];
      if (idx[d] < outShape[d]) break;
      for (size_t j = 0; j < k; ++j) base[j] -= strides[j][d] * outShape[d];
      idx[d] = 0;
    }
  }
}

template <typename T, typename Op>
void binaryTyped(const Ctx& c, Op op) {
  const auto& a = c.input(0);
  const auto& b = c.input(1);
  auto& y = c.output();
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* py = y.data<T>();
  if (a.shape == y.shape && b.shape == y.shape) {
    const int64_t n = y.elements();
    for (int64_t i = 0; i < n; ++i) py[i] = op(pa[i], pb[i]);
    return;
  }
  if (a.shape == y.shape && b.elements() == 1) {
    const int64_t n = y.elements();
    const T s = pb[0];
    for (int64_t i = 0; i < n; ++i) py[i] = op(pa[i], s);
    return;
  }
  forEachBroadcast(y.shape, {a.shape, b.shape}, [&](int64_t o, const std::vector<int64_t>& off) { py[o] = op(pa[off[0]], pb[off[1]]); });
}

template <typename Op>
void binary(const Ctx& c, Op op) {
  const auto& a = c.input(0);
  const auto& b = c.input(1);
  if (a.type != b.type || c.output().type != a.type) throw Error("operands have different element types");
  switch (a.type) {
    case ElemType::Float32: binaryTyped<float>(c, op); break;
    case ElemType::Int64: binaryTyped<int64_t>(c, op); break;
    case ElemType::Int32: binaryTyped<int32_t>(c, op); break;
    default: throw Error("arithmetic on " + std::string(elemTypeName(a.type)) + " is not supported");
  }
}

template <typename Op>
void unary(const Ctx& c, Op op) {
  const float* x = c.f(0);
  float* y = c.fo();
  const int64_t n = c.output().elements();
  for (int64_t i = 0; i < n; ++i) y[i] = op(x[i]);
}

/// The fused activation of Conv/Gemm/MatMul/Add ("activation" attribute), applied in place.
void applyActivation(const Node& n, float* y, int64_t count) {
  const std::string act = n.getString("activation", "");
  if (act.empty()) return;
  if (act == "relu") {
    for (int64_t i = 0; i < count; ++i) y[i] = std::max(y[i], 0.f);
  } else if (act == "clip") {
    const float lo = static_cast<float>(n.getFloat("clip_min", std::numeric_limits<float>::lowest()));
    const float hi = static_cast<float>(n.getFloat("clip_max", std::numeric_limits<float>::max()));
    for (int64_t i = 0; i < count; ++i) y[i] = std::min(std::max(y[i], lo), hi);
  } else {
    throw Error("unknown fused activation '" + act + "'");
  }
}

void variadic(const Ctx& c, const std::function<float(float, float)>& op) {
  auto& y = c.output();
  float* py = c.fo();
  bool first = true;
  for (size_t k = 0; k < c.in.size(); ++k) {
    if (!c.has(k)) continue;
    const auto& t = Ctx::requireFloat(c.input(k));
    const float* p = t.data<float>();
    forEachBroadcast(y.shape, {t.shape}, [&](int64_t o, const std::vector<int64_t>& off) {
      py[o] = first ? p[off[0]] : op(py[o], p[off[0]]);
    });
    first = false;
  }
}

// ---- Linear algebra ----------------------------------------------------------------------------

/// y[m][n] (+)= sum_k a[m][k] * b[k][n]; row-major, i-k-j order.
void matmulRowMajor(const float* a, const float* b, float* y, int64_t M, int64_t K, int64_t N) {
  for (int64_t m = 0; m < M; ++m) {
    float* row = y + m * N;
    for (int64_t k = 0; k < K; ++k) {
      const float av = a[m * K + k];
      if (av == 0.f) continue;
      const float* brow = b + k * N;
      for (int64_t n = 0; n < N; ++n) row[n] += av * brow[n];
    }
  }
}

std::vector<float> transposed(const float* x, int64_t rows, int64_t cols) {
  std::vector<float> t(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t col = 0; col < cols; ++col) t[static_cast<size_t>(col * rows + r)] = x[r * cols + col];
  return t;
}

void addBroadcast(float* y, const Shape& yShape, const HostTensor& b, float scale = 1.f) {
  const float* pb = Ctx::requireFloat(b).data<float>();
  forEachBroadcast(yShape, {b.shape}, [&](int64_t o, const std::vector<int64_t>& off) { y[o] += scale * pb[off[0]]; });
}

void gemm(const Ctx& c) {
  const auto& A = c.input(0);
  const bool ta = c.n.getInt("transA", 0) != 0, tb = c.n.getInt("transB", 0) != 0;
  const float alpha = static_cast<float>(c.n.getFloat("alpha", 1.0));
  const float beta = static_cast<float>(c.n.getFloat("beta", 1.0));
  auto& Y = c.output();
  const int64_t M = Y.shape[0], N = Y.shape[1];
  const int64_t K = ta ? A.shape[0] : A.shape[1];
  std::vector<float> at;
  const float* a = c.f(0);
  const float* b = c.f(1);
  if (ta) {
    at = transposed(a, A.shape[0], A.shape[1]);
    a = at.data();
  }
  float* y = c.fo();
  std::fill(y, y + M * N, 0.f);
  if (tb) matmulTransposedB(a, b, y, M, K, N);
  else matmulRowMajor(a, b, y, M, K, N);
  if (alpha != 1.f)
    for (int64_t i = 0; i < M * N; ++i) y[i] *= alpha;
  if (c.has(2) && beta != 0.f) addBroadcast(y, Y.shape, c.input(2), beta);
  applyActivation(c.n, y, M * N);
}

void matmul(const Ctx& c) {
  Shape a = c.input(0).shape, b = c.input(1).shape;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
  Shape batchA(a.begin(), a.end() - 2), batchB(b.begin(), b.end() - 2);
  const Shape batch = ops::broadcast(batchA, batchB);
  const float* pa = c.f(0);
  const float* pb = c.f(1);
  auto& Y = c.output();
  float* y = c.fo();
  std::fill(y, y + Y.elements(), 0.f);
  const int64_t nb = ops::product(batch);
  if (nb == 1) {
    matmulRowMajor(pa, pb, y, M, K, N);
  } else {
    forEachBroadcast(batch, {batchA, batchB}, [&](int64_t o, const std::vector<int64_t>& off) {
      matmulRowMajor(pa + off[0] * M * K, pb + off[1] * K * N, y + o * M * N, M, K, N);
    });
  }
  if (c.has(2)) addBroadcast(y, Y.shape, c.input(2));
  applyActivation(c.n, y, Y.elements());
}

// ---- Convolution and pooling -------------------------------------------------------------------

/// Spatial geometry as 2-D (a 1-D operator is H = 1).
struct Geometry2D {
  int64_t H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw;
};

Geometry2D geometry2D(const ops::Windows& w, const Shape& x, const Shape& y) {
  if (x.size() == 3)
    return {1, x[2], 1, y[2], 1, w.kernel[0], 1, w.strides[0], 1, w.dilations[0], 0, w.padBegin[0]};
  if (x.size() == 4)
    return {x[2], x[3], y[2], y[3], w.kernel[0], w.kernel[1], w.strides[0], w.strides[1], w.dilations[0], w.dilations[1], w.padBegin[0], w.padBegin[1]};
  throw Error("only 1-D and 2-D windows are supported");
}

/// Output columns ow whose input column ow*s - p + kw*d lies in [0, W): [lo, hi).
std::pair<int64_t, int64_t> validRange(int64_t OW, int64_t W, int64_t s, int64_t p, int64_t offset) {
  // need 0 <= ow*s - p + offset < W
  const int64_t shift = p - offset;
  int64_t lo = shift <= 0 ? 0 : (shift + s - 1) / s;
  int64_t hi = W - 1 + shift < 0 ? 0 : (W - 1 + shift) / s + 1;
  return {std::min(lo, OW), std::clamp<int64_t>(hi, 0, OW)};
}

/// Lowers one group of a convolution's input to a [cg * KH * KW][OH * OW] matrix (im2col), zero
/// where a tap falls in the padding, so the convolution becomes a matrix product whose inner loop
/// runs over the whole output plane.
void im2col(const float* x, int64_t cg, const Geometry2D& g, float* col) {
  const int64_t plane = g.OH * g.OW;
  for (int64_t ic = 0; ic < cg; ++ic)
    for (int64_t kh = 0; kh < g.KH; ++kh)
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        float* row = col + ((ic * g.KH + kh) * g.KW + kw) * plane;
        const float* xp = x + ic * g.H * g.W;
        const auto [lo, hi] = validRange(g.OW, g.W, g.sw, g.pw, kw * g.dw);
        for (int64_t oh = 0; oh < g.OH; ++oh) {
          float* r = row + oh * g.OW;
          const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
          if (ih < 0 || ih >= g.H) {
            std::fill(r, r + g.OW, 0.f);
            continue;
          }
          const float* src = xp + ih * g.W - g.pw + kw * g.dw;
          std::fill(r, r + lo, 0.f);
          for (int64_t ow = lo; ow < hi; ++ow) r[ow] = src[ow * g.sw];
          std::fill(r + hi, r + g.OW, 0.f);
        }
      }
}

void conv(const Ctx& c) {
  const auto& X = c.input(0);
  const auto& Wt = c.input(1);
  auto& Y = c.output();
  const Shape kernel(Wt.shape.begin() + 2, Wt.shape.end());
  const auto win = ops::windows(c.n, X.shape, kernel, false);
  const auto g = geometry2D(win, X.shape, Y.shape);
  const int64_t N = X.shape[0], C = X.shape[1], M = Wt.shape[0];
  const int64_t group = c.n.getInt("group", 1);
  const int64_t cg = C / group, mg = M / group;
  const float* x = c.f(0);
  const float* w = c.f(1);
  const float* bias = c.has(2) ? c.f(2) : nullptr;
  float* y = c.fo();
  const int64_t inPlane = g.H * g.W, plane = g.OH * g.OW, K = cg * g.KH * g.KW;
  const bool pointwise = g.KH == 1 && g.KW == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 && inPlane == plane;
  std::vector<float> col(pointwise ? 0 : static_cast<size_t>(K * plane));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t grp = 0; grp < group; ++grp) {
      const float* xg = x + (n * C + grp * cg) * inPlane;
      if (!pointwise) im2col(xg, cg, g, col.data());
      const float* B = pointwise ? xg : col.data();  // [K][plane]
      // Y[m][p] = bias[m] + sum_k W[m][k] * B[k][p].
      float* yg = y + (n * M + grp * mg) * plane;
      for (int64_t m = 0; m < mg; ++m) std::fill(yg + m * plane, yg + (m + 1) * plane, bias ? bias[grp * mg + m] : 0.f);
      gemmAccumulate(w + grp * mg * K, K, B, plane, yg, plane, mg, K, plane);
    }
  applyActivation(c.n, y, Y.elements());
}

/// ConvTranspose (1-D or 2-D, any group, stride, dilation, pads, output_padding): every input
/// pixel scatters weight * x into the output pixels its taps reach, o = i * s - p + k * d.
void convTranspose(const Ctx& c) {
  const auto& X = c.input(0);
  const auto& Wt = c.input(1);
  auto& Y = c.output();
  const Shape kernel(Wt.shape.begin() + 2, Wt.shape.end());
  const auto win = ops::transposedWindows(c.n, X.shape, kernel);
  // The same 2-D view as the convolution, with the roles of input and output swapped.
  const ops::Windows asConv{win.kernel, win.strides, win.dilations, win.padBegin, win.padEnd, {}};
  const auto g = geometry2D(asConv, Y.shape, X.shape);  // H, W: output; OH, OW: input
  const int64_t N = X.shape[0], C = X.shape[1], group = c.n.getInt("group", 1);
  const int64_t cg = C / group, mg = Wt.shape[1], M = mg * group;
  const float* x = c.f(0);
  const float* w = c.f(1);
  float* y = c.fo();
  const int64_t inPlane = g.OH * g.OW, outPlane = g.H * g.W;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      std::fill(y + (n * M + m) * outPlane, y + (n * M + m + 1) * outPlane, c.has(2) ? c.f(2)[m] : 0.f);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ic = 0; ic < C; ++ic) {
      const int64_t grp = ic / cg;
      const float* xp = x + (n * C + ic) * inPlane;
      for (int64_t mo = 0; mo < mg; ++mo) {
        float* yp = y + (n * M + grp * mg + mo) * outPlane;
        for (int64_t kh = 0; kh < g.KH; ++kh)
          for (int64_t kw = 0; kw < g.KW; ++kw) {
            const float wv = w[((ic * mg + mo) * g.KH + kh) * g.KW + kw];
            for (int64_t ih = 0; ih < g.OH; ++ih) {
              const int64_t oh = ih * g.sh - g.ph + kh * g.dh;
              if (oh < 0 || oh >= g.H) continue;
              for (int64_t iw = 0; iw < g.OW; ++iw) {
                const int64_t ow = iw * g.sw - g.pw + kw * g.dw;
                if (ow >= 0 && ow < g.W) yp[oh * g.W + ow] += wv * xp[ih * g.OW + iw];
              }
            }
          }
      }
    }
  applyActivation(c.n, y, Y.elements());
}

void pool(const Ctx& c, bool isMax) {
  const auto& X = c.input(0);
  auto& Y = c.output();
  const auto win = ops::windows(c.n, X.shape, c.n.getInts("kernel_shape"), c.n.getInt("ceil_mode", 0) != 0);
  const auto g = geometry2D(win, X.shape, Y.shape);
  const bool includePad = c.n.getInt("count_include_pad", 0) != 0;
  const int64_t padEndH = X.shape.size() == 4 ? win.padEnd[0] : 0;
  const int64_t padEndW = win.padEnd.back();
  const int64_t planes = X.shape[0] * X.shape[1];
  const float* x = c.f(0);
  float* y = c.fo();
  for (int64_t p = 0; p < planes; ++p) {
    const float* xp = x + p * g.H * g.W;
    float* yp = y + p * g.OH * g.OW;
    for (int64_t oh = 0; oh < g.OH; ++oh)
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        float best = -std::numeric_limits<float>::infinity();
        double sum = 0;
        int64_t valid = 0, padded = 0;
        for (int64_t kh = 0; kh < g.KH; ++kh) {
          const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
          for (int64_t kw = 0; kw < g.KW; ++kw) {
            const int64_t iw = ow * g.sw - g.pw + kw * g.dw;
            if (ih >= -g.ph && ih < g.H + padEndH && iw >= -g.pw && iw < g.W + padEndW) ++padded;
            if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) continue;
            const float v = xp[ih * g.W + iw];
            best = std::max(best, v);
            sum += v;
            ++valid;
          }
        }
        if (isMax) yp[oh * g.OW + ow] = best;
        else {
          const int64_t count = includePad ? padded : valid;
          yp[oh * g.OW + ow] = count ? static_cast<float>(sum / static_cast<double>(count)) : 0.f;
        }
      }
  }
}

void globalAveragePool(const Ctx& c) {
  const auto& X = c.input(0);
  const int64_t planes = X.shape[0] * X.shape[1];
  const int64_t size = ops::product(X.shape, 2);
  const float* x = c.f(0);
  float* y = c.fo();
  for (int64_t p = 0; p < planes; ++p) {
    double sum = 0;
    for (int64_t i = 0; i < size; ++i) sum += x[p * size + i];
    y[p] = static_cast<float>(sum / static_cast<double>(size));
  }
}

// ---- Normalization -----------------------------------------------------------------------------

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
    forEachBroadcast(normShape, {c.input(k).shape}, [&](int64_t o, const std::vector<int64_t>& off) { dst[static_cast<size_t>(o)] = p[off[0]]; });
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
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * len * inner + i;
      float mx = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < len; ++k) mx = std::max(mx, x[base + k * inner]);
      double sum = 0;
      for (int64_t k = 0; k < len; ++k) {
        const float e = std::exp(x[base + k * inner] - mx);
        y[base + k * inner] = e;
        sum += e;
      }
      const float inv = static_cast<float>(1.0 / sum);
      for (int64_t k = 0; k < len; ++k) y[base + k * inner] *= inv;
    }
}

/// ReduceMean and ReduceSum: sums in double over the reduced axes, divided by their size for a mean.
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
  std::vector<double> acc(static_cast<size_t>(ops::product(kept)), 0.0);
  const float* x = c.f(0);
  // Walk the input; each element adds into its output position (`kept` broadcast over the input).
  forEachBroadcast(X.shape, {X.shape, kept}, [&](int64_t, const std::vector<int64_t>& off) { acc[static_cast<size_t>(off[1])] += x[off[0]]; });
  float* y = c.fo();
  const double divisor = c.n.op == "ReduceMean" ? static_cast<double>(count) : 1.0;
  for (size_t i = 0; i < acc.size(); ++i) y[i] = static_cast<float>(acc[i] / divisor);
}

// ---- Data movement -----------------------------------------------------------------------------

/// FlattenNhwc (Systole op): [N, C, H, W] -> [N, H * W * C] in (h, w, c) order, on any element type.
void flattenNhwc(const Ctx& c) {
  const auto& X = c.input(0);
  auto& Y = c.output();
  const int64_t N = X.shape.at(0), C = X.shape.at(1), HW = X.shape.at(2) * X.shape.at(3);
  const size_t eb = static_cast<size_t>(elemTypeBytes(X.type));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t s = 0; s < HW; ++s)
        std::memcpy(Y.bytes.data() + static_cast<size_t>((n * HW + s) * C + ch) * eb, X.bytes.data() + static_cast<size_t>((n * C + ch) * HW + s) * eb, eb);
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
      std::memcpy(Y.bytes.data() + static_cast<size_t>(o) * outChunk + offset, X.bytes.data() + static_cast<size_t>(o) * chunk, chunk);
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
        std::memcpy(Y.bytes.data() + static_cast<size_t>(o) * chunk, X.bytes.data() + static_cast<size_t>(o) * inChunk + offset, chunk);
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
  std::vector<int64_t> idx(rank, 0);
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
    std::memcpy(Y.bytes.data() + static_cast<size_t>(o) * eb, inside ? X.bytes.data() + static_cast<size_t>(off) * eb : fill, eb);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < Y.shape[d]) break;
      idx[d] = 0;
    }
  }
}

void slice(const Ctx& c) {
  const auto axes = ops::sliceParams(c.n, c.g.opset, c.operands);
  gatherAxes(c.input(0), c.output(), [&](size_t d, int64_t i) { return axes[d].start + i * axes[d].step; }, nullptr);
}

void pad(const Ctx& c) {
  const auto& X = c.input(0);
  const auto p = ops::padParams(c.n, c.g.opset, c.operands);
  uint8_t fill[8] = {};
  if (X.type == ElemType::Float32) std::memcpy(fill, &p.value, 4);
  else {
    const int64_t v = static_cast<int64_t>(p.value);
    std::memcpy(fill, &v, static_cast<size_t>(elemTypeBytes(X.type)));
  }
  gatherAxes(X, c.output(), [&](size_t d, int64_t o) { return ops::padSource(p.mode, o, p.pads[d], X.shape[d]); }, fill);
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
      if (j < 0 || j >= dim) throw Error("Gather index " + std::to_string(j) + " is out of range for dimension " + std::to_string(dim));
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
    if (X.shape[d] != Y.shape[d] || std::any_of(taps[d].begin(), taps[d].end(), [](const ops::LinearTap& t) { return t.w != 0; }))
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
  gatherAxes(X, Y, [&](size_t d, int64_t o) { return maps[d][static_cast<size_t>(o)]; }, nullptr);
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
          std::memcpy(Y.bytes.data() + static_cast<size_t>(dst) * eb, X.bytes.data() + static_cast<size_t>(src) * eb, eb);
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
      case ElemType::Bool: return X.data<uint8_t>()[i];
    }
    return 0;
  };
  for (int64_t i = 0; i < n; ++i) {
    const double v = read(i);
    switch (Y.type) {
      case ElemType::Float32: Y.data<float>()[i] = static_cast<float>(v); break;
      case ElemType::Int64: Y.data<int64_t>()[i] = static_cast<int64_t>(v); break;
      case ElemType::Int32: Y.data<int32_t>()[i] = static_cast<int32_t>(v); break;
      case ElemType::Int8: Y.data<int8_t>()[i] = static_cast<int8_t>(v); break;
      case ElemType::Bool: Y.data<uint8_t>()[i] = v != 0; break;
    }
  }
}

// ---- Logic and shape-generating operators (torch's dynamic-shape exports; constant-folded) ----

/// A comparison of two numbers of one type into a Bool tensor, with broadcasting.
template <typename Op>
void compare(const Ctx& c, Op op) {
  const auto& a = c.input(0);
  const auto& b = c.input(1);
  if (a.type != b.type) throw Error("operands have different element types");
  uint8_t* y = c.output().data<uint8_t>();
  auto run = [&](auto* pa, auto* pb) {
    forEachBroadcast(c.output().shape, {a.shape, b.shape}, [&](int64_t o, const std::vector<int64_t>& off) { y[o] = op(pa[off[0]], pb[off[1]]); });
  };
  switch (a.type) {
    case ElemType::Float32: run(a.data<float>(), b.data<float>()); break;
    case ElemType::Int64: run(a.data<int64_t>(), b.data<int64_t>()); break;
    case ElemType::Int32: run(a.data<int32_t>(), b.data<int32_t>()); break;
    case ElemType::Int8: run(a.data<int8_t>(), b.data<int8_t>()); break;
    case ElemType::Bool: run(a.data<uint8_t>(), b.data<uint8_t>()); break;
  }
}

/// Not, and And/Or/Xor of Bool tensors (`op` of one or two bytes).
template <typename Op>
void logic(const Ctx& c, Op op) {
  for (size_t k = 0; k < c.in.size(); ++k)
    if (c.input(k).type != ElemType::Bool) throw Error("a logical operator takes bool tensors");
  uint8_t* y = c.output().data<uint8_t>();
  const uint8_t* a = c.input(0).data<uint8_t>();
  if (c.in.size() == 1) {
    for (int64_t i = 0; i < c.output().elements(); ++i) y[i] = op(a[i], uint8_t{0});
    return;
  }
  const uint8_t* b = c.input(1).data<uint8_t>();
  forEachBroadcast(c.output().shape, {c.input(0).shape, c.input(1).shape},
                   [&](int64_t o, const std::vector<int64_t>& off) { y[o] = op(a[off[0]], b[off[1]]); });
}

/// Where(condition, X, Y): X where the condition holds, else Y, with broadcasting; any element type.
void where(const Ctx& c) {
  const auto& cond = c.input(0);
  const auto& X = c.input(1);
  const auto& Y = c.input(2);
  auto& out = c.output();
  if (cond.type != ElemType::Bool || X.type != Y.type || out.type != X.type) throw Error("Where takes a bool condition and two tensors of one type");
  const size_t eb = static_cast<size_t>(elemTypeBytes(X.type));
  forEachBroadcast(out.shape, {cond.shape, X.shape, Y.shape}, [&](int64_t o, const std::vector<int64_t>& off) {
    const bool pick = cond.data<uint8_t>()[off[0]] != 0;
    const uint8_t* src = pick ? X.bytes.data() + static_cast<size_t>(off[1]) * eb : Y.bytes.data() + static_cast<size_t>(off[2]) * eb;
    std::memcpy(out.bytes.data() + static_cast<size_t>(o) * eb, src, eb);
  });
}

/// ConstantOfShape: the output (shape given by input 0) filled with the `value` attribute (0 if absent).
void constantOfShape(const Ctx& c) {
  const auto& S = c.input(0);
  auto& Y = c.output();
  if (ops::readInts(S.type, S.bytes.data(), S.elements()) != Y.shape || Y.bytes.size() != static_cast<size_t>(Y.elements() * elemTypeBytes(Y.type)))
    throw Error("ConstantOfShape: the output does not have the requested shape");
  const double v = c.n.getFloat("value", 0.0);
  for (int64_t i = 0; i < Y.elements(); ++i) {
    switch (Y.type) {
      case ElemType::Float32: Y.data<float>()[i] = static_cast<float>(v); break;
      case ElemType::Int64: Y.data<int64_t>()[i] = static_cast<int64_t>(v); break;
      case ElemType::Int32: Y.data<int32_t>()[i] = static_cast<int32_t>(v); break;
      case ElemType::Int8: Y.data<int8_t>()[i] = static_cast<int8_t>(v); break;
      case ElemType::Bool: Y.data<uint8_t>()[i] = v != 0; break;
    }
  }
}

void constant(const Ctx& c) {
  auto& Y = c.output();
  if (c.n.has("value_float")) Y.data<float>()[0] = static_cast<float>(c.n.getFloat("value_float", 0));
  else if (c.n.has("value_int")) Y.data<int64_t>()[0] = c.n.getInt("value_int", 0);
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

float erfGelu(float x) { return 0.5f * x * (1.f + std::erf(x * static_cast<float>(1.0 / std::numbers::sqrt2))); }
float tanhGelu(float x) {
  const float k = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
  return 0.5f * x * (1.f + std::tanh(k * (x + 0.044715f * x * x * x)));
}

using Kernel = void (*)(const Ctx&);

const std::map<std::string, Kernel, std::less<>>& kernels() {
  static const std::map<std::string, Kernel, std::less<>> table = {
      {"Add", [](const Ctx& c) {
         binary(c, [](auto a, auto b) { return a + b; });
         if (c.output().type == ElemType::Float32) applyActivation(c.n, c.fo(), c.output().elements());
       }},
      {"Sub", [](const Ctx& c) { binary(c, [](auto a, auto b) { return a - b; }); }},
      {"Mul", [](const Ctx& c) { binary(c, [](auto a, auto b) { return a * b; }); }},
      {"Div", [](const Ctx& c) {
         binary(c, [](auto a, auto b) {
           if constexpr (std::is_integral_v<decltype(a)>) {
             if (b == 0) throw Error("integer division by zero");
           }
           return a / b;
         });
       }},
      {"Pow", [](const Ctx& c) {
         if (c.input(1).type != ElemType::Float32) throw Error("Pow exponent must be float32");
         binary(c, [](auto a, auto b) { return static_cast<decltype(a)>(std::pow(a, b)); });
       }},
      {"Max", [](const Ctx& c) { variadic(c, [](float a, float b) { return std::max(a, b); }); }},
      {"Min", [](const Ctx& c) { variadic(c, [](float a, float b) { return std::min(a, b); }); }},
      {"Relu", [](const Ctx& c) { unary(c, [](float x) { return std::max(x, 0.f); }); }},
      {"Clip", [](const Ctx& c) {
         const auto [lo, hi] = ops::clipBounds(c.n, c.g.opset, c.operands);
         unary(c, [lo = lo, hi = hi](float x) { return std::min(std::max(x, lo), hi); });
       }},
      {"PRelu", [](const Ctx& c) {  // the slope broadcasts to X (unidirectionally), so Y has X's shape
         if (c.input(0).type != ElemType::Float32) throw Error("PRelu takes float32");
         binary(c, [](auto x, auto slope) { return x >= 0 ? x : slope * x; });
       }},
      {"LeakyRelu", [](const Ctx& c) {
         const float alpha = static_cast<float>(c.n.getFloat("alpha", 0.01));
         unary(c, [alpha](float x) { return x >= 0.f ? x : alpha * x; });
       }},
      {"HardSigmoid", [](const Ctx& c) {
         const float alpha = static_cast<float>(c.n.getFloat("alpha", 0.2)), beta = static_cast<float>(c.n.getFloat("beta", 0.5));
         unary(c, [alpha, beta](float x) { return std::max(0.f, std::min(1.f, alpha * x + beta)); });
       }},
      {"HardSwish", [](const Ctx& c) { unary(c, [](float x) { return x * std::max(0.f, std::min(1.f, x / 6.f + 0.5f)); }); }},
      {"Sigmoid", [](const Ctx& c) { unary(c, [](float x) { return 1.f / (1.f + std::exp(-x)); }); }},
      {"Tanh", [](const Ctx& c) { unary(c, [](float x) { return std::tanh(x); }); }},
      {"Sqrt", [](const Ctx& c) { unary(c, [](float x) { return std::sqrt(x); }); }},
      {"Erf", [](const Ctx& c) { unary(c, [](float x) { return std::erf(x); }); }},
      {"Exp", [](const Ctx& c) { unary(c, [](float x) { return std::exp(x); }); }},
      {"Neg", [](const Ctx& c) {
         if (c.input(0).type == ElemType::Int64) {
           for (int64_t i = 0; i < c.output().elements(); ++i) c.output().data<int64_t>()[i] = -c.input(0).data<int64_t>()[i];
         } else {
           unary(c, [](float x) { return -x; });
         }
       }},
      {"Gelu", [](const Ctx& c) {
         const std::string approx = c.n.getString("approximate", "none");
         if (approx == "tanh") unary(c, tanhGelu);
         else if (approx == "none") unary(c, erfGelu);
         else throw Error("Gelu approximate='" + approx + "' is not supported");
       }},
      {"Conv", conv},
      {"ConvTranspose", convTranspose},
      {"Gemm", gemm},
      {"MatMul", matmul},
      {"MaxPool", [](const Ctx& c) {
         if (c.out.size() > 1 && c.out[1]) throw Error("MaxPool's Indices output is not supported");
         pool(c, true);
       }},
      {"AveragePool", [](const Ctx& c) { pool(c, false); }},
      {"GlobalAveragePool", globalAveragePool},
      {"BatchNormalization", batchNorm},
      {"LayerNormalization", layerNorm},
      {"Softmax", softmax},
      {"ReduceMean", reduce},
      {"ReduceSum", reduce},
      {"Identity", copyBytes},
      {"Dropout", copyBytes},
      {"Flatten", copyBytes},
      {"FlattenNhwc", flattenNhwc},
      {"Reshape", copyBytes},
      {"Squeeze", copyBytes},
      {"Unsqueeze", copyBytes},
      {"Transpose", transpose},
      {"Concat", concat},
      {"Split", split},
      {"Slice", slice},
      {"Pad", pad},
      {"Gather", gather},
      {"Resize", resize},
      {"DepthToSpace", depthToSpace},
      {"Upsample", resize},
      {"Shape", shapeOp},
      {"Cast", cast},
      {"Constant", constant},
      {"ConstantOfShape", constantOfShape},
      {"Equal", [](const Ctx& c) { compare(c, [](auto a, auto b) { return a == b; }); }},
      {"Less", [](const Ctx& c) { compare(c, [](auto a, auto b) { return a < b; }); }},
      {"LessOrEqual", [](const Ctx& c) { compare(c, [](auto a, auto b) { return a <= b; }); }},
      {"Greater", [](const Ctx& c) { compare(c, [](auto a, auto b) { return a > b; }); }},
      {"GreaterOrEqual", [](const Ctx& c) { compare(c, [](auto a, auto b) { return a >= b; }); }},
      {"Not", [](const Ctx& c) { logic(c, [](uint8_t a, uint8_t) -> uint8_t { return !a; }); }},
      {"And", [](const Ctx& c) { logic(c, [](uint8_t a, uint8_t b) -> uint8_t { return a && b; }); }},
      {"Or", [](const Ctx& c) { logic(c, [](uint8_t a, uint8_t b) -> uint8_t { return a || b; }); }},
      {"Xor", [](const Ctx& c) { logic(c, [](uint8_t a, uint8_t b) -> uint8_t { return (a != 0) != (b != 0); }); }},
      {"Where", where},
  };
  return table;
}

}  // namespace

void runFloatKernel(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, std::vector<HostTensor*>& out) {
  const auto& table = kernels();
  auto it = table.find(n.op);
  if (it == table.end()) throw Error("no float kernel for operator '" + n.op + "'");
  Ctx c{g, n, in, out, {}};
  for (const HostTensor* t : in) {
    ops::Operand o;
    if (t) {
      o.present = true;
      o.type = t->type;
      o.shape = t->shape;
      o.data = t->bytes.data();
    }
    c.operands.push_back(std::move(o));
  }
  it->second(c);
}

}  // namespace systole::compiler
