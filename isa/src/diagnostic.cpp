#include "systole/isa/diagnostic.h"

namespace systole {

Error inFile(const Error& e, const std::string& file) {
  return e.where().file.empty() ? Error(SourceLocation{file}, e.message()) : e;
}

std::string formatLocation(const SourceLocation& where) {
  std::string out = where.file;
  if (where.line > 0) {
    out += ":" + std::to_string(where.line);
    if (where.col > 0) out += ":" + std::to_string(where.col);
  }
  return out;
}

std::string printable(const std::string& text, size_t limit) {
  std::string out;
  size_t shown = 0;
  for (; shown < text.size() && out.size() < limit; ++shown) {
    const auto c = static_cast<unsigned char>(text[shown]);
    if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char* hex = "0123456789abcdef";
      out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    }
  }
  if (shown < text.size()) out += "... (" + std::to_string(text.size() - shown) + " more bytes)";
  return out;
}

static std::string render(const SourceLocation& where, const std::string& message) {
  std::string prefix = formatLocation(where);
  return (prefix.empty() ? "" : prefix + ": ") + "error: " + message;
}

Error::Error(SourceLocation where, const std::string& message)
    : Error(Bounded{}, SourceLocation{printable(where.file, kMaxDiagnosticText), where.line, where.col},
            printable(message, kMaxDiagnosticText)) {}

Error::Error(Bounded, SourceLocation where, std::string message)
    : std::runtime_error(render(where, message)), where_(std::move(where)), message_(std::move(message)) {}

}  // namespace systole
