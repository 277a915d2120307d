// The yardstick of issue 13's simulator figure: a plain native int8 GEMM of the same MACs as the
// simulated one, C = requantize(A x B) with the ISA's arithmetic, cache-blocked (a block of B's
// rows stays in L2 while every row of A passes over it; a row of int32 sums stays in L1) and left
// to the compiler's auto-vectoriser. bench/CMakeLists.txt builds this file alone with
// -O3 -march=native, so it uses every SIMD extension of the host it is built on.
//
//   native_int8_gemm [--size N] [--repeat R]    prints the best process CPU time of R runs
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "gemm_program.h"
#include "systole/isa/arith.h"

namespace {

constexpr int64_t kBlockK = 128;  // rows of B per block: 128 x 1024 bytes in L2

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void gemm(const systole::testing::GemmSpec& s, const int8_t* A, const int8_t* B, std::vector<uint32_t>& acc,
          int8_t* C) {
  const int64_t M = s.M, K = s.K, N = s.N;
  std::fill(acc.begin(), acc.end(), 0u);
  for (int64_t k0 = 0; k0 < K; k0 += kBlockK)
    for (int64_t i = 0; i < M; ++i) {
      uint32_t* __restrict out = acc.data() + i * N;
      for (int64_t k = k0; k < std::min(K, k0 + kBlockK); ++k) {
        const int32_t a = A[i * K + k];
        const int8_t* __restrict b = B + k * N;
        for (int64_t n = 0; n < N; ++n) out[n] += static_cast<uint32_t>(a * int32_t{b[n]});
      }
    }
  for (int64_t i = 0; i < M * N; ++i)
    C[i] = systole::isa::arith::requantize(static_cast<int32_t>(acc[static_cast<size_t>(i)]), s.multiplier, s.shift,
                                           s.zero_point, s.clamp_min, s.clamp_max);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t size = 1024;
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--size") && i + 1 < argc)
      size = std::stoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = std::stoi(argv[++i]);
  }
  const systole::testing::GemmSpec spec{.M = size, .K = size, .N = size};
  const auto A = systole::testing::randomInt8(static_cast<size_t>(size * size), 1);
  const auto B = systole::testing::randomInt8(static_cast<size_t>(size * size), 2);
  std::vector<uint32_t> acc(static_cast<size_t>(size * size));
  std::vector<int8_t> C(static_cast<size_t>(size * size));
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    const double t0 = cpuSeconds();
    gemm(spec, A.data(), B.data(), acc, C.data());
    best = std::min(best, cpuSeconds() - t0);
  }
  long checksum = 0;
  for (int8_t c : C) checksum += c;
  std::printf("native int8 GEMM %lld^3 (-O3 -march=native): %.4f s CPU, %.1f GMAC/s (checksum %ld)\n",
              static_cast<long long>(size), best, static_cast<double>(size * size * size) / best / 1e9, checksum);
  return 0;
}
