// Algorithm: check the magic and version, read the header length, then pick the three keys out of
// the header's Python-dict text (descr, fortran_order, shape) with a small scanner; a Fortran-order
// array is reordered to row-major on reading.
#include "systole/isa/npy.h"

#include <cstring>

#include "systole/isa/diagnostic.h"
#include "systole/isa/file_io.h"

namespace systole {

namespace {

const char* descrOf(isa::DType t) {
  switch (t) {
    case isa::DType::Int8: return "|i1";
    case isa::DType::Uint8: return "|u1";
    case isa::DType::Int32: return "<i4";
    case isa::DType::Float32: return "<f4";
    case isa::DType::Int16: return "<i2";
  }
  return "";
}

std::string valueOf(const std::string& header, const std::string& key, const std::string& name) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) throw Error(SourceLocation{name, 0, 0}, "npy header has no '" + key + "'");
  size_t v = header.find(':', k);
  if (v == std::string::npos) throw Error(SourceLocation{name, 0, 0}, "malformed npy header");
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  size_t end = v;
  if (v < header.size() && (header[v] == '(' || header[v] == '\'')) {
    const char close = header[v] == '(' ? ')' : '\'';
    end = header.find(close, v + 1);
    if (end == std::string::npos) throw Error(SourceLocation{name, 0, 0}, "malformed npy header");
    return header.substr(v, end - v + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(v, end - v);
}

/// Column-major (Fortran-order: what NumPy writes for a transposed array) bytes in row-major order.
std::vector<uint8_t> fromFortranOrder(const std::vector<uint8_t>& in, const std::vector<int64_t>& shape, size_t elem) {
  std::vector<uint8_t> out(in.size());
  const size_t rank = shape.size(), count = elem ? in.size() / elem : 0;
  std::vector<int64_t> index(rank, 0);  // the row-major element's index, advanced like an odometer
  for (size_t i = 0; i < count; ++i) {
    size_t src = 0;  // the first dimension varies fastest in the file
    for (size_t d = rank; d-- > 0;) src = src * static_cast<size_t>(shape[d]) + static_cast<size_t>(index[d]);
    std::memcpy(out.data() + i * elem, in.data() + src * elem, elem);
    for (size_t d = rank; d-- > 0 && ++index[d] == shape[d];) index[d] = 0;
  }
  return out;
}

}  // namespace

NpyArray parseNpy(const std::vector<uint8_t>& file, const std::string& name) {
  const SourceLocation where{name, 0, 0};
  if (file.size() < 10 || std::memcmp(file.data(), "\x93NUMPY", 6) != 0)
    throw Error(where, "not a .npy file (bad magic)");
  const uint8_t major = file[6];
  size_t headerLen, offset;
  if (major == 1) {
    headerLen = file[8] | (file[9] << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) throw Error(where, "truncated .npy header");
    headerLen = file[8] | (file[9] << 8) | (file[10] << 16) | (static_cast<size_t>(file[11]) << 24);
    offset = 12;
  } else {
    throw Error(where, "unsupported .npy version " + std::to_string(major));
  }
  if (file.size() < offset + headerLen) throw Error(where, "truncated .npy header");
  const std::string header(reinterpret_cast<const char*>(file.data() + offset), headerLen);
  NpyArray a;
  const std::string descr = valueOf(header, "descr", name);
  bool found = false;
  for (auto t : isa::kDTypes)
    if (descr == std::string("'") + descrOf(t) + "'") {
      a.dtype = t;
      found = true;
    }
  if (!found)
    throw Error(where,
                "unsupported dtype " + descr + " (supported: int8, uint8, little-endian int16, int32 and float32)");
  const std::string order = valueOf(header, "fortran_order", name);
  if (order != "False" && order != "True") throw Error(where, "malformed fortran_order " + order);
  const std::string shape = valueOf(header, "shape", name);
  int64_t elements = 1;
  for (size_t i = 1; i + 1 < shape.size();) {
    while (i < shape.size() && (shape[i] == ' ' || shape[i] == ',')) ++i;
    if (i + 1 >= shape.size()) break;
    size_t used = 0;
    int64_t dim;
    try {
      dim = std::stoll(shape.substr(i), &used);
    } catch (...) {
      throw Error(where, "malformed shape " + shape);
    }
    if (dim < 0 || dim > isa::kMaxDimension) throw Error(where, "bad dimension in shape " + shape);
    a.shape.push_back(dim);
    if (__builtin_mul_overflow(elements, dim, &elements))
      throw Error(where, "shape " + shape + " has more elements than 2^63");
    i += used;
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(elements, int64_t{isa::dtypeBytes(a.dtype)}, &bytes))
    throw Error(where, "shape " + shape + " has more bytes than 2^63");
  const size_t need = static_cast<size_t>(bytes);
  const size_t data = offset + headerLen;
  if (file.size() - data != need)
    throw Error(where, "data size " + std::to_string(file.size() - data) + " does not match shape " + shape + " (" +
                           std::to_string(need) + " bytes)");
  a.bytes.assign(file.begin() + static_cast<ptrdiff_t>(data), file.end());
  if (order == "True") a.bytes = fromFortranOrder(a.bytes, a.shape, isa::dtypeBytes(a.dtype));
  return a;
}

NpyArray readNpy(const std::string& path) { return parseNpy(readBinaryFile(path), path); }

std::vector<uint8_t> serializeNpy(const NpyArray& a) {
  std::string shape = "(";
  for (size_t i = 0; i < a.shape.size(); ++i)
    shape += std::to_string(a.shape[i]) + (a.shape.size() == 1 ? "," : i + 1 < a.shape.size() ? ", " : "");
  shape += ")";
  std::string header =
      std::string("{'descr': '") + descrOf(a.dtype) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so the data starts on a 64-byte boundary; the header ends with '\n'.
  const size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  const char magic[] = "\x93NUMPY\x01\x00";
  std::vector<uint8_t> out(10 + header.size() + a.bytes.size());
  std::memcpy(out.data(), magic, 8);
  out[8] = static_cast<uint8_t>(header.size() & 0xff);
  out[9] = static_cast<uint8_t>(header.size() >> 8);
  std::memcpy(out.data() + 10, header.data(), header.size());
  if (!a.bytes.empty()) std::memcpy(out.data() + 10 + header.size(), a.bytes.data(), a.bytes.size());
  return out;
}

void writeNpy(const std::string& path, const NpyArray& a) {
  const auto bytes = serializeNpy(a);
  writeFileAtomic(path, bytes.data(), bytes.size());
}

}  // namespace systole
