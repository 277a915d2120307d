// The .npz reader: a stored archive built here byte by byte (as numpy.savez writes one) reads
// back; every truncation and every single-byte corruption is an Error, never a crash or a wrong
// array.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "systole/isa/diagnostic.h"
#include "systole/isa/npy.h"

namespace systole {
namespace {

void put(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

/// A one-member stored ZIP holding `name`.npy.
std::vector<uint8_t> storedZip(const std::string& name, const std::vector<uint8_t>& npy) {
  const std::string member = name + ".npy";
  const auto crc = ::crc32(0L, npy.data(), static_cast<uInt>(npy.size()));
  std::vector<uint8_t> z;
  put(z, 0x04034b50, 4), put(z, 20, 2), put(z, 0, 2), put(z, 0, 2), put(z, 0, 4), put(z, crc, 4);
  put(z, npy.size(), 4), put(z, npy.size(), 4), put(z, member.size(), 2), put(z, 0, 2);
  z.insert(z.end(), member.begin(), member.end());
  z.insert(z.end(), npy.begin(), npy.end());
  const size_t cd = z.size();
  put(z, 0x02014b50, 4), put(z, 20, 2), put(z, 20, 2), put(z, 0, 2), put(z, 0, 2), put(z, 0, 4), put(z, crc, 4);
  put(z, npy.size(), 4), put(z, npy.size(), 4), put(z, member.size(), 2), put(z, 0, 2), put(z, 0, 2), put(z, 0, 2),
      put(z, 0, 2);
  put(z, 0, 4), put(z, 0, 4);
  z.insert(z.end(), member.begin(), member.end());
  const size_t cdSize = z.size() - cd;
  put(z, 0x06054b50, 4), put(z, 0, 2), put(z, 0, 2), put(z, 1, 2), put(z, 1, 2), put(z, cdSize, 4), put(z, cd, 4),
      put(z, 0, 2);
  return z;
}

std::string writeTemp(const std::vector<uint8_t>& bytes) {
  static int n = 0;
  const auto path = std::filesystem::temp_directory_path() /
                    ("systole_npz_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + ".npz");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path.string();
}

NpyArray sample() {
  NpyArray a;
  a.dtype = isa::DType::Float32;
  a.shape = {2, 3};
  for (int i = 0; i < 24; ++i) a.bytes.push_back(static_cast<uint8_t>(i * 7));
  return a;
}

TEST(Npz, StoredArchiveReadsBack) {
  const std::string path = writeTemp(storedZip("x", serializeNpy(sample())));
  const auto arrays = readNpz(path);
  ASSERT_EQ(arrays.size(), 1u);
  EXPECT_EQ(arrays[0].first, "x");
  EXPECT_EQ(arrays[0].second.shape, sample().shape);
  EXPECT_EQ(arrays[0].second.bytes, sample().bytes);
  std::filesystem::remove(path);
}

TEST(Npz, EveryTruncationAndCorruptionIsAnError) {
  const std::vector<uint8_t> good = storedZip("x", serializeNpy(sample()));
  for (size_t cut = 0; cut < good.size(); ++cut) {
    const std::string path = writeTemp({good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut)});
    EXPECT_THROW(readNpz(path), Error) << "truncated to " << cut;
    std::filesystem::remove(path);
  }
  for (size_t at = 0; at < good.size(); ++at) {
    std::vector<uint8_t> bad = good;
    bad[at] ^= 0x5a;
    const std::string path = writeTemp(bad);
    try {
      const auto arrays = readNpz(path);  // a flipped byte in a field nothing reads may still parse
      ASSERT_EQ(arrays.size(), 1u);
      EXPECT_EQ(arrays[0].second.bytes, sample().bytes) << "corrupted at " << at;
    } catch (const Error&) {}
    std::filesystem::remove(path);
  }
}

}  // namespace
}  // namespace systole

namespace systole {
namespace {

/// A .npy header claiming `shape` (a Python tuple) followed by no data.
std::vector<uint8_t> npyClaiming(const std::string& shape, const std::string& fortranOrder = "False") {
  std::string header = "{'descr': '|i1', 'fortran_order': " + fortranOrder + ", 'shape': " + shape + ", }";
  header += std::string((64 - (10 + header.size() + 1) % 64) % 64, ' ') + "\n";
  std::string file = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size() & 0xff) +
                     static_cast<char>(header.size() >> 8) + header;
  return std::vector<uint8_t>(file.begin(), file.end());
}

// What NumPy writes for a transposed array (issue 31): read back in row-major order.
TEST(Npy, FortranOrderIsReadRowMajor) {
  std::vector<uint8_t> file = npyClaiming("(2, 3, 2)", "True");
  // Element (i, j, k) holds 100 i + 10 j + k, stored with i fastest, then j, then k.
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i) file.push_back(static_cast<uint8_t>(100 * i + 10 * j + k));
  const NpyArray a = parseNpy(file, "f.npy");
  ASSERT_EQ(a.shape, (std::vector<int64_t>{2, 3, 2}));
  std::vector<uint8_t> rowMajor;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) rowMajor.push_back(static_cast<uint8_t>(100 * i + 10 * j + k));
  EXPECT_EQ(a.bytes, rowMajor);
  EXPECT_THROW(parseNpy(npyClaiming("(2,)", "Maybe"), "bad.npy"), Error);
}

// Issue 16 D14: 2^32 * 2^32 * 16 elements wrapped to 0 and an empty payload passed the size check.
TEST(Npy, ElementCountsThatOverflowAreErrors) {
  for (const char* shape : {"(4294967296, 4294967296, 16)", "(4294967296, 4294967296, 4294967296)"}) {
    try {
      parseNpy(npyClaiming(shape), "huge.npy");
      ADD_FAILURE() << shape << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("huge.npy: error: shape"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(parseNpy(npyClaiming("(0, 4294967296)"), "empty.npy").bytes.size(), 0u);  // 0 elements is a legal array
}

}  // namespace
}  // namespace systole
