// Little-endian byte streams for Systole's binary containers (.sbin programs and models): a
// writer that appends fields, and a reader that bounds-checks every read and names the section it
// was reading when the data ends early or a field is implausible.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "systole/isa/diagnostic.h"
#include "systole/isa/huge_pages.h"

namespace systole::isa {

inline constexpr uint64_t kMaxCount = uint64_t{1} << 32;  // sanity bound on any count or size field

class ByteWriter {
 public:
  void u8(uint8_t v) { out_.push_back(v); }
  void u16(uint16_t v) { raw(&v, 2); }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void i32(int32_t v) { raw(&v, 4); }
  void i64(int64_t v) { raw(&v, 8); }
  void f32(float v) { raw(&v, 4); }
  void f64(double v) { raw(&v, 8); }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    raw(s.data(), s.size());
  }
  void bytes(const std::vector<uint8_t>& b) {
    u64(b.size());
    raw(b.data(), b.size());
  }
  void raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  std::vector<uint8_t>& out() { return out_; }
  /// Room for `n` more bytes: a writer that knows its size up front never copies a model's weights
  /// while growing.
  void reserve(size_t n) { out_.reserve(out_.size() + n); }

 private:
  std::vector<uint8_t> out_;
};

class ByteReader {
 public:
  ByteReader(std::span<const uint8_t> in, size_t end, const std::string& name) : in_(in), end_(end), name_(name) {}
  void section(const char* what) { what_ = what; }
  uint8_t u8() { return get<uint8_t>(); }
  uint16_t u16() { return get<uint16_t>(); }
  uint32_t u32() { return get<uint32_t>(); }
  uint64_t u64() { return get<uint64_t>(); }
  int32_t i32() { return get<int32_t>(); }
  int64_t i64() { return get<int64_t>(); }
  float f32() { return get<float>(); }
  double f64() { return get<double>(); }
  std::string str() {
    uint32_t n = u32();
    need(n);
    std::string s(reinterpret_cast<const char*>(in_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  std::vector<uint8_t> bytes() {
    const std::span<const uint8_t> v = view();
    std::vector<uint8_t> b;
    reserveHuge(b, v.size());
    b.assign(v.begin(), v.end());
    return b;
  }
  /// The next length-prefixed bytes, in place (valid while the input is).
  std::span<const uint8_t> view() {
    uint64_t n = u64();
    need(n);
    pos_ += n;
    return in_.subspan(pos_ - n, n);
  }
  uint64_t count(uint64_t limit = kMaxCount) {
    uint64_t n = u32();
    if (n > limit) fail("implausible count " + std::to_string(n));
    return n;
  }
  size_t pos() const { return pos_; }
  [[noreturn]] void fail(const std::string& msg) const {
    throw Error(SourceLocation{name_, 0, 0}, msg + " (at byte " + std::to_string(pos_) + ", reading " + what_ + ")");
  }

 private:
  template <typename T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  void need(uint64_t n) {
    if (n > end_ - pos_) fail("truncated file");
  }
  std::span<const uint8_t> in_;
  size_t end_;
  size_t pos_ = 0;
  std::string name_;
  const char* what_ = "header";
};

}  // namespace systole::isa
