// The bundled ONNX model (tests/models/bundled/tiny_cnn.onnx: Conv-BN-ReLU, MaxPool, a residual
// Add, GlobalAveragePool, Flatten, Gemm) imported, optimized, quantized with each calibration
// method, and compared with the float graph: on PyTorch's own input and on fresh random inputs.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "quant_test_util.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/onnx_import.h"
#include "systole/compiler/passes.h"
#include "systole/compiler/quantize.h"
#include "systole/isa/npy.h"

namespace systole::compiler {
namespace {

HostTensor loadNpy(const std::string& path) {
  NpyArray a = readNpy(path);
  EXPECT_EQ(a.dtype, isa::DType::Float32) << path;
  HostTensor t(ElemType::Float32, a.shape);
  t.bytes = std::move(a.bytes);
  return t;
}

class TinyCnn : public ::testing::TestWithParam<CalibrationMethod> {};

TEST_P(TinyCnn, QuantizedMatchesFloat) {
  const std::string base = std::string(SYSTOLE_SOURCE_DIR) + "/tests/models/bundled/tiny_cnn";
  if (!std::filesystem::exists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is not in the tree";
  Graph fg = importOnnx(base + ".onnx");
  optimize(fg);
  ASSERT_EQ(fg.inputs.size(), 1u);
  ASSERT_EQ(fg.outputs.size(), 1u);
  const std::string in = fg.values[static_cast<size_t>(fg.inputs[0])].name;
  const std::string out = fg.values[static_cast<size_t>(fg.outputs[0])].name;

  Graph q = fg;
  QuantOptions opts;
  opts.method = GetParam();
  const QuantSummary s = quantize(q, makeRandomInputs(fg, 32, /*seed=*/1, RandomDistribution::Normal), opts);
  EXPECT_NO_THROW(q.verify());
  EXPECT_EQ(s.float_nodes, 0) << q.print();
  EXPECT_EQ(s.quantize_linear, 1);
  EXPECT_EQ(s.dequantize_linear, 1);

  // PyTorch's input; the model was exported in eval mode, so the float graph reproduces its output.
  const HostTensor x = loadNpy(base + ".input.npy");
  const HostTensor torchOut = loadNpy(base + ".output.npy");
  const auto want = interpret(fg, {{in, x}});
  const auto got = interpret(q, {{in, x}});
  const double cosTorch = test::cosineSimilarity(torchOut, got.at(out));
  const double cosFloat = test::cosineSimilarity(want.at(out), got.at(out));
  double worstRandom = 1.0;
  for (const auto& sample : makeRandomInputs(fg, 8, /*seed=*/77, RandomDistribution::Normal))
    worstRandom =
        std::min(worstRandom, test::cosineSimilarity(interpret(fg, sample).at(out), interpret(q, sample).at(out)));
  std::printf(
      "[ cosine   ] tiny_cnn %-10s vs float %.6f, vs PyTorch %.6f, worst of 8 random inputs %.6f (int8 nodes %d)\n",
      std::string(calibrationMethodName(opts.method)).c_str(), cosFloat, cosTorch, worstRandom, s.quantized_nodes);
  EXPECT_GE(cosFloat, 0.99);
  EXPECT_GE(cosTorch, 0.99);
  EXPECT_GE(worstRandom, 0.99);
}

INSTANTIATE_TEST_SUITE_P(Methods, TinyCnn,
                         ::testing::Values(CalibrationMethod::MinMax, CalibrationMethod::Percentile,
                                           CalibrationMethod::Entropy),
                         [](const auto& info) { return std::string(calibrationMethodName(info.param)); });

}  // namespace
}  // namespace systole::compiler
