// Algorithm: a .npz is a ZIP archive of .npy members (numpy.savez stores them, savez_compressed
// deflates them). Find the end-of-central-directory record (and its ZIP64 form, which numpy
// writes), walk the central directory for each member's method, sizes and local header offset
// (ZIP64 extra fields where a 32-bit field is saturated), skip the local header and either copy
// or inflate (zlib, raw deflate) the member, check its CRC-32, then parse it as a .npy. Every
// offset and length is checked against the file before it is used.
#include <zlib.h>

#include <cstring>

#include "systole/isa/diagnostic.h"
#include "systole/isa/file_io.h"
#include "systole/isa/npy.h"

namespace systole {

namespace {

class ZipReader {
 public:
  ZipReader(const std::vector<uint8_t>& file, const std::string& name) : f_(file), name_(name) {}

  std::vector<std::pair<std::string, NpyArray>> members() {
    uint64_t count = 0, offset = 0;
    centralDirectory(count, offset);
    std::vector<std::pair<std::string, NpyArray>> out;
    for (uint64_t i = 0; i < count; ++i) {
      if (u32(offset) != 0x02014b50) fail("bad central directory entry");
      const uint16_t method = u16(offset + 10), nameLen = u16(offset + 28), extraLen = u16(offset + 30),
                     commentLen = u16(offset + 32);
      const uint32_t crc = u32(offset + 16);
      uint64_t packed = u32(offset + 20), size = u32(offset + 24), local = u32(offset + 42);
      const std::string member(reinterpret_cast<const char*>(bytes(offset + 46, nameLen)), nameLen);
      zip64Sizes(offset + 46 + nameLen, extraLen, size, packed, local);
      if (u32(local) != 0x04034b50) fail("bad local header of '" + member + "'");
      const uint64_t data = local + 30 + u16(local + 26) + u16(local + 28);
      std::string key = member.size() > 4 && member.ends_with(".npy") ? member.substr(0, member.size() - 4) : member;
      std::vector<uint8_t> npy = extract(member, method, data, packed, size);
      if (::crc32(0L, npy.data(), static_cast<uInt>(npy.size())) != crc)
        fail("member '" + member + "' fails its CRC-32 check");
      out.emplace_back(key, parseNpy(npy, name_ + ":" + member));
      offset += 46 + uint64_t{nameLen} + extraLen + commentLen;
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(SourceLocation{name_}, "not a valid .npz: " + what);
  }

  const uint8_t* bytes(uint64_t at, uint64_t n) const {
    if (at > f_.size() || n > f_.size() - at) fail("truncated file");
    return f_.data() + at;
  }
  uint64_t le(uint64_t at, int n) const {
    const uint8_t* p = bytes(at, static_cast<uint64_t>(n));
    uint64_t v = 0;
    for (int i = n; i-- > 0;) v = (v << 8) | p[i];
    return v;
  }
  uint16_t u16(uint64_t at) const { return static_cast<uint16_t>(le(at, 2)); }
  uint32_t u32(uint64_t at) const { return static_cast<uint32_t>(le(at, 4)); }
  uint64_t u64(uint64_t at) const { return le(at, 8); }

  void centralDirectory(uint64_t& count, uint64_t& offset) const {
    if (f_.size() < 22) fail("truncated file");
    uint64_t eocd = f_.size() - 22;
    while (u32(eocd) != 0x06054b50) {
      if (eocd == 0 || f_.size() - eocd > 22 + 65535) fail("no end of central directory");
      --eocd;
    }
    count = u16(eocd + 10);
    offset = u32(eocd + 16);
    if ((count == 0xffff || offset == 0xffffffff) && eocd >= 20 && u32(eocd - 20) == 0x07064b50) {
      const uint64_t z = u64(eocd - 20 + 8);
      if (u32(z) != 0x06064b50) fail("bad ZIP64 end of central directory");
      count = u64(z + 32);
      offset = u64(z + 48);
    }
  }

  /// Replaces saturated 32-bit sizes and offset by the ZIP64 extra field's (id 1), in its order.
  void zip64Sizes(uint64_t extra, uint16_t len, uint64_t& size, uint64_t& packed, uint64_t& local) const {
    for (uint64_t at = extra; at + 4 <= extra + len;) {
      const uint16_t id = u16(at), n = u16(at + 2);
      if (id == 1) {
        uint64_t field = at + 4;
        for (uint64_t* v : {&size, &packed, &local})
          if (*v == 0xffffffff) *v = u64(field), field += 8;
      }
      at += 4 + uint64_t{n};
    }
  }

  std::vector<uint8_t> extract(const std::string& member, uint16_t method, uint64_t data, uint64_t packed,
                               uint64_t size) const {
    const uint8_t* src = bytes(data, packed);
    if (size > (uint64_t{1} << 34)) fail("member '" + member + "' is larger than 16 GiB");
    std::vector<uint8_t> out(static_cast<size_t>(size));
    if (method == 0) {
      if (packed != size) fail("stored member '" + member + "' has two sizes");
      std::memcpy(out.data(), src, out.size());
      return out;
    }
    if (method != 8)
      fail("member '" + member + "' uses compression method " + std::to_string(method) + " (only stored and deflate)");
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) fail("zlib initialisation failed");
    z.next_in = const_cast<Bytef*>(src);
    z.avail_in = static_cast<uInt>(packed);
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&z, Z_FINISH);
    const uint64_t produced = z.total_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END || produced != size) fail("member '" + member + "' does not inflate to its size");
    return out;
  }

  const std::vector<uint8_t>& f_;
  std::string name_;
};

}  // namespace

std::vector<std::pair<std::string, NpyArray>> readNpz(const std::string& path) {
  return ZipReader(readBinaryFile(path), path).members();
}

}  // namespace systole
