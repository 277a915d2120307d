// NumPy .npy files (format versions 1.0-3.0, C order, little-endian int8/uint8/int32/float32):
// how tensors go in and out of the command-line tools.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "systole/isa/program.h"

namespace systole {

struct NpyArray {
  isa::DType dtype = isa::DType::Int8;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;  // row-major, little-endian
};

/// Throws Error naming the file on anything malformed or unsupported.
NpyArray readNpy(const std::string& path);
NpyArray parseNpy(const std::vector<uint8_t>& file, const std::string& name);
std::vector<uint8_t> serializeNpy(const NpyArray& array);

/// The arrays of a NumPy .npz archive (numpy.savez or savez_compressed), in archive order, each
/// named by its member name without ".npy". Throws Error naming the file on anything malformed.
std::vector<std::pair<std::string, NpyArray>> readNpz(const std::string& path);
void writeNpy(const std::string& path, const NpyArray& array);

}  // namespace systole
