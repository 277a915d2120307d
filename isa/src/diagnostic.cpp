#include "systole/isa/diagnostic.h"

namespace systole {

std::string formatLocation(const SourceLocation& where) {
  std::string out = where.file;
  if (where.line > 0) {
    out += ":" + std::to_string(where.line);
    if (where.col > 0) out += ":" + std::to_string(where.col);
  }
  return out;
}

static std::string render(const SourceLocation& where, const std::string& message) {
  std::string prefix = formatLocation(where);
  return (prefix.empty() ? "" : prefix + ": ") + "error: " + message;
}

Error::Error(SourceLocation where, const std::string& message)
    : std::runtime_error(render(where, message)), where_(std::move(where)), message_(message) {}

}  // namespace systole
