// Simulator speed on a tiled int8 GEMM (default 1024 x 1024 x 1024) for each config given:
// simulated cycles and instructions per second of process CPU time in full and timing-only mode,
// against the floor: a plain C++ int8 GEMM of the same size on the same core, built like the
// simulator (its outputs are also the check of the simulated ones). bench/native_int8_gemm is
// the native yardstick; bench/speed.sh prints the two side by side.
//
//   sim_gemm_bench [--size N] [--repeat R] [--buffers B] [--summary] [CONFIG.yaml...]
// --buffers: load buffers of the generated program (default 2, double buffering; with 3 a load
// no longer waits for the compute step before the last to drain). --summary: one line per config,
// `summary CONFIG full_cpu_s=S timing_only_minstr_s=R`, for scripts.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "gemm_program.h"
#include "systole/isa/arith.h"
#include "systole/sim/simulator.h"

using namespace systole;

namespace {

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// The floor: int8 x int8 -> int32 in the same i-k-n order the simulator's array model uses
/// (contiguous, vectorisable inner loop), then the same requantization.
std::vector<int8_t> plainGemm(const testing::GemmSpec& s, const std::vector<int8_t>& A, const std::vector<int8_t>& B) {
  std::vector<int32_t> acc(static_cast<size_t>(s.N));
  std::vector<int8_t> C(static_cast<size_t>(s.M * s.N));
  for (int64_t i = 0; i < s.M; ++i) {
    std::fill(acc.begin(), acc.end(), 0);
    auto* out = reinterpret_cast<uint32_t*>(acc.data());
    for (int64_t k = 0; k < s.K; ++k) {
      const int32_t a = A[static_cast<size_t>(i * s.K + k)];
      const int8_t* b = &B[static_cast<size_t>(k * s.N)];
      for (int64_t n = 0; n < s.N; ++n) out[n] += static_cast<uint32_t>(a * int32_t{b[n]});
    }
    for (int64_t n = 0; n < s.N; ++n)
      C[static_cast<size_t>(i * s.N + n)] = isa::arith::requantize(acc[static_cast<size_t>(n)], s.multiplier, s.shift,
                                                                   s.zero_point, s.clamp_min, s.clamp_max);
  }
  return C;
}

template <typename F>
double best(int repeat, F&& f) {
  double t = 1e30;
  for (int r = 0; r < repeat; ++r) {
    const double a = cpuSeconds();
    f();
    t = std::min(t, cpuSeconds() - a);
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t size = 1024;
  int repeat = 3, buffers = 2;
  bool summary = false;
  std::vector<std::string> configs;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--size") && i + 1 < argc)
      size = std::stoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--buffers") && i + 1 < argc)
      buffers = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--summary"))
      summary = true;
    else
      configs.push_back(argv[i]);
  }
  if (configs.empty())
    for (const char* c : {"default", "large"})
      configs.push_back(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/" + c + ".yaml");

  testing::GemmSpec spec{.M = size, .K = size, .N = size};
  spec.buffers = buffers;
  const auto A = testing::randomInt8(static_cast<size_t>(size * size), 1);
  const auto B = testing::randomInt8(static_cast<size_t>(size * size), 2);
  std::vector<int8_t> floorOut;
  const double floorSec = best(repeat, [&] { floorOut = plainGemm(spec, A, B); });
  std::printf("GEMM %lld x %lld x %lld int8, %d load buffers, best of %d\n", static_cast<long long>(size),
              static_cast<long long>(size), static_cast<long long>(size), buffers, repeat);
  std::printf("plain C++ int8 GEMM (floor): %.3f s\n\n", floorSec);
  std::printf(
      "| config | instructions | simulated cycles | full: CPU s | full / floor | full: Mcycles/s | full: Minstr/s "
      "| timing-only: CPU s | timing-only: Minstr/s | timing-only: Mcycles/s | MAC util |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (const auto& path : configs) {
    const auto isa = isa::IsaConfig::load(path);
    const auto program = testing::buildGemmProgram(isa, spec, B);
    sim::Simulator simulator(isa);
    const std::map<std::string, std::vector<uint8_t>> inputs = {{"A", std::vector<uint8_t>(A.begin(), A.end())}};
    sim::SimResult full, fast;
    const double fullSec = best(repeat, [&] { full = simulator.run(program, inputs); });
    sim::SimOptions timingOnly;
    timingOnly.timing_only = true;
    const double fastSec = best(repeat, [&] { fast = simulator.run(program, inputs, timingOnly); });
    const auto got = full.outputs.at(0).bytes;
    if (!std::equal(got.begin(), got.end(), reinterpret_cast<const uint8_t*>(floorOut.data()))) {
      std::fprintf(stderr, "%s: simulated output differs from the plain GEMM\n", path.c_str());
      return 1;
    }
    if (fast.stats.cycles != full.stats.cycles) {
      std::fprintf(stderr, "%s: timing-only cycles differ from full mode\n", path.c_str());
      return 1;
    }
    const double cycles = static_cast<double>(full.stats.cycles), instrs = static_cast<double>(full.stats.instructions);
    std::printf("| %s | %.0f | %.0f | %.3f | %.2fx | %.1f | %.2f | %.4f | %.2f | %.0f | %.1f%% |\n",
                isa.params().name.c_str(), instrs, cycles, fullSec, fullSec / floorSec, cycles / fullSec / 1e6,
                instrs / fullSec / 1e6, fastSec, instrs / fastSec / 1e6, cycles / fastSec / 1e6,
                100.0 * full.stats.executedMacEfficiency());
    if (summary)
      std::printf("summary %s full_cpu_s=%.4f timing_only_minstr_s=%.3f\n", isa.params().name.c_str(), fullSec,
                  instrs / fastSec / 1e6);
  }
  return 0;
}
