// A small network builder for the quantization tests: convolutions and matrix products with
// seeded He-style weights, and a two-convolution graph several tests start from.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "quant_test_util.h"

namespace systole::compiler::test {

/// Weights uniform in +-sqrt(6 / fanIn) (He-style), so activations keep their scale.
inline std::vector<float> heWeights(size_t n, int64_t fanIn, std::mt19937& rng, float gain = 1.0f) {
  const float a = gain * std::sqrt(6.0f / static_cast<float>(fanIn));
  return test::randomFloats(n, rng, -a, a);
}

struct Net {
  GraphBuilder b;
  std::mt19937 rng{1234};

  int conv(const std::string& name, int x, int64_t outC, int64_t k, int64_t stride, int64_t pad,
           const std::string& act = "", float gain = 1.0f, int64_t group = 1) {
    const std::vector<int64_t> xs = b.g.values[static_cast<size_t>(x)].shape;  // a copy: adding values moves them
    const int64_t inC = xs[1], icg = inC / group;
    const int64_t oh = (xs[2] + 2 * pad - k) / stride + 1, ow = (xs[3] + 2 * pad - k) / stride + 1;
    const int w = b.constF(name + ".w", {outC, icg, k, k},
                           heWeights(static_cast<size_t>(outC * icg * k * k), icg * k * k, rng, gain));
    const int bias = b.constF(name + ".b", {outC}, test::randomFloats(static_cast<size_t>(outC), rng, -0.1f, 0.1f));
    std::map<std::string, AttrValue> attrs = {{"kernel_shape", std::vector<int64_t>{k, k}},
                                              {"strides", std::vector<int64_t>{stride, stride}},
                                              {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
                                              {"group", group}};
    if (!act.empty()) attrs["activation"] = act;
    if (act == "clip") {
      attrs["clip_min"] = 0.0;
      attrs["clip_max"] = 6.0;
    }
    return b.node("Conv", {x, w, bias}, name, {xs[0], outC, oh, ow}, attrs);
  }

  int gemm(const std::string& name, int x, int64_t outN, bool transB, const std::string& act = "") {
    const int64_t M = b.g.values[static_cast<size_t>(x)].shape[0], K = b.g.values[static_cast<size_t>(x)].shape[1];
    const int w = b.constF(name + ".w", transB ? std::vector<int64_t>{outN, K} : std::vector<int64_t>{K, outN},
                           heWeights(static_cast<size_t>(K * outN), K, rng));
    const int c = b.constF(name + ".c", {outN}, test::randomFloats(static_cast<size_t>(outN), rng, -0.1f, 0.1f));
    std::map<std::string, AttrValue> attrs = {{"transB", int64_t{transB ? 1 : 0}}, {"alpha", 1.0}, {"beta", 1.0}};
    if (!act.empty()) attrs["activation"] = act;
    return b.node("Gemm", {x, w, c}, name, {M, outN}, attrs);
  }
};

/// x [1, 3, 16, 16] -> Conv 3x3 (16 channels, `act`) -> Conv 3x3 stride 2 (8 channels).
inline Graph convReluGraph(const std::string& act = "relu") {
  Net n;
  const int x = n.b.input("x", {1, 3, 16, 16});
  const int c1 = n.conv("conv1", x, 16, 3, 1, 1, act);
  const int c2 = n.conv("conv2", c1, 8, 3, 2, 1);
  n.b.output(c2);
  return n.b.g;
}

}  // namespace systole::compiler::test
