// Using Systole from C++: compile an ONNX model for an NPU config, run it on the simulator with
// the reference check, and print the top class and the cycle count.
//
//   classify MODEL.onnx CONFIG      (CONFIG: a .yaml path, or a shipped config's name: "tiny")
#include <cstdio>
#include <exception>
#include <string>

#include "systole/compiler/pipeline.h"
#include "systole/isa/shipped_configs.h"
#include "systole/runtime/session.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL.onnx CONFIG.yaml|NAME\n", argv[0]);
    return 2;
  }
  try {
    using namespace systole;
    // A shipped config by name is found relative to the install, or in $SYSTOLE_CONFIG_DIR.
    const std::string configArg = argv[2];
    const bool path = configArg.find('/') != std::string::npos || configArg.ends_with(".yaml");
    const isa::IsaConfig config = isa::IsaConfig::load(path ? configArg : isa::shippedConfigPath(configArg));

    // Import, optimize, quantize and lower: the stages and defaults of `systole compile` and
    // `systole run` (calibration on 8 random inputs from seed 0; see PipelineOptions).
    compiler::PipelineOptions options;
    compiler::PipelineResult compiled = compiler::runPipeline(argv[1], config, options);

    // Bind a (random) input and run: host quantization, NPU programs on the simulator, host
    // dequantization; --check semantics: every NPU output compared with the reference.
    runtime::Session session(config, std::move(*compiled.compiled), compiled.graph);
    runtime::RunOptions run;
    run.check = true;
    const runtime::RunResult result = session.run(runtime::randomInputs(compiled.graph, 7), run);
    if (result.mismatch) {
      std::fprintf(stderr, "check failed: %s\n", result.mismatch->describe().c_str());
      return 1;
    }
    for (const auto& [name, tensor] : result.outputs) {
      const float* scores = tensor.data<float>();
      int64_t best = 0;
      for (int64_t i = 1; i < tensor.elements(); ++i)
        if (scores[i] > scores[best]) best = i;
      std::printf("%s: class %lld (score %.4f)\n", name.c_str(), static_cast<long long>(best), scores[best]);
    }
    std::printf("%llu cycles on '%s', %zu NPU program(s), outputs equal the reference bit for bit\n",
                static_cast<unsigned long long>(result.sim.stats.cycles), config.params().name.c_str(),
                result.programs);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
