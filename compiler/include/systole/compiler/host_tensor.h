// A tensor's contents on the host: element type, shape and row-major little-endian bytes. Inputs,
// outputs and intermediate results of the reference interpreter and the runtime use it.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "systole/compiler/graph.h"
#include "systole/isa/huge_pages.h"

namespace systole::compiler {

struct HostTensor {
  ElemType type = ElemType::Float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  HostTensor(ElemType t, std::vector<int64_t> s) : type(t), shape(std::move(s)) {
    const auto n = static_cast<size_t>(elements() * elemTypeBytes(type));
    reserveHuge(bytes, n);  // a big tensor is zeroed on huge pages
    bytes.resize(n);
  }
  int64_t elements() const { return shapeElements(shape); }
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(bytes.data());
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(bytes.data());
  }
  bool operator==(const HostTensor&) const = default;
};

/// Element i of a quantized activation tensor (int8 or int16), and element i set to `v` (in its
/// range). For loops whose cost is elsewhere (the MACs); hot loops read typed pointers.
inline int32_t laneAt(const HostTensor& t, int64_t i) {
  return t.type == ElemType::Int16 ? int32_t{t.data<int16_t>()[i]} : int32_t{t.data<int8_t>()[i]};
}
/// Appends `v` as one lane of `laneBytes` little-endian bytes (its low bytes): how DMA moves a
/// lane, and so how constants and fills reach the scratchpad.
inline void appendLane(std::vector<uint8_t>& bytes, int32_t v, size_t laneBytes) {
  for (size_t b = 0; b < laneBytes; ++b) bytes.push_back(static_cast<uint8_t>(v >> (8 * b)));
}
inline void setLane(HostTensor& t, int64_t i, int32_t v) {
  if (t.type == ElemType::Int16)
    t.data<int16_t>()[i] = static_cast<int16_t>(v);
  else
    t.data<int8_t>()[i] = static_cast<int8_t>(v);
}

/// Moves element (n, c, s) of `from` [N, C, S] (NCHW, S = H * W) to (n, s, c) of `to` (NHWC), or
/// the other way with `toNhwc` false; elements of `elemBytes` bytes. The one layout change the
/// FlattenNhwc kernels, the NPU's constant activations and the runtime's inputs share.
inline void moveNhwc(const uint8_t* from, uint8_t* to, int64_t N, int64_t C, int64_t S, size_t elemBytes, bool toNhwc) {
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t s = 0; s < S; ++s) {
        const auto nchw = static_cast<size_t>((n * C + c) * S + s), nhwc = static_cast<size_t>((n * S + s) * C + c);
        std::memcpy(to + (toNhwc ? nhwc : nchw) * elemBytes, from + (toNhwc ? nchw : nhwc) * elemBytes, elemBytes);
      }
}

}  // namespace systole::compiler
