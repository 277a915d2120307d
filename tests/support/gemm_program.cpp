// Algorithm: for each output-column tile j, each chunk of m rows, each reduction tile t:
//   load:    B tile (t, j) and A chunk (m, t) into buffer s % buffers   [pop C2L if reused; push L2C]
//   compute: preload B, gemm into accumulator half m % 2 (accumulate after t = 0) [pop L2C; push C2L]
//   after the last t: requantize into output buffer, then store it       [C2S / S2C tokens]
// Token FIFOs are counted: the k-th pop consumes the k-th push, so a load into a reused buffer
// waits exactly for the compute step that last read it.
#include "gemm_program.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "systole/isa/arith.h"

namespace systole::testing {

using isa::Semantics;

namespace {

int64_t fieldLimit(const isa::IsaConfig& isa, Semantics s, int operand) {
  const auto& d = isa.instr(isa.bySemantics(s));
  return d.fields[static_cast<size_t>(d.operand_field[static_cast<size_t>(operand)])].limit();
}

struct Layout {
  uint64_t a = 0, b = 0, c = 0, scales = 0;
};

Layout dramLayout(const GemmSpec& s, int64_t lanes) {
  auto align = [](uint64_t v) { return (v + 255) & ~uint64_t{255}; };
  Layout l;
  l.a = 0;
  l.b = align(static_cast<uint64_t>(s.M * s.K));
  l.scales = align(l.b + static_cast<uint64_t>(s.K * s.N));
  l.c = align(l.scales + static_cast<uint64_t>(2 * lanes * 4));
  return l;
}

}  // namespace

GemmTiling planGemm(const isa::IsaConfig& isa, const GemmSpec& spec) {
  const isa::Params& p = isa.params();
  const int64_t R = p.array_rows, C = p.array_cols;
  GemmTiling t;
  t.n_tiles = (spec.N + C - 1) / C;
  t.k_tiles = (spec.K + R - 1) / R;
  // Accumulator: two halves of m rows plus the two requantize scale rows.
  int64_t m = (p.acc_rows - 2) / 2;
  // Scratchpad: per buffer an A chunk and a B tile, plus two output chunks.
  m = std::min(m, (p.spad_rows - spec.buffers * R) / (spec.buffers + 2));
  for (auto [s, k] : {std::pair{Semantics::MatmulTile, 2},
                      {Semantics::DmaLoad, 2},
                      {Semantics::DmaStore, 2},
                      {Semantics::Requantize, 2}})
    m = std::min(m, fieldLimit(isa, s, k));
  t.m_chunk = std::min(m, spec.M);
  if (t.m_chunk < 1) throw Error("GEMM does not fit ISA '" + p.name + "'");
  t.m_chunks = (spec.M + t.m_chunk - 1) / t.m_chunk;
  return t;
}

isa::Program buildGemmProgram(const isa::IsaConfig& isa, const GemmSpec& spec, const std::vector<int8_t>& B) {
  const isa::Params& p = isa.params();
  const int64_t R = p.array_rows, C = p.array_cols;
  const GemmTiling tiling = planGemm(isa, spec);
  const int64_t mc = tiling.m_chunk, nb = spec.buffers;
  const Layout dram = dramLayout(spec, p.acc_row_elems);
  // Scratchpad map: [B buffers][A buffers][2 output buffers]; accumulator: [half 0][half 1][scales].
  auto bRow = [&](int64_t buf) { return buf * R; };
  auto aRow = [&](int64_t buf) { return nb * R + buf * mc; };
  auto outRow = [&](int64_t buf) { return nb * R + nb * mc + buf * mc; };
  auto accRow = [&](int64_t half) { return half * mc; };
  const int64_t scaleRow = 2 * mc;

  isa::ProgramBuilder b(isa);
  b.addTensor({"A", isa::TensorKind::Input, isa::DType::Int8, {spec.M, spec.K}, dram.a, 1.0f, 0});
  b.addTensor({"B", isa::TensorKind::Constant, isa::DType::Int8, {spec.K, spec.N}, dram.b, 1.0f, 0});
  b.addTensor({"C", isa::TensorKind::Output, isa::DType::Int8, {spec.M, spec.N}, dram.c, 1.0f, spec.zero_point});
  b.addData(dram.b, std::vector<uint8_t>(B.begin(), B.end()));
  std::vector<uint8_t> scales(static_cast<size_t>(2 * p.acc_row_elems * 4));
  for (int64_t j = 0; j < p.acc_row_elems; ++j) {
    std::memcpy(&scales[static_cast<size_t>(j * 4)], &spec.multiplier, 4);
    std::memcpy(&scales[static_cast<size_t>((p.acc_row_elems + j) * 4)], &spec.shift, 4);
  }
  b.addData(dram.scales, scales);

  const int64_t accBytes = p.acc_row_bytes;
  b.emit(Semantics::DmaLoadAcc, {static_cast<int64_t>(dram.scales), scaleRow, 2, accBytes, accBytes});
  int64_t step = 0, chunk = 0;
  const int64_t totalChunks = tiling.n_tiles * tiling.m_chunks, totalSteps = totalChunks * tiling.k_tiles;
  for (int64_t j = 0; j < tiling.n_tiles; ++j) {
    const int64_t n0 = j * C, nc = std::min(C, spec.N - n0);
    for (int64_t mi = 0; mi < tiling.m_chunks; ++mi, ++chunk) {
      const int64_t m0 = mi * mc, rows = std::min(mc, spec.M - m0);
      const int64_t half = chunk % 2;
      for (int64_t t = 0; t < tiling.k_tiles; ++t, ++step) {
        const int64_t k0 = t * R, kc = std::min(R, spec.K - k0), buf = step % nb;
        const uint8_t reuse = step >= nb ? isa::kPopNext : 0;
        // Weight rows k >= kc keep stale values; the activations' zero-filled tails cancel them.
        b.emit(Semantics::DmaLoad, {static_cast<int64_t>(dram.b) + k0 * spec.N + n0, bRow(buf), kc, nc, spec.N}, reuse);
        b.emit(Semantics::DmaLoad, {static_cast<int64_t>(dram.a) + m0 * spec.K + k0, aRow(buf), rows, kc, spec.K},
               isa::kPushNext);
        b.emit(Semantics::WeightPreload, {bRow(buf)}, isa::kPopPrev);
        // Release the buffer only for a load that will reuse it (a token never popped is a fault).
        b.emit(Semantics::MatmulTile, {aRow(buf), accRow(half), rows, t > 0 ? 1 : 0},
               step + nb < totalSteps ? isa::kPushPrev : 0);
      }
      const int64_t out = chunk % 2;
      b.emit(Semantics::Requantize,
             {accRow(half), outRow(out), rows, scaleRow, spec.zero_point, spec.clamp_min, spec.clamp_max},
             static_cast<uint8_t>(isa::kPushNext | (chunk >= 2 ? isa::kPopNext : 0)));
      b.emit(Semantics::DmaStore, {static_cast<int64_t>(dram.c) + m0 * spec.N + n0, outRow(out), rows, nc, spec.N},
             static_cast<uint8_t>(isa::kPopPrev | (chunk + 2 < totalChunks ? isa::kPushPrev : 0)));
    }
  }
  b.emit(Semantics::Finish, {});
  return b.build();
}

std::vector<int8_t> referenceGemm(const GemmSpec& s, const std::vector<int8_t>& A, const std::vector<int8_t>& B) {
  std::vector<int8_t> C(static_cast<size_t>(s.M * s.N));
  for (int64_t i = 0; i < s.M; ++i)
    for (int64_t n = 0; n < s.N; ++n) {
      int32_t acc = 0;
      for (int64_t k = 0; k < s.K; ++k)
        acc = isa::arith::mac(acc, A[static_cast<size_t>(i * s.K + k)], B[static_cast<size_t>(k * s.N + n)]);
      C[static_cast<size_t>(i * s.N + n)] =
          isa::arith::requantize(acc, s.multiplier, s.shift, s.zero_point, s.clamp_min, s.clamp_max);
    }
  return C;
}

std::vector<int8_t> randomInt8(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int8_t> v(count);
  for (auto& x : v) x = static_cast<int8_t>(rng());
  return v;
}

}  // namespace systole::testing
