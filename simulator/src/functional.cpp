// Algorithm: decode the semantics class's operands once, range-check every row the instruction
// touches, then run the lane loops; the array product is the SIMD kernel of array_kernel.cpp.
#include <algorithm>
#include <cstring>
#include <vector>

#include "systole/isa/arith.h"
#include "systole/isa/row_footprint.h"
#include "systole/sim/functional.h"

namespace systole::sim {

using isa::Semantics;
namespace arith = isa::arith;

bool isDma(Semantics s) {
  return s == Semantics::DmaLoad || s == Semantics::DmaLoad2d || s == Semantics::DmaLoadAcc ||
         s == Semantics::DmaStore || s == Semantics::DmaStoreAcc || s == Semantics::DmaLoadInt4;
}

DmaTransfer dmaTransfer(const isa::Params& p, const isa::InstrDesc& d, const isa::Instruction& in) {
  DmaTransfer t;
  t.to_dram = d.semantics == Semantics::DmaStore || d.semantics == Semantics::DmaStoreAcc;
  t.accumulator = d.semantics == Semantics::DmaLoadAcc || d.semantics == Semantics::DmaStoreAcc;
  t.int4 = d.semantics == Semantics::DmaLoadInt4;
  t.lane_bytes = t.accumulator ? 4 : p.act_bits / 8;
  // Operand order for every DMA class: dram_addr, <row>, rows, bytes, dram_stride.
  t.dram_addr = static_cast<uint64_t>(in.operand(d, 0));
  t.row = in.operand(d, 1);
  t.rows = in.operand(d, 2);
  t.bytes = in.operand(d, 3);
  t.stride = in.operand(d, 4);
  if (d.semantics == Semantics::DmaLoad2d) {  // then runs, run_stride: rows counts every run's rows
    t.run_rows = t.rows;
    t.rows *= in.operand(d, 5);
    t.run_stride = in.operand(d, 6);
  }
  return t;
}

void checkDma(const DmaTransfer& t, const MachineState& m, uint64_t dram_size, bool poison) {
  const char* what = t.to_dram ? "source" : "destination";
  if (t.accumulator) {
    m.acc.checkRows(t.row, t.rows, what);
    if (t.bytes % 4 != 0)
      throw FaultCause{"accumulator DMA of " + std::to_string(t.bytes) + " bytes per row is not whole int32 values"};
    if (t.bytes > m.acc.lanes() * 4)
      throw FaultCause{"row of " + std::to_string(t.bytes) + " bytes exceeds an accumulator row"};
    if (poison && t.to_dram) m.acc.checkWritten(t.row, t.rows, what);
  } else {
    m.spad.checkRows(t.row, t.rows, what);
    if (t.bytes % m.spad.laneBytes() != 0)
      throw FaultCause{"scratchpad DMA of " + std::to_string(t.bytes) + " bytes per row is not whole int" +
                       std::to_string(m.spad.bits()) + " lanes"};
    if (t.bytes > m.spad.rowBytes())
      throw FaultCause{"row of " + std::to_string(t.bytes) + " bytes exceeds a scratchpad row"};
    if (poison && t.to_dram) m.spad.checkWritten(t.row, t.rows, what);
  }
  if (t.rows == 0) return;
  const uint64_t last = t.rowAddress(t.rows - 1);
  const auto rowBytes = static_cast<uint64_t>(t.dramRowBytes());
  for (uint64_t a : {t.dram_addr, last})
    if (a > dram_size || rowBytes > dram_size - a)
      throw FaultCause{"DRAM access [" + std::to_string(a) + ", " + std::to_string(a + rowBytes) +
                       ") out of range: the DRAM has " + std::to_string(dram_size) + " bytes"};
}

// A row of 0 bytes is legal (it moves nothing and zero-fills the row); `src` and `dst` may then be
// null (an empty buffer's data()), which memcpy must not see even for 0 bytes (UBSan; found by
// tests/fuzz/sim_fuzzer).
void dmaRowIn(const DmaTransfer& t, int64_t i, const uint8_t* src, MachineState& m) {
  if (t.accumulator) {
    auto* row = reinterpret_cast<uint8_t*>(m.acc.row(t.row + i));
    if (t.bytes > 0)
      std::memcpy(row, src, static_cast<size_t>(t.bytes));  // little-endian int32 on a little-endian host
    std::memset(row + t.bytes, 0, static_cast<size_t>(m.acc.lanes() * 4 - t.bytes));
    m.acc.commit(t.row + i, 1);
  } else {
    Lane* row = m.spad.row(t.row + i);
    const int64_t lanes = t.bytes / t.lane_bytes;
    if (t.int4)
      for (int64_t k = 0; k < lanes; ++k) row[k] = arith::int4At(src, k);
    else if (t.lane_bytes == 1)  // sign-extend each byte
      for (int64_t k = 0; k < lanes; ++k) row[k] = static_cast<int8_t>(src[k]);
    else if (t.bytes > 0)
      std::memcpy(row, src, static_cast<size_t>(t.bytes));  // little-endian int16 on a little-endian host
    std::fill(row + lanes, row + m.spad.lanes(), Lane{0});
    m.spad.markWritten(t.row + i, 1);
  }
}

void dmaRowOut(const DmaTransfer& t, int64_t i, uint8_t* dst, const MachineState& m) {
  if (t.accumulator) {
    if (t.bytes > 0) std::memcpy(dst, m.acc.row(t.row + i), static_cast<size_t>(t.bytes));
    return;
  }
  const Lane* row = m.spad.row(t.row + i);
  if (t.lane_bytes == 2) {
    if (t.bytes > 0) std::memcpy(dst, row, static_cast<size_t>(t.bytes));  // little-endian host
    return;
  }
  for (int64_t k = 0; k < t.bytes; ++k) dst[k] = static_cast<uint8_t>(row[k]);  // an int8 lane's byte
}

namespace {

/// One compute instruction on the machine state: a member per semantics class, reading the
/// class's operands in the order of semantics.cpp.
struct ComputeCall {
  const isa::Params& p;
  const isa::InstrDesc& d;
  const isa::Instruction& in;
  MachineState& m;
  bool poison;
  ArrayBackend* array;
  const int64_t L = p.acc_row_elems, E = p.spad_row_elems;

  int64_t op(int k) const { return in.operand(d, k); }
  int64_t weightPreload();
  int64_t weightPreloadTransposed();
  int64_t matmulTile();
  int64_t matmulStream();
  int64_t depthwiseTile();
  void checkPreloadedProduct(int64_t a, int64_t aRows, int64_t acc, int64_t rows, bool accumulate) const;
  int64_t requantize();
  int64_t widen();
  int64_t addOrMultiply();
  int64_t maximum();
  int64_t lut();
  int64_t reduce();
  int64_t recip();
  int64_t vectorMac();
  template <typename F>
  int64_t accumulatorRows(int64_t dst, int64_t src, int64_t rows, F&& f);
};

int64_t ComputeCall::weightPreload() {
  const int64_t src = op(0);
  m.spad.checkRows(src, p.array_rows, "weight");
  if (poison) m.spad.checkWritten(src, p.array_rows, "weight");
  for (int64_t k = 0; k < p.array_rows; ++k) m.weights.setRow(k, m.spad.row(src + k));
  m.weights_loaded = true;
  if (array) return static_cast<int64_t>(array->preload(m.spad.row(src), m.spad.lanes()));
  return -1;
}

/// The transposed tile gathered into plain rows (the transposer sits in the scratchpad read path;
/// the array, and the RTL array in co-simulation, receive the tile as a weight_preload would).
int64_t ComputeCall::weightPreloadTransposed() {
  const int64_t src = op(0);
  m.spad.checkRows(src, p.array_cols, "weight");
  if (poison) m.spad.checkWritten(src, p.array_cols, "weight");
  const int64_t stride = std::max(m.spad.lanes(), p.array_cols);
  std::vector<Lane> tile(static_cast<size_t>(p.array_rows * stride), 0);
  for (int64_t k = 0; k < std::min(p.array_rows, m.spad.lanes()); ++k)
    for (int64_t n = 0; n < p.array_cols; ++n) tile[static_cast<size_t>(k * stride + n)] = m.spad.row(src + n)[k];
  for (int64_t k = 0; k < p.array_rows; ++k) m.weights.setRow(k, tile.data() + k * stride);
  m.weights_loaded = true;
  if (array) return static_cast<int64_t>(array->preload(tile.data(), stride));
  return -1;
}

/// An array product with the preloaded weights (matmul_tile, depthwise_tile) reading `aRows`
/// scratchpad rows from `a` into `rows` accumulator rows from `acc`: the rows exist, and in poison
/// mode the weights were loaded and the rows it reads were written.
void ComputeCall::checkPreloadedProduct(int64_t a, int64_t aRows, int64_t acc, int64_t rows, bool accumulate) const {
  m.spad.checkRows(a, aRows, "activation");
  m.acc.checkRows(acc, rows, "accumulator");
  if (!poison) return;
  if (!m.weights_loaded)
    throw FaultCause{"the array's weights were never loaded: no weight_preload ran before it (poison mode)"};
  m.spad.checkWritten(a, aRows, "activation");
  if (accumulate) m.acc.checkWritten(acc, rows, "accumulator");
}

int64_t ComputeCall::matmulTile() {
  const int64_t a = op(0), acc = op(1), rows = op(2);
  const bool accumulate = op(3) != 0;
  checkPreloadedProduct(a, rows, acc, rows, accumulate);
  int64_t cycles = -1;
  if (array)
    cycles = static_cast<int64_t>(
        array->matmul(m.spad.row(a), m.spad.lanes(), rows, accumulate, m.acc.row(acc), m.acc.lanes()));
  else
    matmulRows(m.weights, m.spad.row(a), m.spad.lanes(), rows, reinterpret_cast<uint32_t*>(m.acc.row(acc)),
               m.acc.lanes(), accumulate);
  m.acc.commit(acc, rows);
  return cycles;
}

int64_t ComputeCall::depthwiseTile() {
  // a_row, acc_row, m, accumulate, kh, kw, pitch, stride
  const int64_t a = op(0), acc = op(1), rows = op(2), kh = op(4), kw = op(5), pitch = op(6), stride = op(7);
  const bool accumulate = op(3) != 0;
  if (kh < 1 || kw < 1 || stride < 1)
    throw FaultCause{"depthwise_tile with kh " + std::to_string(kh) + ", kw " + std::to_string(kw) + ", stride " +
                     std::to_string(stride) + ": each must be at least 1"};
  if (kh * kw > p.array_rows)
    throw FaultCause{"depthwise_tile of " + std::to_string(kh * kw) + " taps: the array has " +
                     std::to_string(p.array_rows) + " PE rows"};
  if (isa::depthwiseLineRows(kh, kw, pitch) > p.array_line_buffer_rows)
    throw FaultCause{"depthwise_tile window of " + std::to_string(isa::depthwiseLineRows(kh, kw, pitch)) +
                     " rows exceeds array.line_buffer_rows (" + std::to_string(p.array_line_buffer_rows) + ")"};
  checkPreloadedProduct(a, isa::depthwiseWindowRows(rows, kh, kw, pitch, stride), acc, rows, accumulate);
  int64_t cycles = -1;
  if (array)
    cycles = static_cast<int64_t>(array->depthwise(m.spad.row(a), m.spad.lanes(), rows, kh, kw, pitch, stride,
                                                   accumulate, m.acc.row(acc), m.acc.lanes()));
  else
    depthwiseRows(m.weights, m.spad.row(a), m.spad.lanes(), rows, kh, kw, pitch, stride,
                  reinterpret_cast<uint32_t*>(m.acc.row(acc)), m.acc.lanes(), accumulate);
  m.acc.commit(acc, rows);
  return cycles;
}

int64_t ComputeCall::matmulStream() {
  // a_row, a_stride, w_row, acc_row, m, k_slices, accumulate. The weights stream from the
  // scratchpad slice by slice (the array's preloaded W is neither read nor changed); the sum
  // wraps modulo 2^32, so adding slice by slice equals the specified sum.
  const int64_t a = op(0), stride = op(1), w = op(2), acc = op(3), rows = op(4), slices = op(5);
  const bool accumulate = op(6) != 0;
  const int64_t R = p.array_rows;
  if (slices > 0) m.spad.checkRows(a, (slices - 1) * stride + rows, "activation");
  m.spad.checkRows(w, slices * R, "weight");
  m.acc.checkRows(acc, rows, "accumulator");
  if (poison) {
    for (int64_t s = 0; s < slices; ++s) m.spad.checkWritten(a + s * stride, rows, "activation");
    m.spad.checkWritten(w, slices * R, "weight");
    if (accumulate) m.acc.checkWritten(acc, rows, "accumulator");
  }
  int64_t cycles = -1;
  const int64_t lanes = m.spad.lanes();
  if (array) {
    cycles = static_cast<int64_t>(array->stream(m.spad.row(a), lanes, stride * lanes, m.spad.row(w), lanes, slices,
                                                rows, accumulate, m.acc.row(acc), m.acc.lanes()));
  } else {
    auto* out = reinterpret_cast<uint32_t*>(m.acc.row(acc));
    if (!accumulate)
      for (int64_t i = 0; i < rows; ++i)
        std::memset(out + i * m.acc.lanes(), 0, static_cast<size_t>(m.acc.lanes()) * sizeof(uint32_t));
    for (int64_t s = 0; s < slices; ++s) {
      for (int64_t k = 0; k < R; ++k) m.slice.setRow(k, m.spad.row(w + s * R + k));
      matmulRows(m.slice, m.spad.row(a + s * stride), lanes, rows, out, m.acc.lanes(), true);
    }
  }
  m.acc.commit(acc, rows);
  return cycles;
}

int64_t ComputeCall::requantize() {
  const int64_t src = op(0), dst = op(1), rows = op(2), scale = op(3);
  const auto zp = static_cast<int32_t>(op(4)), lo = static_cast<int32_t>(op(5)), hi = static_cast<int32_t>(op(6));
  m.acc.checkRows(src, rows, "source");
  m.acc.checkRows(scale, 2, "scale");
  m.spad.checkRows(dst, rows, "destination");
  if (poison) {
    m.acc.checkWritten(src, rows, "source");
    m.acc.checkWritten(scale, 2, "scale");
  }
  const int32_t* mult = m.acc.row(scale);
  const int32_t* shift = m.acc.row(scale + 1);
  for (int64_t i = 0; i < rows; ++i) {
    const int32_t* x = m.acc.row(src + i);
    Lane* y = m.spad.row(dst + i);
    for (int64_t j = 0; j < L; ++j) y[j] = arith::requantizeLane(x[j], mult[j], shift[j], zp, lo, hi, m.spad.bits());
    std::fill(y + L, y + E, Lane{0});
  }
  m.spad.markWritten(dst, rows);
  return -1;
}

int64_t ComputeCall::widen() {
  const int64_t src = op(0), dst = op(1), rows = op(2);
  const auto zp = static_cast<int32_t>(op(3)), mul = static_cast<int32_t>(op(4));
  m.spad.checkRows(src, rows, "source");
  m.acc.checkRows(dst, rows, "destination");
  if (poison) m.spad.checkWritten(src, rows, "source");
  for (int64_t i = 0; i < rows; ++i) {
    const Lane* x = m.spad.row(src + i);
    int32_t* y = m.acc.row(dst + i);
    for (int64_t j = 0; j < L; ++j) y[j] = arith::widen(x[j], zp, mul);
  }
  m.acc.commit(dst, rows);
  return -1;
}

int64_t ComputeCall::addOrMultiply() {
  const int64_t dst = op(0), a = op(1), b = op(2), rows = op(3);
  m.acc.checkRows(dst, rows, "destination");
  m.acc.checkRows(a, rows, "first source");
  m.acc.checkRows(b, rows, "second source");
  if (poison) {
    m.acc.checkWritten(a, rows, "first source");
    m.acc.checkWritten(b, rows, "second source");
  }
  const bool add = d.semantics == Semantics::VectorAdd;
  for (int64_t i = 0; i < rows; ++i) {
    const int32_t* x = m.acc.row(a + i);
    const int32_t* y = m.acc.row(b + i);
    int32_t* z = m.acc.row(dst + i);
    for (int64_t j = 0; j < L; ++j) z[j] = add ? arith::add(x[j], y[j]) : arith::mul(x[j], y[j]);
  }
  m.acc.commit(dst, rows);
  return -1;
}

int64_t ComputeCall::maximum() {
  const int64_t dst = op(0), a = op(1), b = op(2), rows = op(3);
  m.spad.checkRows(dst, rows, "destination");
  m.spad.checkRows(a, rows, "first source");
  m.spad.checkRows(b, rows, "second source");
  if (poison) {
    m.spad.checkWritten(a, rows, "first source");
    m.spad.checkWritten(b, rows, "second source");
  }
  for (int64_t i = 0; i < rows; ++i) {
    const Lane* x = m.spad.row(a + i);
    const Lane* y = m.spad.row(b + i);
    Lane* z = m.spad.row(dst + i);
    for (int64_t j = 0; j < E; ++j) z[j] = std::max(x[j], y[j]);
  }
  m.spad.markWritten(dst, rows);
  return -1;
}

int64_t ComputeCall::lut() {
  const int64_t dst = op(0), src = op(1), rows = op(2), table = op(3);
  m.spad.checkRows(dst, rows, "destination");
  m.spad.checkRows(src, rows, "source");
  m.spad.checkRows(table, p.lut_rows, "table");
  if (poison) {
    m.spad.checkWritten(src, rows, "source");
    m.spad.checkWritten(table, p.lut_rows, "table");
  }
  Lane t[256];
  for (int e = 0; e < 256; ++e) t[e] = m.spad.row(table)[e];  // rows are contiguous
  for (int64_t i = 0; i < rows; ++i) {
    const Lane* x = m.spad.row(src + i);
    Lane* y = m.spad.row(dst + i);
    for (int64_t j = 0; j < E; ++j) y[j] = t[arith::lutIndex(x[j])];
  }
  m.spad.markWritten(dst, rows);
  return -1;
}

/// A vector instruction from accumulator rows to accumulator rows: the range checks, then `f`
/// per row (its source and destination lanes), then the destination marked written.
template <typename F>
int64_t ComputeCall::accumulatorRows(int64_t dst, int64_t src, int64_t rows, F&& f) {
  m.acc.checkRows(dst, rows, "destination");
  m.acc.checkRows(src, rows, "source");
  if (poison) m.acc.checkWritten(src, rows, "source");
  for (int64_t i = 0; i < rows; ++i) f(m.acc.row(src + i), m.acc.row(dst + i));
  m.acc.commit(dst, rows);
  return -1;
}

int64_t ComputeCall::reduce() {
  const bool max = op(3) != 0;
  return accumulatorRows(op(0), op(1), op(2), [&](const int32_t* x, int32_t* y) {
    int32_t s = max ? x[0] : 0;
    for (int64_t j = 0; j < L; ++j) s = max ? std::max(s, x[j]) : arith::add(s, x[j]);
    std::fill(y, y + L, s);
  });
}

int64_t ComputeCall::recip() {
  const auto shift = static_cast<int32_t>(op(3));
  const bool sqrt = op(4) != 0;
  return accumulatorRows(op(0), op(1), op(2), [&](const int32_t* x, int32_t* y) {
    for (int64_t j = 0; j < L; ++j) y[j] = sqrt ? arith::reciprocalSqrt(x[j], shift) : arith::reciprocal(x[j], shift);
  });
}

int64_t ComputeCall::vectorMac() {
  // dst_row, src_row, w_row, rows, stride, accumulate
  const int64_t dst = op(0), src = op(1), w = op(2), rows = op(3), stride = op(4);
  const bool accumulate = op(5) != 0;
  m.acc.checkRows(dst, rows, "destination");
  m.spad.checkRows(w, 1, "weight");
  if (rows > 0) m.spad.checkRows(src, (rows - 1) * stride + 1, "source");
  if (poison) {
    m.spad.checkWritten(w, 1, "weight");
    for (int64_t i = 0; i < rows; ++i) m.spad.checkWritten(src + i * stride, 1, "source");
    if (accumulate) m.acc.checkWritten(dst, rows, "destination");
  }
  const Lane* weight = m.spad.row(w);
  for (int64_t i = 0; i < rows; ++i) {
    const Lane* x = m.spad.row(src + i * stride);
    int32_t* y = m.acc.row(dst + i);
    for (int64_t j = 0; j < L; ++j) y[j] = arith::mac(accumulate ? y[j] : 0, x[j], weight[j]);
  }
  m.acc.commit(dst, rows);
  return -1;
}

}  // namespace

int64_t executeCompute(const isa::Params& p, const isa::InstrDesc& d, const isa::Instruction& in, MachineState& m,
                       bool poison, ArrayBackend* array) {
  ComputeCall c{p, d, in, m, poison, array};
  switch (d.semantics) {
    case Semantics::WeightPreload: return c.weightPreload();
    case Semantics::WeightPreloadT: return c.weightPreloadTransposed();
    case Semantics::MatmulTile: return c.matmulTile();
    case Semantics::MatmulStream: return c.matmulStream();
    case Semantics::DepthwiseTile: return c.depthwiseTile();
    case Semantics::Requantize: return c.requantize();
    case Semantics::VectorWiden: return c.widen();
    case Semantics::VectorAdd:
    case Semantics::VectorMul: return c.addOrMultiply();
    case Semantics::VectorMax: return c.maximum();
    case Semantics::VectorLut: return c.lut();
    case Semantics::VectorReduce: return c.reduce();
    case Semantics::VectorRecip: return c.recip();
    case Semantics::VectorMac: return c.vectorMac();
    default: return -1;  // nop, finish; DMA classes run on the DMA units
  }
}

int64_t macCount(const isa::Params& p, const isa::InstrDesc& d, const isa::Instruction& in) {
  if (d.semantics == Semantics::MatmulStream) return in.operand(d, 4) * in.operand(d, 5) * p.array_rows * p.array_cols;
  if (d.semantics == Semantics::DepthwiseTile)  // the PEs of the kh * kw tap rows
    return in.operand(d, 2) * in.operand(d, 4) * in.operand(d, 5) * p.array_cols;
  return d.semantics == Semantics::MatmulTile ? in.operand(d, 2) * p.array_rows * p.array_cols : 0;
}

}  // namespace systole::sim
