// Host-operator time, the reference interpreter's kernels against the host JIT's native code
// (bench/host_jit.md). For each model: compile it for `default` (through the compile cache), take
// every host operator of its schedule with its real inputs (the whole quantized graph evaluated
// once by the interpreter on seeded random inputs), and time each operator both ways (the best of
// 5 rounds of REPS calls, outputs allocated outside the timing), checking the two agree bit for
// bit. Also times compiling the host code: cold (no cache) and warm (the object from the cache).
//   host_jit_bench [--reps N] MODEL.onnx...
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "systole/compiler/compile_cache.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/pipeline.h"
#include "systole/hostjit/host_jit.h"
#include "systole/isa/shipped_configs.h"
#include "systole/runtime/session.h"

using namespace systole;
using compiler::HostTensor;

namespace {

/// Per model, per operator type: count, interpreter seconds, JIT seconds (one inference).
std::map<std::string, std::map<std::string, std::array<double, 3>>> perOperator;

double secondsOf(const std::function<void()>& f, int reps) {
  double best = 1e30;
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps);
  }
  return best;
}

/// A host node with its inputs and room for its outputs, both ways.
struct Call {
  std::vector<HostTensor> constants, interpreted, compiled;
  std::vector<const HostTensor*> in;
  std::vector<HostTensor*> out;
  hostjit::Inputs bytesIn;
  hostjit::Outputs bytesOut;
};

Call prepare(const compiler::Graph& g, const compiler::Node& n, const std::map<std::string, HostTensor>& values) {
  Call c;
  c.constants.reserve(n.inputs.size());
  for (int v : n.inputs) {
    const auto& val = g.values[static_cast<size_t>(v)];
    if (val.is_constant) {
      c.constants.emplace_back(val.type, val.shape).bytes = val.data;
      c.in.push_back(&c.constants.back());
    } else {
      c.in.push_back(&values.at(val.name));
    }
    c.bytesIn.push_back(&c.in.back()->bytes);
  }
  for (int v : n.outputs) {
    c.interpreted.emplace_back(g.values[static_cast<size_t>(v)].type, g.values[static_cast<size_t>(v)].shape);
    c.compiled.emplace_back(g.values[static_cast<size_t>(v)].type, g.values[static_cast<size_t>(v)].shape);
  }
  for (auto& t : c.interpreted) c.out.push_back(&t);
  for (auto& t : c.compiled) c.bytesOut.push_back(&t.bytes);
  return c;
}

void benchModel(const std::string& path, const isa::IsaConfig& config, int reps) {
  compiler::PipelineOptions options;
  options.keep_float_graph = false;
  const auto compiled = compiler::runPipelineCached(path, config, options, compiler::CompileCache()).result;
  const compiler::Graph& g = compiled.graph;
  std::vector<int> nodes;
  for (const auto& item : compiled.compiled->schedule)
    if (!item.npu) nodes.push_back(item.host_node);
  const auto values = compiler::interpret(g, runtime::randomInputs(g, 1), true);

  const auto cacheDir =
      std::filesystem::temp_directory_path() / ("systole-host-jit-bench-" + std::to_string(::getpid()));
  const hostjit::HostJit jit(g, nodes);             // cold: no cache
  hostjit::HostJit(g, nodes, {cacheDir.string()});  // stores the object
  const double warm = hostjit::HostJit(g, nodes, {cacheDir.string()}).report().seconds;
  std::filesystem::remove_all(cacheDir);

  double interpreted = 0, native = 0, notLowered = 0;
  std::map<std::string, std::array<double, 3>> byOp;  // count, interpreter s, JIT s
  for (int id : nodes) {
    const compiler::Node& n = g.nodes[static_cast<size_t>(id)];
    Call c = prepare(g, n, values);
    const double ti = secondsOf([&] { compiler::runKernel(g, n, c.in, c.out); }, reps);
    const double tj = jit.compiled(id) ? secondsOf([&] { jit.run(id, c.bytesIn, c.bytesOut); }, reps) : ti;
    interpreted += ti;
    native += tj;
    auto& op = byOp[n.op];
    op[0] += 1, op[1] += ti, op[2] += tj;
    if (!jit.compiled(id)) {
      notLowered += ti;
      continue;
    }
    for (size_t k = 0; k < c.interpreted.size(); ++k)
      if (c.interpreted[k].bytes != c.compiled[k].bytes)
        std::printf("MISMATCH: node '%s' (%s) output %zu\n", n.name.c_str(), n.op.name().c_str(), k);
  }
  const double compile = jit.report().seconds;
  const double saved = interpreted - native;  // per inference
  std::printf("| %s | %zu | %zu | %.1f | %.1f | %.1fx | %.1f | %.1f | %.1f | %.1f / %.2f |\n",
              std::filesystem::path(path).stem().c_str(), nodes.size(), jit.report().compiled, 1e6 * interpreted,
              1e6 * native, interpreted / native, 1e6 * notLowered, 1e3 * compile, 1e3 * warm,
              saved > 0 ? compile / saved : 0.0, saved > 0 ? warm / saved : 0.0);
  perOperator[std::filesystem::path(path).stem().string()] = byOp;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 200;
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else
      models.push_back(argv[i]);
  }
  if (models.empty()) {
    std::fprintf(stderr, "usage: %s [--reps N] MODEL.onnx...\n", argv[0]);
    return 2;
  }
  const auto config = isa::IsaConfig::load(isa::shippedConfigPath("default"));
  std::printf(
      "| model | host operators | JIT-compiled | interpreter us/inference | JIT us/inference | speedup | of which "
      "still interpreted us | "
      "JIT compile ms (cold) | JIT compile ms (cached) | inferences to repay the compile (cold / cached) |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (const auto& m : models) benchModel(m, config, reps);
  std::printf(
      "\n| model | operator | count | interpreter us | JIT us | speedup |\n| --- | --- | ---: | ---: | ---: | ---: "
      "|\n");
  for (const auto& [model, ops] : perOperator)
    for (const auto& [op, t] : ops)
      std::printf("| %s | %s | %.0f | %.1f | %.1f | %.1fx |\n", model.c_str(), op.c_str(), t[0], 1e6 * t[1], 1e6 * t[2],
                  t[1] / t[2]);
  return 0;
}
