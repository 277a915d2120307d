// The compiled-model artifact: it round-trips, and a model description cut short or with a
// corrupted byte (resealed, so the container's checksum passes) is an Error, never a crash.
#include <gtest/gtest.h>

#include "systole/compiler/artifact.h"
#include "systole/compiler/pipeline.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {
namespace {

struct Compiled {
  isa::IsaConfig isa = isa::IsaConfig::load(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/tiny.yaml");
  PipelineResult result =
      runPipeline(std::string(SYSTOLE_SOURCE_DIR) + "/tests/models/bundled/tiny_cnn.onnx", isa, PipelineOptions{});
};

const Compiled& compiled() {
  static const Compiled c;
  return c;
}

TEST(Artifact, RoundTrips) {
  const auto& c = compiled();
  const auto bytes = serializeArtifact(c.isa, c.result.graph, *c.result.compiled);
  const Artifact a = deserializeArtifact(bytes, "m.sbin");
  EXPECT_EQ(a.isa_name, "tiny");
  EXPECT_EQ(a.graph.print(), c.result.graph.print());
  ASSERT_EQ(a.model.schedule.size(), c.result.compiled->schedule.size());
  for (size_t i = 0; i < a.model.schedule.size(); ++i) {
    EXPECT_EQ(a.model.schedule[i].host_node, c.result.compiled->schedule[i].host_node);
    if (a.model.schedule[i].npu) {
      EXPECT_EQ(a.model.schedule[i].npu->program, c.result.compiled->schedule[i].npu->program);
    }
  }
  EXPECT_NO_THROW(checkArtifactMatches(a, c.isa, "m.sbin"));
  const isa::IsaConfig other = isa::IsaConfig::load(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/default.yaml");
  EXPECT_THROW(checkArtifactMatches(a, other, "m.sbin"), Error);
}

TEST(Artifact, EveryTruncatedOrCorruptedDescriptionIsAnError) {
  const auto& c = compiled();
  const isa::ModelContainer good =
      isa::deserializeModelSbin(serializeArtifact(c.isa, c.result.graph, *c.result.compiled), "m.sbin");
  const size_t size = good.model.size();
  for (size_t cut = 0; cut < size; cut += std::max<size_t>(1, size / 300)) {
    isa::ModelContainer bad = good;
    bad.model.resize(cut);
    EXPECT_THROW(deserializeArtifact(isa::serializeModelSbin(bad), "m.sbin"), Error) << "cut at " << cut;
  }
  for (size_t at = 0; at < size; at += std::max<size_t>(1, size / 300)) {
    isa::ModelContainer bad = good;
    bad.model[at] ^= 0xa5;
    try {
      (void)deserializeArtifact(isa::serializeModelSbin(bad),
                                "m.sbin");  // a byte of a name or a weight may still parse
    } catch (const Error&) {}
  }
}

}  // namespace
}  // namespace systole::compiler
