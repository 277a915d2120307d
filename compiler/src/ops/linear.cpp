// Matrix products, convolutions and pooling: Gemm, MatMul (i-k-j, batched with broadcasting),
// Conv (im2col, then the blocked GEMM of float_gemm.h), ConvTranspose, MaxPool and AveragePool.
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/float_gemm.h"
#include "ops/int8_kernel.h"
#include "ops/op_def.h"
#include "systole/isa/arith.h"

namespace systole::compiler::float_kernels {

namespace {

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
  if (tb)
    matmulTransposedB(a, b, y, M, K, N);
  else
    matmulRowMajor(a, b, y, M, K, N);
  if (alpha != 1.f)
    for (int64_t i = 0; i < M * N; ++i) y[i] *= alpha;
  if (c.has(2) && beta != 0.f) addBroadcast(y, Y.shape, c.input(2), beta);
  applyActivation(c.n, y, M * N);
}

void matmul(const Ctx& c) {
  Shape a = c.input(0).shape, b = c.input(1).shape;
  const float* pb = c.f(1);
  std::vector<float> transposed;  // B [..., N, K] of a MatMul with transB, as [..., K, N]
  if (c.n.getInt("transB", 0) != 0 && b.size() >= 2) {
    const int64_t rows = b[b.size() - 2], cols = b.back(), count = ops::product(b) / std::max<int64_t>(rows * cols, 1);
    transposed.resize(static_cast<size_t>(ops::product(b)));
    for (int64_t m = 0; m < count; ++m)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < cols; ++k)
          transposed[static_cast<size_t>((m * cols + k) * rows + r)] = pb[(m * rows + r) * cols + k];
    std::swap(b[b.size() - 1], b[b.size() - 2]);
    pb = transposed.data();
  }
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
  Shape batchA(a.begin(), a.end() - 2), batchB(b.begin(), b.end() - 2);
  const Shape batch = ops::broadcast(batchA, batchB);
  const float* pa = c.f(0);
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
  if (x.size() == 3) return {1, x[2], 1, y[2], 1, w.kernel[0], 1, w.strides[0], 1, w.dilations[0], 0, w.padBegin[0]};
  if (x.size() == 4)
    return {x[2],         x[3],         y[2],           y[3],           w.kernel[0],   w.kernel[1],
            w.strides[0], w.strides[1], w.dilations[0], w.dilations[1], w.padBegin[0], w.padBegin[1]};
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
        if (isMax)
          yp[oh * g.OW + ow] = best;
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

}  // namespace

}  // namespace systole::compiler::float_kernels

// ---- int8 kernels (docs/quantized-ops.md: Conv, Gemm/MatMul, pooling) ----

namespace systole::compiler::int8_kernels {

namespace {

void conv(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  const HostTensor* x = in.at(0);
  const HostTensor* w = in.size() > 1 ? in[1] : nullptr;
  const HostTensor* b = in.size() > 2 ? in[2] : nullptr;
  expectActivation(x, "Conv input", &y);
  expectType(w, ElemType::Int8, "Conv weight");
  if (b) expectType(b, ElemType::Int32, "Conv bias");
  if (w->shape.size() != x->shape.size()) throw Error("Conv weight rank differs from the input rank");
  const int64_t batch = x->shape[0], inC = x->shape[1], outC = w->shape[0], icg = w->shape[1];
  const int64_t groups = n.getInt("group", 1);
  if (groups < 1 || inC != icg * groups || outC % groups != 0 || y.shape[1] != outC)
    throw Error("Conv channels do not match 'group'");
  if (b && b->elements() != outC) throw Error("Conv bias must have one value per output channel");
  const Window2d win = windowOf(n, x->shape, y.shape, {w->shape.begin() + 2, w->shape.end()});
  const int32_t zx = perTensorQuant(g, n.inputs[0]).zero_point;
  const Requantizer rq(n, outC, perTensorQuant(g, n.outputs.at(0)).zero_point, true, activationBits(y.type));

  const int64_t ocg = outC / groups, inPlane = win.in_h * win.in_w, outPlane = win.out_h * win.out_w;
  const int8_t* wd = w->data<int8_t>();
  // The output positions o in [0, outSize) whose input position o*stride + off lies in [0, inSize).
  auto validRange = [](int64_t off, int64_t stride, int64_t inSize, int64_t outSize) {
    const int64_t lo = off >= 0 ? 0 : (-off + stride - 1) / stride;
    const int64_t last = inSize - 1 - off;
    const int64_t hi = last < 0 ? 0 : std::min(outSize, last / stride + 1);
    return std::pair<int64_t, int64_t>{lo, std::max(lo, hi)};
  };
  std::vector<int32_t> acc(static_cast<size_t>(outPlane));
  std::vector<int32_t> centred(static_cast<size_t>(inC * inPlane));  // x - z_x of one batch item
  for (int64_t bn = 0; bn < batch; ++bn) {
    for (int64_t i = 0; i < inC * inPlane; ++i)
      centred[static_cast<size_t>(i)] = arith::widen(laneAt(*x, bn * inC * inPlane + i), zx, 1);
    for (int64_t oc = 0; oc < outC; ++oc) {
      std::fill(acc.begin(), acc.end(), b ? b->data<int32_t>()[oc] : 0);
      const int64_t group = oc / ocg;
      for (int64_t c = 0; c < icg; ++c) {
        const int32_t* plane = centred.data() + (group * icg + c) * inPlane;
        for (int64_t kh = 0; kh < win.k_h; ++kh) {
          const int64_t offH = kh * win.dil_h - win.pad_top;
          const auto [ohLo, ohHi] = validRange(offH, win.stride_h, win.in_h, win.out_h);
          for (int64_t kw = 0; kw < win.k_w; ++kw) {
            const int32_t wv = wd[((oc * icg + c) * win.k_h + kh) * win.k_w + kw];
            if (wv == 0) continue;  // (x - z) * 0 adds nothing
            const int64_t offW = kw * win.dil_w - win.pad_left;
            const auto [owLo, owHi] = validRange(offW, win.stride_w, win.in_w, win.out_w);
            for (int64_t oh = ohLo; oh < ohHi; ++oh) {
              const int64_t base = (oh * win.stride_h + offH) * win.in_w + offW;  // input index of ow = 0
              int32_t* accRow = acc.data() + oh * win.out_w;
              if (win.stride_w == 1)
                for (int64_t ow = owLo; ow < owHi; ++ow)
                  accRow[ow] = arith::add(accRow[ow], arith::mul(plane[base + ow], wv));
              else
                for (int64_t ow = owLo; ow < owHi; ++ow)
                  accRow[ow] = arith::add(accRow[ow], arith::mul(plane[base + ow * win.stride_w], wv));
            }
          }
        }
      }
      const int64_t outBase = (bn * outC + oc) * outPlane;
      for (int64_t i = 0; i < outPlane; ++i) setLane(y, outBase + i, rq(acc[static_cast<size_t>(i)], oc));
    }
  }
}

/// MatMul of two activations (both at zero point 0, docs/quantized-ops.md): per batch index,
/// a [M, K] x b [K, N] (or b [N, K] transposed, with transB), requantized per tensor.
void activationMatmul(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  const HostTensor *a = in.at(0), *b = in.at(1);
  expectActivation(a, "MatMul input A", &y);
  expectActivation(b, "MatMul input B", &y);
  const bool transB = n.getInt("transB", 0) != 0;
  if (a->shape.size() < 2 || a->shape.size() != b->shape.size())
    throw Error("a product of two activations needs operands of one rank >= 2");
  const size_t r = a->shape.size();
  const int64_t M = a->shape[r - 2], K = a->shape[r - 1];
  const int64_t N = transB ? b->shape[r - 2] : b->shape[r - 1], Kb = transB ? b->shape[r - 1] : b->shape[r - 2];
  const int64_t batch = a->elements() / std::max<int64_t>(M * K, 1);
  if (Kb != K || b->elements() != batch * K * N || y.elements() != batch * M * N)
    throw Error("MatMul operands " + ops::shapeText(a->shape) + " and " + ops::shapeText(b->shape) + " do not match");
  if (perTensorQuant(g, n.inputs[0]).zero_point != 0 || perTensorQuant(g, n.inputs[1]).zero_point != 0)
    throw Error("a product of two activations needs both at zero point 0");
  const Requantizer rq(n, 1, perTensorQuant(g, n.outputs.at(0)).zero_point, true, activationBits(y.type));
  forLanes(y.type, [&]<typename Lane>() {
    const Lane *ad = a->data<Lane>(), *bd = b->data<Lane>();
    Lane* yd = y.data<Lane>();
    for (int64_t t = 0; t < batch; ++t)
      for (int64_t m = 0; m < M; ++m)
        for (int64_t j = 0; j < N; ++j) {
          int32_t acc = 0;
          for (int64_t k = 0; k < K; ++k) {
            const int32_t bv = transB ? bd[(t * N + j) * K + k] : bd[(t * K + k) * N + j];
            acc = arith::add(acc, arith::mul(ad[(t * M + m) * K + k], bv));
          }
          yd[(t * M + m) * N + j] = static_cast<Lane>(rq(acc, 0));
        }
  });
}

/// Gemm and MatMul with a constant right operand: a [..., K] x w [K, N] + b [N].
void matmul(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  if (isActivationProduct(g, n)) return activationMatmul(g, n, in, y);
  const HostTensor* a = in.at(0);
  const HostTensor* w = in.size() > 1 ? in[1] : nullptr;
  const HostTensor* b = in.size() > 2 ? in[2] : nullptr;
  expectActivation(a, n.op + " input", &y);
  expectType(w, ElemType::Int8, n.op + " weight");
  if (b) expectType(b, ElemType::Int32, n.op + " bias");
  if (n.getInt("transA", 0) != 0 || n.getInt("transB", 0) != 0)
    throw Error("a quantized " + n.op + " takes its weight as [K][N] (transposes are folded in)");
  if (w->shape.size() != 2 || a->shape.empty()) throw Error("the weight must be [K][N]");
  const int64_t K = w->shape[0], N = w->shape[1];
  if (a->shape.back() != K) throw Error("inner dimensions differ");
  const int64_t M = a->elements() / K;
  if (y.elements() != M * N) throw Error("output shape does not match [M][N]");
  if (b && b->elements() != N) throw Error("bias must have N values");
  const int32_t za = perTensorQuant(g, n.inputs[0]).zero_point;
  const Requantizer rq(n, N, perTensorQuant(g, n.outputs.at(0)).zero_point, true, activationBits(y.type));
  const int8_t* wd = w->data<int8_t>();
  std::vector<int32_t> acc(static_cast<size_t>(N));
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t j = 0; j < N; ++j) acc[static_cast<size_t>(j)] = b ? b->data<int32_t>()[j] : 0;
    for (int64_t k = 0; k < K; ++k) {
      const int32_t av = arith::widen(laneAt(*a, m * K + k), za, 1);
      if (av == 0) continue;
      const int8_t* wRow = wd + k * N;
      for (int64_t j = 0; j < N; ++j)
        acc[static_cast<size_t>(j)] = arith::add(acc[static_cast<size_t>(j)], arith::mul(av, wRow[j]));
    }
    for (int64_t j = 0; j < N; ++j) setLane(y, m * N + j, rq(acc[static_cast<size_t>(j)], j));
  }
}

std::vector<int64_t> kernelShape(const Node& n, size_t rank) {
  std::vector<int64_t> k = n.getInts("kernel_shape");
  if (k.size() + 2 != rank) throw Error("'kernel_shape' must give every spatial dimension");
  return k;
}

/// Calls visit(inputIndex) for every window position of output (oh, ow) that lies inside x.
template <typename Visit>
void forWindow(const Window2d& w, int64_t oh, int64_t ow, Visit&& visit) {
  for (int64_t kh = 0; kh < w.k_h; ++kh) {
    const int64_t ih = oh * w.stride_h + kh * w.dil_h - w.pad_top;
    if (ih < 0 || ih >= w.in_h) continue;
    for (int64_t kw = 0; kw < w.k_w; ++kw) {
      const int64_t iw = ow * w.stride_w + kw * w.dil_w - w.pad_left;
      if (iw < 0 || iw >= w.in_w) continue;
      visit(ih * w.in_w + iw);
    }
  }
}

void pool(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y, bool isMax) {
  expectActivation(in.at(0), n.op + " input", &y);
  const HostTensor& x = *in[0];
  const Window2d w = windowOf(n, x.shape, y.shape, kernelShape(n, x.shape.size()));
  const int64_t planes = x.shape[0] * x.shape[1];
  if (y.shape[0] != x.shape[0] || y.shape[1] != x.shape[1]) throw Error("pooling keeps N and C");
  const int bits = activationBits(y.type);
  if (isMax) {
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t oh = 0; oh < w.out_h; ++oh)
        for (int64_t ow = 0; ow < w.out_w; ++ow) {
          int32_t m = arith::activationMin(bits);
          forWindow(w, oh, ow, [&](int64_t i) { m = std::max(m, laneAt(x, p * w.in_h * w.in_w + i)); });
          setLane(y, (p * w.out_h + oh) * w.out_w + ow, m);
        }
    return;
  }
  const int32_t zx = perTensorQuant(g, n.inputs[0]).zero_point;
  const Requantizer rq(n, 1, perTensorQuant(g, n.outputs.at(0)).zero_point, false, bits);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oh = 0; oh < w.out_h; ++oh)
      for (int64_t ow = 0; ow < w.out_w; ++ow) {
        int32_t acc = 0;
        forWindow(w, oh, ow,
                  [&](int64_t i) { acc = arith::add(acc, arith::widen(laneAt(x, p * w.in_h * w.in_w + i), zx, 1)); });
        setLane(y, (p * w.out_h + oh) * w.out_w + ow, rq(acc, 0));
      }
}

void maxPool(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  pool(g, n, in, y, true);
}

void averagePool(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  pool(g, n, in, y, false);
}

void globalAveragePool(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectActivation(in.at(0), "GlobalAveragePool input", &y);
  const HostTensor& x = *in[0];
  if (x.shape.size() < 3) throw Error("GlobalAveragePool needs N C and spatial dimensions");
  const int64_t planes = x.shape[0] * x.shape[1];
  const int64_t size = x.elements() / std::max<int64_t>(planes, 1);
  if (y.elements() != planes) throw Error("GlobalAveragePool output must be N x C x 1...");
  const int32_t zx = perTensorQuant(g, n.inputs[0]).zero_point;
  const Requantizer rq(n, 1, perTensorQuant(g, n.outputs.at(0)).zero_point, false, activationBits(y.type));
  for (int64_t p = 0; p < planes; ++p) {
    int32_t acc = 0;
    for (int64_t i = 0; i < size; ++i) acc = arith::add(acc, arith::widen(laneAt(x, p * size + i), zx, 1));
    setLane(y, p, rq(acc, 0));
  }
}

}  // namespace

}  // namespace systole::compiler::int8_kernels

namespace systole::compiler {

namespace {

// ---- shapes ----

std::vector<OutputInfo> convShape(const ShapeCtx& c) {
  c.need(2);
  const auto& x = c.x();
  const ops::Operand& w = c.in[1];
  const size_t rank = c.rank();
  if (rank < 3 || w.shape.size() != rank)
    throw Error("Conv input " + ops::shapeText(x.shape) + " and weight " + ops::shapeText(w.shape) + " do not match");
  const int64_t group = c.n.getInt("group", 1);
  if (group <= 0 || x.shape[1] != w.shape[1] * group || w.shape[0] % group != 0)
    throw Error("Conv input has " + std::to_string(x.shape[1]) + " channels; the weight " + ops::shapeText(w.shape) +
                " with group " + std::to_string(group) + " expects " + std::to_string(w.shape[1] * group));
  std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  if (c.n.has("kernel_shape") && c.n.getInts("kernel_shape") != kernel)
    throw Error("Conv kernel_shape does not match the weight");
  if (ops::present(c.in, 2) && c.in[2].elements() != w.shape[0])
    throw Error("Conv bias has " + std::to_string(c.in[2].elements()) + " values for " + std::to_string(w.shape[0]) +
                " output channels");
  const auto win = ops::windows(c.n, x.shape, kernel, false);
  std::vector<int64_t> shape = {x.shape[0], w.shape[0]};
  shape.insert(shape.end(), win.out.begin(), win.out.end());
  return c.same(shape);
}

std::vector<OutputInfo> convTransposeShape(const ShapeCtx& c) {
  c.need(2);
  const auto& x = c.x();
  const ops::Operand& w = c.in[1];
  const size_t rank = c.rank();
  const int64_t group = c.n.getInt("group", 1);
  if (rank < 3 || w.shape.size() != rank || group <= 0 || x.shape[1] != w.shape[0] || w.shape[0] % group != 0)
    throw Error("ConvTranspose input " + ops::shapeText(x.shape) + " and weight " + ops::shapeText(w.shape) +
                " with group " + std::to_string(group) + " do not match");
  std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  if (c.n.has("kernel_shape") && c.n.getInts("kernel_shape") != kernel)
    throw Error("ConvTranspose kernel_shape does not match the weight");
  if (ops::present(c.in, 2) && c.in[2].elements() != w.shape[1] * group)
    throw Error("ConvTranspose bias has " + std::to_string(c.in[2].elements()) + " values for " +
                std::to_string(w.shape[1] * group) + " output channels");
  const auto win = ops::transposedWindows(c.n, x.shape, kernel);
  std::vector<int64_t> shape = {x.shape[0], w.shape[1] * group};
  shape.insert(shape.end(), win.out.begin(), win.out.end());
  return c.same(shape);
}

std::vector<OutputInfo> poolShape(const ShapeCtx& c) {
  const auto& x = c.x();
  if (c.rank() < 3) throw Error(c.n.op + " needs spatial dimensions");
  const auto win = ops::windows(c.n, x.shape, c.n.getInts("kernel_shape"), c.n.getInt("ceil_mode", 0) != 0);
  std::vector<int64_t> shape = {x.shape[0], x.shape[1]};
  shape.insert(shape.end(), win.out.begin(), win.out.end());
  auto out = c.same(shape);
  if (out.size() > 1) out[1].type = ElemType::Int64;
  return out;
}

std::vector<OutputInfo> globalAveragePoolShape(const ShapeCtx& c) {
  if (c.rank() < 3) throw Error("GlobalAveragePool needs spatial dimensions");
  std::vector<int64_t> shape(c.rank(), 1);
  shape[0] = c.x().shape[0];
  shape[1] = c.x().shape[1];
  return c.same(shape);
}

std::vector<OutputInfo> gemmShape(const ShapeCtx& c) {
  c.need(2);
  const auto& x = c.x();
  const auto& b = c.in[1];
  if (c.rank() != 2 || b.shape.size() != 2) throw Error("Gemm operands must be matrices");
  const bool ta = c.n.getInt("transA", 0) != 0, tb = c.n.getInt("transB", 0) != 0;
  const int64_t m = ta ? x.shape[1] : x.shape[0], k = ta ? x.shape[0] : x.shape[1];
  const int64_t k2 = tb ? b.shape[1] : b.shape[0], nn = tb ? b.shape[0] : b.shape[1];
  if (k != k2) throw Error("Gemm inner dimensions differ: " + std::to_string(k) + " vs " + std::to_string(k2));
  std::vector<int64_t> shape = {m, nn};
  if (ops::present(c.in, 2) && ops::broadcast(c.in[2].shape, shape) != shape)
    throw Error("Gemm C " + ops::shapeText(c.in[2].shape) + " does not broadcast to " + ops::shapeText(shape));
  return c.same(shape);
}

std::vector<int64_t> matmulOutput(std::vector<int64_t> a, std::vector<int64_t> b) {
  if (a.empty() || b.empty()) throw Error("MatMul operands must have at least one dimension");
  const bool aVec = a.size() == 1, bVec = b.size() == 1;
  if (aVec) a.insert(a.begin(), 1);
  if (bVec) b.push_back(1);
  const int64_t k = a.back(), k2 = b[b.size() - 2];
  if (k != k2) throw Error("MatMul inner dimensions differ: " + ops::shapeText(a) + " x " + ops::shapeText(b));
  std::vector<int64_t> batchA(a.begin(), a.end() - 2), batchB(b.begin(), b.end() - 2);
  std::vector<int64_t> out = ops::broadcast(batchA, batchB);
  if (!aVec) out.push_back(a[a.size() - 2]);
  if (!bVec) out.push_back(b.back());
  return out;
}

/// B's shape as the product reads it: with Systole's transB (attention-layout) B is [..., N, K].
std::vector<int64_t> productOperandB(const Node& n, std::vector<int64_t> b) {
  if (n.getInt("transB", 0) != 0) {
    if (b.size() < 2) throw Error("MatMul with transB needs a B of rank >= 2");
    std::swap(b[b.size() - 1], b[b.size() - 2]);
  }
  return b;
}

std::vector<OutputInfo> matmulShape(const ShapeCtx& c) {
  c.need(2);
  std::vector<int64_t> shape = matmulOutput(c.x().shape, productOperandB(c.n, c.in[1].shape));
  if (ops::present(c.in, 2) && ops::broadcast(shape, c.in[2].shape) != shape)
    throw Error("MatMul bias " + ops::shapeText(c.in[2].shape) + " does not broadcast to " + ops::shapeText(shape));
  return c.same(shape);
}

// ---- MACs ----

const std::vector<int64_t>& shapeOf(const Graph& g, int v) { return g.values[static_cast<size_t>(v)].shape; }

/// Output elements times the weight's elements per output channel.
int64_t convMacs(const Graph& g, const Node& n) {
  if (n.outputs.empty() || n.inputs.size() < 2) return 0;
  const auto& w = shapeOf(g, n.inputs[1]);
  if (w.size() < 2) return 0;
  int64_t perOutput = w[1];
  for (size_t d = 2; d < w.size(); ++d) perOutput *= w[d];
  return g.values[static_cast<size_t>(n.outputs[0])].elements() * perOutput;
}

/// Output elements times the reduction length.
int64_t matmulMacs(const Graph& g, const Node& n) {
  if (n.outputs.empty() || n.inputs.size() < 2) return 0;
  const auto& a = shapeOf(g, n.inputs[0]);
  if (a.empty()) return 0;
  const bool transA = n.op == Op::Gemm && n.getInt("transA", 0) != 0;
  return g.values[static_cast<size_t>(n.outputs[0])].elements() * (transA ? a.front() : a.back());
}

}  // namespace

void defineLinearOps(OpTable& t) {
  using namespace float_kernels;
  t.floatKernels({
      {Op::Conv, conv},
      {Op::ConvTranspose, convTranspose},
      {Op::Gemm, gemm},
      {Op::MatMul, matmul},
      {Op::MaxPool,
       [](const Ctx& c) {
         if (c.out.size() > 1 && c.out[1]) throw Error("MaxPool's Indices output is not supported");
         pool(c, true);
       }},
      {Op::AveragePool, [](const Ctx& c) { pool(c, false); }},
      {Op::GlobalAveragePool, globalAveragePool},
  });
  t.shapes({
      {Op::Conv, convShape},
      {Op::ConvTranspose, convTransposeShape},
      {Op::Gemm, gemmShape},
      {Op::MatMul, matmulShape},
      {Op::MaxPool, poolShape},
      {Op::AveragePool, poolShape},
      {Op::GlobalAveragePool, globalAveragePoolShape},
  });
  t[Op::Conv].macs = convMacs;
  t[Op::Gemm].macs = matmulMacs;
  t[Op::MatMul].macs = matmulMacs;
  t.flag(kImported,
         {Op::AveragePool, Op::Conv, Op::ConvTranspose, Op::Gemm, Op::GlobalAveragePool, Op::MatMul, Op::MaxPool});
  t.int8Kernels({
      {Op::Conv, int8_kernels::conv},
      {Op::Gemm, int8_kernels::matmul},
      {Op::MatMul, int8_kernels::matmul},
      {Op::MaxPool, int8_kernels::maxPool},
      {Op::AveragePool, int8_kernels::averagePool},
      {Op::GlobalAveragePool, int8_kernels::globalAveragePool},
  });
  t.int8Form(Int8Form::Conv, {Op::Conv});
  t.int8Form(Int8Form::Gemm, {Op::Gemm});
  t.int8Form(Int8Form::MatMul, {Op::MatMul});
  t.int8Form(Int8Form::MaxPool, {Op::MaxPool});
  t.int8Form(Int8Form::AveragePool, {Op::AveragePool});
  t.int8Form(Int8Form::GlobalAveragePool, {Op::GlobalAveragePool});
}

}  // namespace systole::compiler
