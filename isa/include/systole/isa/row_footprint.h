// The scratchpad and accumulator rows each instruction class reads and writes, and the bytes of
// each row it moves (docs/isa-semantics.md): written once, for the compute unit's scoreboard
// (pipeline.cpp), the simulator's race checker and its SRAM traffic and energy counts.
#pragma once

#include <array>
#include <cstdint>

#include "systole/isa/config.h"
#include "systole/isa/encoding.h"

namespace systole::isa {

/// Rows [lo, hi) of the scratchpad or the accumulator.
struct RowRange {
  enum class Memory : uint8_t { Scratchpad, Accumulator } memory = Memory::Scratchpad;
  int64_t lo = 0, hi = 0;
  bool overlaps(const RowRange& o) const { return memory == o.memory && lo < o.hi && o.lo < hi; }
};

/// `runs` runs of `rows` rows, `stride` rows apart from `row` (one run but for matmul_stream's
/// k-slices), each row moving `row_bytes` bytes.
struct RowAccess {
  RowRange::Memory memory = RowRange::Memory::Scratchpad;
  bool write = false;
  int64_t row = 0, rows = 0;
  int64_t runs = 1, stride = 0;
  int64_t row_bytes = 0;

  /// Run k's rows.
  RowRange run(int64_t k) const { return {memory, row + k * stride, row + k * stride + rows}; }
  /// Every row of every run, as one range (from the first row of the first run to the last of the last).
  RowRange span() const { return {memory, row, runs > 0 ? row + (runs - 1) * stride + rows : row}; }
  int64_t bytes() const { return runs * rows * row_bytes; }
};

/// An instruction's accesses, in the order the functional model makes them, and the lane-elements
/// the vector unit computes for it.
struct RowFootprint {
  std::array<RowAccess, 4> accesses{};
  int count = 0;
  int64_t vector_elements = 0;
  int64_t vector_macs = 0;  // vector_mac's multiply-accumulates (lane-elements too, priced as MACs)

  const RowAccess* begin() const { return accesses.data(); }
  const RowAccess* end() const { return accesses.data() + count; }
};

RowFootprint rowFootprint(const Params& p, const InstrDesc& d, const Instruction& in);

/// depthwise_tile's window: the scratchpad rows from a_row that its m outputs read, each once, in
/// order (output i's last tap is row a_row + stride*i + (kh-1)*pitch + kw - 1); 0 when m is 0.
constexpr int64_t depthwiseWindowRows(int64_t m, int64_t kh, int64_t kw, int64_t pitch, int64_t stride) {
  return m <= 0 ? 0 : stride * (m - 1) + (kh - 1) * pitch + kw;
}

/// The rows depthwise_tile's line buffer must hold: one output's window.
constexpr int64_t depthwiseLineRows(int64_t kh, int64_t kw, int64_t pitch) { return (kh - 1) * pitch + kw; }

}  // namespace systole::isa
