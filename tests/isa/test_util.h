// Small helpers shared by the ISA unit tests: locating the shipped configs, editing a config's text
// in memory, and catching systole::Error to inspect where it points.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "systole/isa/config.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/encoding.h"
#include "systole/isa/file_io.h"

namespace systole::isa {
/// Readable gtest output for a failed Instruction comparison.
inline void PrintTo(const Instruction& in, std::ostream* os) {
  *os << "{desc=" << in.desc << " tokens=" << int{in.tokens} << " fields=";
  for (size_t i = 0; i < in.fields.size(); ++i) *os << (i ? "," : "") << in.fields[i];
  *os << "}";
}
}  // namespace systole::isa

namespace systole::test {

inline const std::vector<std::string>& shippedConfigNames() {
  static const std::vector<std::string> names = {"tiny", "default", "large", "os16"};
  return names;
}

inline std::string configPath(const std::string& name) {
  return std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/" + name + ".yaml";
}

inline std::string configText(const std::string& name) { return readTextFile(configPath(name)); }

inline isa::IsaConfig loadConfig(const std::string& name) { return isa::IsaConfig::load(configPath(name)); }

/// Offset of the first `needle` at or after the first `anchor` (npos if either is missing).
inline size_t findAfter(const std::string& text, const std::string& anchor, const std::string& needle) {
  const size_t a = text.find(anchor);
  if (a == std::string::npos) return std::string::npos;
  return text.find(needle, a);
}

/// Replaces the first `from` after `anchor` ("" = from the start) with `to`. The edit must apply:
/// a test whose mutation silently did nothing would test nothing, so this throws instead.
inline std::string replaceAfter(const std::string& text, const std::string& anchor, const std::string& from,
                                const std::string& to) {
  const size_t at = findAfter(text, anchor, from);
  if (at == std::string::npos) throw std::logic_error("test edit: '" + from + "' not found after '" + anchor + "'");
  std::string out = text;
  out.replace(at, from.size(), to);
  return out;
}

inline std::string replaceFirst(const std::string& text, const std::string& from, const std::string& to) {
  return replaceAfter(text, "", from, to);
}

/// Replaces the `timing:` entry of instruction `instr` (its line and any more deeply indented lines
/// after it, whatever the shipped expression is today) with `entry`, e.g. "timing: {cycles: m}";
/// an empty `entry` removes it. Tests that edit a timing this way survive edits of the YAML's timing.
inline std::string replaceTiming(const std::string& text, const std::string& instr, const std::string& entry) {
  const size_t key = findAfter(text, "name: " + instr + "\n", "timing:");
  if (key == std::string::npos) throw std::logic_error("test edit: no timing after 'name: " + instr + "'");
  const size_t lineStart = text.rfind('\n', key) + 1;
  size_t end = text.find('\n', key);  // the entry ends at the first line indented no deeper than its key
  while (end != std::string::npos) {
    const size_t indent = text.find_first_not_of(' ', end + 1);
    if (indent == std::string::npos || text[indent] == '\n' || indent - (end + 1) <= key - lineStart) break;
    end = text.find('\n', end + 1);
  }
  if (end == std::string::npos) end = text.size();
  std::string out = text;
  if (entry.empty())
    out.erase(lineStart, std::min(end + 1, text.size()) - lineStart);
  else
    out.replace(key, end - key, entry);
  return out;
}

/// 1-based line and column of byte `offset` in `text`.
inline SourceLocation locationOf(const std::string& text, size_t offset, const std::string& file) {
  if (offset == std::string::npos || offset > text.size()) throw std::logic_error("test: offset not in text");
  int line = 1, col = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {file, line, col};
}

/// Line and column of the first `needle` after the first `anchor`.
inline SourceLocation locate(const std::string& text, const std::string& anchor, const std::string& needle,
                             const std::string& file = "x.yaml") {
  return locationOf(text, findAfter(text, anchor, needle), file);
}

/// Runs `f` and returns the systole::Error it throws; records a failure if it throws nothing.
/// Any other exception type propagates and fails the test.
template <typename F>
std::optional<Error> catchError(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a systole::Error, but nothing was thrown";
  return std::nullopt;
}

}  // namespace systole::test
