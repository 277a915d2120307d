// A replacement for the functional model of the systolic array (weight_preload, matmul_tile,
// matmul_stream and depthwise_tile),
// e.g. a Verilated RTL model for co-simulation (rtl/cosim). Plain C++: the simulator does not
// depend on the implementation. Set through SimOptions::array; when null the C++ model runs.
#pragma once

#include <cstdint>

#include "systole/sim/array_kernel.h"

namespace systole::sim {

class ArrayBackend {
 public:
  virtual ~ArrayBackend() = default;

  /// Returns the array to its state at power-up (weights zero); called at the start of every run.
  virtual void reset() = 0;

  /// weight_preload: `array.rows` scratchpad rows, row k at rows + k * stride (spad_row_elems
  /// lanes each). Returns the cycles the operation took.
  virtual uint64_t preload(const Lane* rows, int64_t stride) = 0;

  /// matmul_tile: m activation rows (row i at act + i * actStride, spad_row_elems lanes each) times
  /// the preloaded weights, into m accumulator rows (row i at acc + i * accStride; array.cols
  /// int32 written, added to when `accumulate`). Returns the cycles the operation took.
  virtual uint64_t matmul(const Lane* act, int64_t actStride, int64_t m, bool accumulate, int32_t* acc,
                          int64_t accStride) = 0;
  /// matmul_stream (output-stationary): over `slices` slices, slice s's m activation rows (row i at
  /// act + s * sliceStride + i * actStride) times its array.rows weight rows (row k at
  /// w + (s * array.rows + k) * wStride, array.cols lanes each), into m accumulator rows as matmul.
  /// The preloaded weights are not used. Returns the cycles the operation took.
  virtual uint64_t stream(const Lane* act, int64_t actStride, int64_t sliceStride, const Lane* w, int64_t wStride,
                          int64_t slices, int64_t m, bool accumulate, int32_t* acc, int64_t accStride) = 0;
  /// depthwise_tile: the isa::depthwiseWindowRows(m, kh, kw, pitch, stride) window rows (row j at
  /// act + j * actStride, spad_row_elems lanes each), presented one per cycle to the depthwise mode's
  /// line buffer, times the preloaded weights (tap t in weight row t), into m accumulator rows as
  /// matmul. Returns the cycles the operation took.
  virtual uint64_t depthwise(const Lane* act, int64_t actStride, int64_t m, int64_t kh, int64_t kw, int64_t pitch,
                             int64_t stride, bool accumulate, int32_t* acc, int64_t accStride) = 0;
};

}  // namespace systole::sim
