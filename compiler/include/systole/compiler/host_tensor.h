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

}  // namespace systole::compiler
