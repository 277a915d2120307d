// One compile path: the C++ API (compiler::runPipeline), `systole compile -o X.sbin`,
// `systole compile --emit=asm` and `systole run --emit=asm` compile the bundled model to the same
// program on each config, with the same default options (calibration included).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "systole/compiler/artifact.h"
#include "systole/compiler/pipeline.h"
#include "systole/isa/file_io.h"
#include "systole/isa/program.h"

namespace systole {
namespace {

const std::string kModel = std::string(SYSTOLE_SOURCE_DIR) + "/tests/models/bundled/tiny_cnn.onnx";

std::string configPath(const std::string& name) {
  return std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/" + name + ".yaml";
}

/// Runs `systole ARGS` and returns its stdout; fails the test unless it exits with 0.
std::string systole(const std::string& args) {
  const std::string command = std::string(SYSTOLE_BINARY) + " " + args;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    ADD_FAILURE() << "cannot run " << command;
    return {};
  }
  std::string out;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int status = pclose(pipe);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << " failed (status " << status << ")";
  return out;
}

class CompilePath : public ::testing::TestWithParam<std::string> {
 protected:
  std::string config() const { return configPath(GetParam()); }
  std::string commonArgs() const { return kModel + " --isa " + config(); }

  compiler::PipelineResult compileWithApi(const isa::IsaConfig& isa) const {
    return compiler::runPipeline(kModel, isa, compiler::PipelineOptions{});
  }
};

TEST_P(CompilePath, ApiAndCompileWriteTheSameProgramBytes) {
  const auto isa = isa::IsaConfig::load(config());
  const auto api = compileWithApi(isa);
  const std::vector<uint8_t> apiBytes = compiler::serializeArtifact(isa, api.graph, *api.compiled);

  const auto sbin = std::filesystem::path(::testing::TempDir()) /
                    ("compile_path_" + GetParam() + "_" + std::to_string(getpid()) + ".sbin");
  systole("compile " + commonArgs() + " -o " + sbin.string() + " > /dev/null");
  const std::vector<uint8_t> cliBytes = readBinaryFile(sbin.string());
  std::filesystem::remove(sbin);
  EXPECT_EQ(apiBytes, cliBytes);
}

TEST_P(CompilePath, RunAndCompileEmitTheSameAssembly) {
  const std::string compiled = systole("compile " + commonArgs() + " --emit=asm");
  const std::string run = systole("run " + commonArgs() + " --emit=asm");
  EXPECT_FALSE(compiled.empty());
  EXPECT_EQ(compiled, run);

  const auto isa = isa::IsaConfig::load(config());
  EXPECT_EQ(compiled, compiler::stageText(compileWithApi(isa), isa));
}

INSTANTIATE_TEST_SUITE_P(BundledModel, CompilePath, ::testing::Values("default", "tiny"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace systole
