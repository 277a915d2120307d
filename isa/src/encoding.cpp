// Algorithm: encoding places each field bit-serially over a little-endian byte buffer (chunks of up
// to 8 bits, any width and position); decoding reads the instruction as 64-bit words, extracts
// each field with two shifts, and checks that every bit no field covers is zero.
#include "systole/isa/encoding.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "systole/isa/huge_pages.h"

namespace systole::isa {

namespace {

void putBits(std::span<uint8_t> out, int lsb, int bits, uint64_t value) {
  for (int done = 0; done < bits;) {
    int bit = lsb + done;
    int chunk = std::min(8 - bit % 8, bits - done);
    uint8_t mask = static_cast<uint8_t>(((1u << chunk) - 1) << (bit % 8));
    out[static_cast<size_t>(bit / 8)] = static_cast<uint8_t>(
        (out[static_cast<size_t>(bit / 8)] & ~mask) | ((static_cast<uint8_t>(value >> done) << (bit % 8)) & mask));
    done += chunk;
  }
}

}  // namespace

std::string checkFieldValue(const FieldDesc& f, int64_t value) {
  if (value < f.minValue() || value > f.limit())
    return "value " + std::to_string(value) + " out of range for field '" + f.name + "' [" +
           std::to_string(f.minValue()) + ", " + std::to_string(f.limit()) + "]" +
           (f.max && f.limit() < f.maxValue() ? " (max: " + f.max->text() + ")" : "");
  return "";
}

std::string checkTokens(const InstrDesc& d, uint8_t tokens) {
  if (tokens & ~0xF) return "unknown token flag";
  if (!hasPrev(d.unit) && (tokens & (kPopPrev | kPushPrev)))
    return "the " + std::string(unitName(d.unit)) + " queue has no previous queue to exchange tokens with";
  if (!hasNext(d.unit) && (tokens & (kPopNext | kPushNext)))
    return "the " + std::string(unitName(d.unit)) + " queue has no next queue to exchange tokens with";
  return "";
}

void encode(const IsaConfig& isa, const Instruction& in, std::span<uint8_t> out) {
  const Params& p = isa.params();
  const InstrDesc& d = isa.instr(in.desc);
  std::fill(out.begin(), out.begin() + p.instr_bytes, uint8_t{0});
  if (auto msg = checkTokens(d, in.tokens); !msg.empty()) throw Error(d.name + ": " + msg);
  putBits(out, 0, static_cast<int>(p.opcode_bits), d.opcode);
  putBits(out, static_cast<int>(p.token_lsb), kNumTokenFlags, in.tokens);
  for (size_t i = 0; i < d.fields.size(); ++i) {
    const FieldDesc& f = d.fields[i];
    if (auto msg = checkFieldValue(f, in.fields[i]); !msg.empty()) throw Error(d.name + ": " + msg);
    putBits(out, f.lsb, f.bits, static_cast<uint64_t>(in.fields[i]));
  }
}

namespace {

/// An instruction's bits as little-endian 64-bit words (instructions are at most 512 bits).
struct Words {
  uint64_t w[9] = {};  // one spare word so a field's upper part can always be read
  explicit Words(std::span<const uint8_t> bytes) { std::memcpy(w, bytes.data(), std::min<size_t>(bytes.size(), 64)); }
  uint64_t get(int lsb, int bits) const {
    const int word = lsb / 64, shift = lsb % 64;
    uint64_t v = w[word] >> shift;
    if (shift + bits > 64) v |= w[word + 1] << (64 - shift);
    return bits == 64 ? v : v & ((uint64_t{1} << bits) - 1);
  }
};

}  // namespace

Instruction decode(const IsaConfig& isa, std::span<const uint8_t> bytes) {
  const Params& p = isa.params();
  const Words words(bytes.first(static_cast<size_t>(p.instr_bytes)));
  Instruction out;
  const auto opcode = static_cast<uint32_t>(words.get(0, static_cast<int>(p.opcode_bits)));
  out.desc = isa.byOpcode(opcode);
  if (out.desc < 0) throw Error("unknown opcode " + std::to_string(opcode));
  const InstrDesc& d = isa.instr(out.desc);
  out.tokens = static_cast<uint8_t>(words.get(static_cast<int>(p.token_lsb), kNumTokenFlags));
  if (auto msg = checkTokens(d, out.tokens); !msg.empty()) throw Error(d.name + ": " + msg);
  for (size_t i = 0; i < d.fields.size(); ++i) {
    const FieldDesc& f = d.fields[i];
    const uint64_t raw = words.get(f.lsb, f.bits);
    int64_t value = static_cast<int64_t>(raw);
    if (f.is_signed && (raw >> (f.bits - 1)) & 1) value -= int64_t{1} << f.bits;
    if (value < f.minValue() || value > f.limit()) throw Error(d.name + ": " + checkFieldValue(f, value));
    out.fields[i] = value;
  }
  // Every bit outside the opcode, the tokens and the fields is reserved and must be zero.
  for (size_t k = 0; k < d.used_bits.size(); ++k)
    if (const uint64_t reserved = words.w[k] & ~d.used_bits[k])
      throw Error(d.name + ": reserved bits are not zero (byte " +
                  std::to_string(k * 8 + static_cast<size_t>(std::countr_zero(reserved)) / 8) + ")");
  return out;
}

std::vector<uint8_t> encodeAll(const IsaConfig& isa, std::span<const Instruction> program) {
  const auto width = static_cast<size_t>(isa.params().instr_bytes);
  std::vector<uint8_t> code(program.size() * width);
  for (size_t i = 0; i < program.size(); ++i) encode(isa, program[i], std::span(code).subspan(i * width, width));
  return code;
}

std::vector<Instruction> decodeAll(const IsaConfig& isa, std::span<const uint8_t> code) {
  const auto width = static_cast<size_t>(isa.params().instr_bytes);
  if (code.size() % width != 0)
    throw Error("code size " + std::to_string(code.size()) + " is not a multiple of the " + std::to_string(width) +
                "-byte instruction");
  std::vector<Instruction> out;
  reserveHuge(out, code.size() / width);
  for (size_t i = 0; i < code.size(); i += width) {
    try {
      out.push_back(decode(isa, code.subspan(i, width)));
    } catch (const Error& e) {
      throw Error("instruction " + std::to_string(i / width) + ": " + e.message());
    }
  }
  return out;
}

}  // namespace systole::isa
