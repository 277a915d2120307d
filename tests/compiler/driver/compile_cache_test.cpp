// The compile cache through the C++ API: a hit gives the same artifact bytes and the same float
// graph as a fresh compile; every option in the key changes it; a corrupt entry is rebuilt.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "systole/compiler/compile_cache.h"
#include "systole/isa/file_io.h"

namespace systole::compiler {
namespace {

namespace fs = std::filesystem;

const std::string kModel = std::string(SYSTOLE_SOURCE_DIR) + "/tests/models/bundled/tiny_cnn.onnx";

struct CacheTest : ::testing::Test {
  isa::IsaConfig isa = isa::IsaConfig::load(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/tiny.yaml");
  std::string dir = (fs::temp_directory_path() / ("systole-cache-test-" + std::to_string(::getpid()))).string();
  void SetUp() override { fs::remove_all(dir); }
  void TearDown() override { fs::remove_all(dir); }
};

TEST_F(CacheTest, HitEqualsAFreshCompile) {
  const CompileCache cache(dir);
  const PipelineResult fresh = runPipeline(kModel, isa, PipelineOptions{});
  const CachedCompile miss = runPipelineCached(kModel, isa, PipelineOptions{}, cache);
  EXPECT_FALSE(miss.reused);
  ASSERT_TRUE(fs::exists(miss.entry));
  const CachedCompile hit = runPipelineCached(kModel, isa, PipelineOptions{}, cache);
  EXPECT_TRUE(hit.reused);
  EXPECT_EQ(hit.entry, miss.entry);
  EXPECT_EQ(serializeArtifact(isa, hit.result.graph, *hit.result.compiled),
            serializeArtifact(isa, fresh.graph, *fresh.compiled));
  EXPECT_EQ(hit.result.float_graph.print(), fresh.float_graph.print());
}

TEST_F(CacheTest, EveryProgramOptionIsInTheKey) {
  const std::string base = compileCacheKey(kModel, isa, PipelineOptions{});
  EXPECT_EQ(compileCacheKey(kModel, isa, PipelineOptions{}), base);
  std::vector<PipelineOptions> changed(8);
  changed[0].passes = {"infer-shapes"};
  changed[1].quant.method = CalibrationMethod::MinMax;
  changed[2].quant.percentile = 99.9;
  changed[3].quant.num_samples = 4;
  changed[4].calibration_seed = 1;
  changed[5].lower.min_npu_macs = 10;
  changed[6].lower.keep_intermediates = true;
  changed[7].import.input_shapes["input"] = {1, 3, 16, 16};
  for (size_t i = 0; i < changed.size(); ++i)
    EXPECT_NE(compileCacheKey(kModel, isa, changed[i]), base) << "option " << i;
  PipelineOptions jobs;  // threads do not change the program
  jobs.quant.jobs = 3;
  EXPECT_EQ(compileCacheKey(kModel, isa, jobs), base);
  const isa::IsaConfig overridden = isa::IsaConfig::load(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/tiny.yaml",
                                                         {isa::ConfigOverride::parse("memories.dram.latency=50")});
  EXPECT_NE(compileCacheKey(kModel, overridden, PipelineOptions{}), base);
}

TEST_F(CacheTest, CorruptEntryIsRebuiltWithAWarning) {
  const CompileCache cache(dir);
  const CachedCompile first = runPipelineCached(kModel, isa, PipelineOptions{}, cache);
  auto bytes = readBinaryFile(first.entry);
  bytes[bytes.size() / 2] ^= 0x5a;
  writeFileAtomic(first.entry, bytes.data(), bytes.size());
  const CachedCompile rebuilt = runPipelineCached(kModel, isa, PipelineOptions{}, cache);
  EXPECT_FALSE(rebuilt.reused);
  EXPECT_NE(rebuilt.warning.find("warning: unusable compile cache entry"), std::string::npos) << rebuilt.warning;
  EXPECT_TRUE(runPipelineCached(kModel, isa, PipelineOptions{}, cache).reused);
}

}  // namespace
}  // namespace systole::compiler
