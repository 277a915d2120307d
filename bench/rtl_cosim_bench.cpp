// Slowdown of co-simulation (the Verilated systolic array in place of the C++ array model, as in
// `systole sim --rtl=array`) on a tiled int8 GEMM: wall time of one run each way, per config.
// Outputs and cycles must be identical (checked).
//
//   rtl_cosim_bench [--size N] [CONFIG.yaml...]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gemm_program.h"
#include "systole/rtl/cosim.h"
#include "systole/sim/simulator.h"

using namespace systole;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  int64_t size = 256;
  std::vector<std::string> configs;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--size") == 0 && i + 1 < argc)
      size = std::stoll(argv[++i]);
    else
      configs.emplace_back(argv[i]);
  }
  if (configs.empty())
    for (const char* c : {"tiny", "default", "large", "os16"})
      configs.push_back(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/" + c + ".yaml");
  std::printf("| config | GEMM | simulated cycles | model-only run | --rtl=array run | slowdown |\n");
  std::printf("| --- | --- | ---: | ---: | ---: | ---: |\n");
  for (const auto& path : configs) {
    const auto isa = isa::IsaConfig::load(path);
    testing::GemmSpec spec{.M = size, .K = size, .N = size};
    const auto A = testing::randomInt8(static_cast<size_t>(size * size), 1);
    const auto B = testing::randomInt8(static_cast<size_t>(size * size), 2);
    const auto program = testing::buildGemmProgram(isa, spec, B);
    const std::map<std::string, std::vector<uint8_t>> inputs = {{"A", {A.begin(), A.end()}}};
    sim::Simulator simulator(isa);
    auto t0 = Clock::now();
    const auto model = simulator.run(program, inputs);
    auto t1 = Clock::now();
    auto rtl = rtl::makeRtlArray(isa);
    sim::SimOptions options;
    options.array = rtl.get();
    auto t2 = Clock::now();
    const auto cosim = simulator.run(program, inputs, options);
    auto t3 = Clock::now();
    const bool same = cosim.stats.toJson() == model.stats.toJson() && cosim.outputs[0].bytes == model.outputs[0].bytes;
    const double a = std::chrono::duration<double>(t1 - t0).count(), b = std::chrono::duration<double>(t3 - t2).count();
    std::printf("| %s | %lld^3 | %llu | %.3f s | %.2f s | %.0fx%s |\n", isa.params().name.c_str(),
                static_cast<long long>(size), static_cast<unsigned long long>(model.stats.cycles), a, b, b / a,
                same ? "" : " (MISMATCH)");
    if (!same) return 1;
  }
  return 0;
}
