// Algorithm: quantizeMultiplier splits r with frexp (r = f * 2^e, f in [0.5, 1)), takes
// M = round(f * 2^31) and S = 31 - e, renormalises the one rounding case M = 2^31, then clamps S
// into [0, 63]. The other functions are the textbook affine / symmetric int8 formulas of
// docs/quantized-ops.md, evaluated in double from the float scales that the graph stores (so the
// numbers derived later from a stored scale match the ones chosen here).
#include "systole/compiler/quant_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "systole/isa/diagnostic.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

FixedMultiplier quantizeMultiplier(double r, int bits) {
  if (std::isnan(r) || r < 0) throw Error("quantizeMultiplier: the real multiplier must be >= 0");
  if (bits < 2 || bits > 31) throw Error("quantizeMultiplier: a " + std::to_string(bits) + "-bit multiplier");
  const int64_t maxM = (int64_t{1} << bits) - 1;
  if (r == 0) return {0, 0};
  if (std::isinf(r)) return {static_cast<int32_t>(maxM), 0};
  int e = 0;
  const double f = std::frexp(r, &e);  // r = f * 2^e, f in [0.5, 1)
  int64_t m = std::llround(std::ldexp(f, bits));
  int s = bits - e;
  if (m == (int64_t{1} << bits)) {  // f rounded up to 1.0
    m = int64_t{1} << (bits - 1);
    --s;
  }
  if (s > 63) {  // r too small for the largest shift: a smaller multiplier (possibly 0)
    s = 63;
    m = std::llround(std::ldexp(r, 63));
  } else if (s < 0) {  // r >= 2^bits (after rounding): saturate
    s = 0;
    m = maxM;
  }
  return {static_cast<int32_t>(m), static_cast<int32_t>(s)};
}

double roundHalfToEven(double x) {
  // Integer arithmetic for floor and parity (no libm calls: this runs for every weight); from 2^52
  // on every double is an integer already, and zero keeps its sign. Ties go up from an odd floor.
  constexpr double kAllIntegers = 4503599627370496.0;  // 2^52
  if (x == 0 || !(std::fabs(x) < kAllIntegers)) return x;
  // Without branches, which random weights would mispredict half the time.
  const auto toward = static_cast<int64_t>(x);
  const int64_t f = toward - int64_t{static_cast<double>(toward) > x};  // floor(x)
  const double d = x - static_cast<double>(f);
  return static_cast<double>(f + int64_t{(d > 0.5) | ((d == 0.5) & ((f & 1) != 0))});
}

namespace {
double actMin(int bits) { return isa::arith::activationMin(bits); }
double actMax(int bits) { return isa::arith::activationMax(bits); }
}  // namespace

ActivationQuant chooseActivationQuant(double lo, double hi, int bits) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) throw Error("activation range must be finite");
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  if (hi - lo == 0) return {1.0f, 0, bits};
  const double width = (hi - lo) / (actMax(bits) - actMin(bits));
  const float s = static_cast<float>(
      std::clamp(width, double{std::numeric_limits<float>::min()}, double{std::numeric_limits<float>::max()}));
  const double z = std::round(actMin(bits) - lo / static_cast<double>(s));
  return {s, static_cast<int32_t>(std::clamp(z, actMin(bits), actMax(bits))), bits};
}

ActivationQuant chooseSymmetricQuant(double magnitude, int bits) {
  if (!std::isfinite(magnitude)) throw Error("activation range must be finite");
  if (magnitude <= 0) return {1.0f, 0, bits};
  return {static_cast<float>(std::clamp(magnitude / actMax(bits), double{std::numeric_limits<float>::min()},
                                        double{std::numeric_limits<float>::max()})),
          0, bits};
}

int32_t quantizeFloat(float x, float scale, int32_t zero_point, int bits) {
  const float v = x / scale;
  if (std::isnan(v)) return isa::arith::saturateActivation(zero_point, bits);
  const double q = roundHalfToEven(static_cast<double>(v)) + zero_point;
  return static_cast<int32_t>(std::clamp(q, actMin(bits), actMax(bits)));
}

QuantizedWeights quantizeWeightsPerChannel(const float* w, const std::vector<int64_t>& shape, int axis, int bits) {
  if (axis < 0 || axis >= static_cast<int>(shape.size())) throw Error("weight quantization axis out of range");
  if (bits < 2 || bits > 8) throw Error("weight quantization: " + std::to_string(bits) + "-bit weights");
  const double qmax = symmetricWeightMax(bits);  // symmetric: -qmax .. qmax
  const int64_t channels = shape[static_cast<size_t>(axis)];
  std::vector<double> absMax(static_cast<size_t>(channels), 0.0);
  forEachChannelElement(shape, axis, [&](int64_t i, size_t c) {
    const double a = std::fabs(static_cast<double>(w[i]));
    if (!std::isfinite(a)) throw Error("weight quantization: a weight is not finite");
    absMax[c] = std::max(absMax[c], a);
  });
  std::vector<float> scale(static_cast<size_t>(channels));
  for (size_t c = 0; c < scale.size(); ++c) {
    const double s = absMax[c] / qmax;
    scale[c] = s > 0 ? std::max(static_cast<float>(s), std::numeric_limits<float>::min()) : 1.0f;
  }
  return quantizeWeightsWithScales(w, shape, axis, bits, std::move(scale));
}

QuantizedWeights quantizeWeightsWithScales(const float* w, const std::vector<int64_t>& shape, int axis, int bits,
                                           std::vector<float> scale) {
  const double qmax = symmetricWeightMax(bits);
  QuantizedWeights q;
  q.scale = std::move(scale);
  q.data.resize(static_cast<size_t>(elementCount(shape)));
  forEachChannelElement(shape, axis, [&](int64_t i, size_t c) {
    const double v = roundHalfToEven(static_cast<double>(w[i]) / static_cast<double>(q.scale[c]));
    q.data[static_cast<size_t>(i)] = static_cast<int8_t>(std::clamp(v, -qmax, qmax));
  });
  return q;
}

std::vector<int32_t> quantizeBias(const std::vector<float>& b, float s_x, const std::vector<float>& s_w) {
  if (b.size() != s_w.size()) throw Error("bias quantization: one bias per weight channel expected");
  std::vector<int32_t> q(b.size());
  for (size_t c = 0; c < b.size(); ++c) {
    const double scale = static_cast<double>(s_x) * static_cast<double>(s_w[c]);
    const double v = roundHalfToEven(static_cast<double>(b[c]) / scale);
    if (std::isnan(v)) throw Error("bias quantization: a bias is not finite");
    q[c] = static_cast<int32_t>(
        std::clamp(v, double{std::numeric_limits<int32_t>::min()}, double{std::numeric_limits<int32_t>::max()}));
  }
  return q;
}

namespace {
int32_t saturatedRound(const ActivationQuant& q, double real) {
  const double v = q.zero_point + roundHalfToEven(real / static_cast<double>(q.scale));
  return static_cast<int32_t>(std::clamp(v, actMin(q.bits), actMax(q.bits)));  // also maps +-inf
}
}  // namespace

ActivationClamp reluClamp(const ActivationQuant& q) {
  return {std::max(q.zero_point, isa::arith::activationMin(q.bits)), isa::arith::activationMax(q.bits)};
}

ActivationClamp clipClamp(const ActivationQuant& q, double a, double b) {
  ActivationClamp c = fullRange(q.bits);
  if (!std::isnan(a)) c.lo = saturatedRound(q, a);
  if (!std::isnan(b)) c.hi = saturatedRound(q, b);
  return c;
}

bool Window2d::windowsInsidePadded() const {
  return (out_h - 1) * stride_h + (k_h - 1) * dil_h + 1 <= in_h + pad_top + pad_bottom &&
         (out_w - 1) * stride_w + (k_w - 1) * dil_w + 1 <= in_w + pad_left + pad_right;
}

Window2d windowOf(const Node& n, const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                  const std::vector<int64_t>& kernel) {
  const size_t rank = in.size();
  if ((rank != 3 && rank != 4) || out.size() != rank) throw Error("only 1-D and 2-D windows are supported");
  const size_t sp = rank - 2;
  if (kernel.size() != sp) throw Error("kernel shape does not match the input's spatial rank");
  auto spatial = [&](const char* attr, int64_t fallback) {
    std::vector<int64_t> v = n.getInts(attr, std::vector<int64_t>(sp, fallback));
    if (v.size() != sp) throw Error(std::string("attribute '") + attr + "' has the wrong length");
    for (int64_t x : v)
      if (x < 1) throw Error(std::string("attribute '") + attr + "' must be positive");
    return v;
  };
  const std::vector<int64_t> strides = spatial("strides", 1);
  const std::vector<int64_t> dils = spatial("dilations", 1);
  const std::vector<int64_t> pads = n.getInts("pads", std::vector<int64_t>(2 * sp, 0));
  if (pads.size() != 2 * sp) throw Error("attribute 'pads' has the wrong length");
  std::vector<int64_t> begin(pads.begin(), pads.begin() + static_cast<ptrdiff_t>(sp)),
      end(pads.begin() + static_cast<ptrdiff_t>(sp), pads.end());
  for (size_t d = 0; d < sp; ++d)
    if (begin[d] < 0 || end[d] < 0) throw Error("negative pads are not supported");
  Window2d w;
  const size_t h = sp == 2 ? 0 : sp, x = sp - 1;  // h == sp marks "no H dimension"
  w.in_w = in[2 + x];
  w.out_w = out[2 + x];
  w.k_w = kernel[x];
  w.stride_w = strides[x];
  w.dil_w = dils[x];
  w.pad_left = begin[x];
  w.pad_right = end[x];
  if (h < sp) {
    w.in_h = in[2 + h];
    w.out_h = out[2 + h];
    w.k_h = kernel[h];
    w.stride_h = strides[h];
    w.dil_h = dils[h];
    w.pad_top = begin[h];
    w.pad_bottom = end[h];
  }
  return w;
}

}  // namespace systole::compiler
