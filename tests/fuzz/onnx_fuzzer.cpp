// Fuzz target: ONNX import (protobuf parse, our validation, ONNX's checker and shape inference)
// and, for a small model it accepts, every later compiler stage (graph passes, calibration and
// quantization, partition, tiling, memory planning, scheduling, assembly text) on the tiny config,
// or, for an input of odd size, on default with int16 activations; a third of the inputs (size a
// multiple of 3) also go through cross-layer equalization (relu6).
// Only systole::Error may escape. Compiling stays short: models of at most kMaxElements values'
// elements in all and kMaxNodes nodes go past import, with one calibration sample on one thread.
#include "fuzz_support.h"
#include "systole/compiler/pipeline.h"
#include "systole/isa/diagnostic.h"

namespace {

constexpr int64_t kMaxElements = int64_t{1} << 16;
constexpr size_t kMaxNodes = 64;

bool smallEnough(const systole::compiler::Graph& g) {
  if (g.nodes.size() > kMaxNodes) return false;
  int64_t total = 0;
  for (const auto& v : g.values) {
    if (v.elements() > kMaxElements - total) return false;
    total += v.elements();
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  const auto& config = size % 2 ? fuzz::int16Config() : *fuzz::shippedConfig("tiny");
  compiler::PipelineOptions options;
  options.quant.num_samples = 1;
  options.quant.jobs = 1;
  options.keep_float_graph = false;
  if (size % 3 == 0) options.quant.equalization = compiler::Equalization::Relu6;
  try {
    compiler::PipelineResult r;
    r.model_path = "fuzz.onnx";
    r.graph = compiler::importOnnxBytes(fuzz::text(data, size), r.model_path, options.import);
    if (!smallEnough(r.graph)) return 0;
    const auto& stages = compiler::stageTable();  // stage 0, graph, is the import above
    for (size_t i = 1; i < stages.size(); ++i) {
      if (stages[i].run) stages[i].run(r, config, options);
      r.last_stage = stages[i].name;
    }
    (void)compiler::stageText(r, config);
  } catch (const Error& e) {
    fuzz::rejected(e);
  }
  return 0;
}
