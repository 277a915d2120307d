// The functional model: what each instruction does to the chip state and to DRAM, by semantics
// class, using the ISA's one implementation of the arithmetic (systole/isa/arith.h).
#pragma once

#include "systole/isa/arith.h"
#include "systole/isa/encoding.h"
#include "systole/sim/array_backend.h"
#include "systole/sim/memory.h"

namespace systole::sim {

/// Executes a compute-queue instruction (array and vector classes; nop and finish do nothing).
/// Throws FaultCause for rows out of range, and with `poison` for reads of never-written rows.
/// With an `array` backend, weight_preload, matmul_tile and matmul_stream run on it and the cycles
/// it measured are returned; otherwise (and for every other class) the result is -1.
int64_t executeCompute(const isa::Params& p, const isa::InstrDesc& d, const isa::Instruction& in, MachineState& m,
                       bool poison, ArrayBackend* array = nullptr);

/// The geometry of one DMA instruction.
struct DmaTransfer {
  bool to_dram = false;      // store (chip -> DRAM) or load
  bool accumulator = false;  // accumulator rows (int32) or scratchpad rows (lanes of activation.bits)
  bool int4 = false;         // dma_load_int4: a DRAM row holds a value per on-chip lane, packed 4-bit
  int64_t lane_bytes = 1;    // bytes of an on-chip lane: 4 (accumulator), activation.bits / 8
  uint64_t dram_addr = 0;
  int64_t row = 0, rows = 0, bytes = 0, stride = 0;
  int64_t run_rows = 0, run_stride = 0;  // dma_load_2d: rows are runs of run_rows, run_stride apart

  uint64_t rowAddress(int64_t i) const {
    if (run_rows > 0) return dram_addr + static_cast<uint64_t>((i / run_rows) * run_stride + (i % run_rows) * stride);
    return dram_addr + static_cast<uint64_t>(i * stride);
  }
  /// The bytes of one row in DRAM (`bytes` is the row's size on chip).
  int64_t dramRowBytes() const { return int4 ? isa::arith::int4PackedBytes(bytes / lane_bytes) : bytes; }
  uint64_t totalBytes() const { return static_cast<uint64_t>(rows * dramRowBytes()); }
};

DmaTransfer dmaTransfer(const isa::Params& p, const isa::InstrDesc& d, const isa::Instruction& in);
bool isDma(isa::Semantics s);

/// Checks on-chip rows, byte counts and the DRAM range of every row; throws FaultCause.
void checkDma(const DmaTransfer& t, const MachineState& m, uint64_t dram_size, bool poison);

/// Copies row i of a load from `src` (t.dramRowBytes() bytes) into the chip, lane by lane (4-bit
/// values unpacked), zero-filling the row's tail.
void dmaRowIn(const DmaTransfer& t, int64_t i, const uint8_t* src, MachineState& m);
/// Copies the first t.bytes bytes of row i of a store from the chip into `dst`.
void dmaRowOut(const DmaTransfer& t, int64_t i, uint8_t* dst, const MachineState& m);

/// Multiply-accumulates an instruction performs (m x array.rows x array.cols for matmul_tile, times
/// k_slices for matmul_stream).
int64_t macCount(const isa::Params& p, const isa::InstrDesc& d, const isa::Instruction& in);

}  // namespace systole::sim
