// End to end, float: import each exported model, optimize it (verifying after every pass), run the
// float interpreter on the seeded input PyTorch saw and compare with PyTorch's output:
// max |ours - PyTorch| <= 1e-4 * max |PyTorch|. The graph with only the passes needed for static
// shapes (infer-shapes, fold-constants) is checked too, so unfused kernels are covered as well.
// The models come from tests/models/export_models.py (the ctest fixture `models_export`); the
// bundled tiny_cnn is in the source tree.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "compiler_test_util.h"
#include "systole/compiler/onnx_import.h"
#include "systole/isa/npy.h"

namespace systole::testing {
namespace {

HostTensor loadNpy(const std::string& path) {
  const NpyArray a = readNpy(path);
  EXPECT_EQ(a.dtype, isa::DType::Float32) << path;
  HostTensor t(ElemType::Float32, a.shape);
  t.bytes = a.bytes;
  return t;
}

void checkModel(const std::string& dir, const std::string& name) {
  const std::string base = dir + "/" + name;
  if (!std::filesystem::exists(base + ".onnx"))
    GTEST_FAIL() << base << ".onnx is missing: run `ctest -R models_export` or the `models` target";
  const HostTensor input = loadNpy(base + ".input.npy");
  const HostTensor expected = loadNpy(base + ".output.npy");
  const Graph imported = compiler::importOnnx(base + ".onnx");
  ASSERT_EQ(imported.inputs.size(), 1u);
  ASSERT_EQ(imported.outputs.size(), 1u);
  const std::string inName = imported.values[static_cast<size_t>(imported.inputs[0])].name;
  const std::string outName = imported.values[static_cast<size_t>(imported.outputs[0])].name;
  const double scale = maxAbs(expected);
  ASSERT_GT(scale, 0.0) << "PyTorch's output is all zeros";

  compiler::PassOptions verify;
  verify.verify = true;
  Graph minimal = imported;
  compiler::runPasses(minimal, {"infer-shapes", "fold-constants"}, verify);
  Graph optimized = imported;
  compiler::optimize(optimized, verify);

  for (const auto* g : {&minimal, &optimized}) {
    const auto out = compiler::interpret(*g, {{inName, input}});
    ASSERT_TRUE(out.count(outName));
    const double diff = maxAbsDiff(out.at(outName), expected);
    std::printf("%s (%s): max |ours - PyTorch| = %.3g, max |PyTorch| = %.4g, ratio %.2g\n", name.c_str(),
                g == &minimal ? "unoptimized" : "optimized", diff, scale, diff / scale);
    EXPECT_LE(diff, 1e-4 * scale) << name << (g == &minimal ? " (unoptimized)" : " (optimized)") << ": max |diff| "
                                  << diff << ", max |y| " << scale;
  }
}

class ExportedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(ExportedModel, FloatInterpreterMatchesPyTorch) { checkModel(SYSTOLE_MODELS_DIR, GetParam()); }

INSTANTIATE_TEST_SUITE_P(Models, ExportedModel,
                         ::testing::Values("mlp", "squeezenet1_1", "resnet18", "mobilenet_v2", "resnet50",
                                           "transformer", "tiny_cnn_opset9", "transformer_opset9",
                                           "transformer_opset17", "unet", "upsamplers", "lraspp", "crnn"),
                         [](const auto& info) { return info.param; });

TEST(BundledModel, TinyCnnMatchesPyTorch) {
  checkModel(std::string(SYSTOLE_SOURCE_DIR) + "/tests/models/bundled", "tiny_cnn");
}

}  // namespace
}  // namespace systole::testing
