// Generates a tiled int8 GEMM program for any config: C = requantize(A x B), A (M x K) an input,
// B (K x N) weights in the program's data, C (M x N) int8 output. Tile sizes come from the config
// (array shape, scratchpad and accumulator capacity, operand field limits), so the same generator
// exercises every shipped config. With buffers = 2 the loads of the next tile overlap the compute
// of this one and the stores of the previous; with buffers = 1 every step waits for the last.
#pragma once

#include <cstdint>
#include <vector>

#include "systole/isa/builder.h"

namespace systole::testing {

struct GemmSpec {
  int64_t M = 0, K = 0, N = 0;
  int buffers = 2;
  int32_t multiplier = 1 << 30;  // requantize: per-tensor, the same in every lane
  int32_t shift = 36;
  int32_t zero_point = 0;
  int32_t clamp_min = -128, clamp_max = 127;
};

struct GemmTiling {
  int64_t m_chunk = 0;  // activation rows per gemm
  int64_t n_tiles = 0, k_tiles = 0, m_chunks = 0;
};

/// Tile sizes the config allows for this spec; throws Error if it cannot fit at all.
GemmTiling planGemm(const isa::IsaConfig& isa, const GemmSpec& spec);

/// The program; B is stored in its data segment, A is the input tensor "A", C the output "C".
isa::Program buildGemmProgram(const isa::IsaConfig& isa, const GemmSpec& spec, const std::vector<int8_t>& B);

/// Plain C++ reference: requantize(A x B) with the ISA's arithmetic.
std::vector<int8_t> referenceGemm(const GemmSpec& spec, const std::vector<int8_t>& A, const std::vector<int8_t>& B);

std::vector<int8_t> randomInt8(size_t count, uint32_t seed);

}  // namespace systole::testing
