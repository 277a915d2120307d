// Storage of the modelled memories: a sparse DRAM and the row-organised scratchpad and
// accumulator, with range checks and an optional "poison" record of rows never written.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "systole/isa/arith.h"
#include "systole/isa/config.h"
#include "systole/sim/array_kernel.h"
#include "systole/sim/fault.h"

namespace systole::sim {

/// Byte-addressed DRAM of `size` bytes, allocated in pages on first write; unwritten bytes read 0.
class PagedDram {
 public:
  explicit PagedDram(uint64_t size);
  uint64_t size() const { return size_; }
  void clear();
  /// Both throw FaultCause when [addr, addr + len) is outside the DRAM.
  void read(uint64_t addr, uint8_t* out, uint64_t len) const;
  void write(uint64_t addr, const uint8_t* in, uint64_t len);
  void checkRange(uint64_t addr, uint64_t len) const;

  static constexpr uint64_t kPageBits = 16;
  static constexpr uint64_t kPageSize = uint64_t{1} << kPageBits;
  /// The page holding `addr` (allocated, zeroed, if new), for direct memory access.
  uint8_t* page(uint64_t addr);

 private:
  using Page = std::array<uint8_t, kPageSize>;
  uint64_t size_;
  std::vector<std::unique_ptr<Page>> pages_;
};

/// Rows of `lanes` elements of T, with a per-row written flag for poison checking.
template <typename T>
class RowMemory {
 public:
  RowMemory(std::string name, int64_t rows, int64_t lanes)
      : name_(std::move(name)),
        rows_(rows),
        lanes_(lanes),
        data_(static_cast<size_t>(rows * lanes)),
        written_(static_cast<size_t>(rows), 0) {}

  int64_t rows() const { return rows_; }
  int64_t lanes() const { return lanes_; }
  T* row(int64_t r) { return data_.data() + r * lanes_; }
  const T* row(int64_t r) const { return data_.data() + r * lanes_; }

  void clear() {
    std::fill(data_.begin(), data_.end(), T{});
    std::fill(written_.begin(), written_.end(), 0);
  }
  /// Throws FaultCause unless rows [first, first + count) exist.
  void checkRows(int64_t first, int64_t count, const char* operand) const {
    if (first < 0 || count < 0 || first + count > rows_)
      throw FaultCause{std::string(operand) + " rows [" + std::to_string(first) + ", " + std::to_string(first + count) +
                       ") out of range: the " + name_ + " has " + std::to_string(rows_) + " rows"};
  }
  /// With poison on, throws FaultCause if any of the rows was never written this run.
  void checkWritten(int64_t first, int64_t count, const char* operand) const {
    for (int64_t r = first; r < first + count; ++r)
      if (!written_[static_cast<size_t>(r)])
        throw FaultCause{std::string(operand) + " reads " + name_ + " row " + std::to_string(r) +
                         ", which was never written (poison mode)"};
  }
  void markWritten(int64_t first, int64_t count) {
    std::fill(written_.begin() + first, written_.begin() + first + count, 1);
  }

 private:
  std::string name_;
  int64_t rows_, lanes_;
  std::vector<T> data_;
  std::vector<uint8_t> written_;
};

/// The accumulator: rows of int32 lanes, each holding what an accumulator of `bits` bits
/// (types.accumulator) keeps. Every instruction that writes lanes commits them, which saturates
/// them to a narrower accumulator's range (isa::arith::storeAccumulator).
class AccumulatorMemory : public RowMemory<int32_t> {
 public:
  AccumulatorMemory(int64_t rows, int64_t lanes, int bits) : RowMemory("accumulator", rows, lanes), bits_(bits) {}
  int bits() const { return bits_; }
  void commit(int64_t first, int64_t count) {
    if (bits_ < 32)
      for (int32_t *v = row(first), *end = row(first + count); v != end; ++v)
        *v = isa::arith::storeAccumulator(*v, bits_);
    markWritten(first, count);
  }

 private:
  int bits_;
};

/// The scratchpad: rows of lanes of `bits` bits (types.activation, 8 or 16), each held as a Lane.
/// DMA moves a lane as bits / 8 little-endian bytes, so a row of `lanes` lanes is rowBytes() bytes.
class ScratchpadMemory : public RowMemory<Lane> {
 public:
  ScratchpadMemory(int64_t rows, int64_t lanes, int bits) : RowMemory("scratchpad", rows, lanes), bits_(bits) {}
  int bits() const { return bits_; }
  int64_t laneBytes() const { return bits_ / 8; }
  int64_t rowBytes() const { return lanes() * laneBytes(); }

 private:
  int bits_;
};

/// Everything on the chip that instructions read and write.
struct MachineState {
  explicit MachineState(const isa::Params& p)
      : spad(p.spad_rows, p.spad_row_elems, p.act_bits),
        acc(p.acc_rows, p.acc_row_elems, p.acc_bits),
        weights(p.array_rows, p.array_cols, p.widestWeightBits()),
        slice(p.array_rows, p.array_cols, p.widestWeightBits()) {}

  void clear() {
    spad.clear();
    acc.clear();
    weights.clear();
    weights_loaded = false;
  }

  ScratchpadMemory spad;
  AccumulatorMemory acc;
  ArrayWeights weights;         // the array's weight tile
  ArrayWeights slice;           // matmul_stream's weight slice in flight (scratch, never read across instructions)
  bool weights_loaded = false;  // a weight_preload has run (poison mode checks it)
};

}  // namespace systole::sim
