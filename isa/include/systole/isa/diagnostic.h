// Errors that point at a place in an input file: "file:line:col: error: message".
#pragma once

#include <stdexcept>
#include <string>

namespace systole {

/// A position in a user's input. line and col are 1-based; 0 means "not known".
struct SourceLocation {
  std::string file;
  int line = 0;
  int col = 0;

  SourceLocation shifted(int columns) const { return {file, line, col == 0 ? 0 : col + columns}; }
};

/// Characters of a file name or message a diagnostic shows at most (a 2 MB token from the input
/// must not become a 2 MB error line).
inline constexpr size_t kMaxDiagnosticText = 400;

/// `text` on one line: control characters (NUL, newlines) escaped as \xNN, cut after `limit`
/// characters with a count of what was left out.
std::string printable(const std::string& text, size_t limit);

/// Bad input (a malformed config, assembly file, container or command-line value). The CLI prints
/// what() and exits with code 2. The message and file name are made printable and bounded.
class Error : public std::runtime_error {
 public:
  Error(SourceLocation where, const std::string& message);
  explicit Error(const std::string& message) : Error(SourceLocation{}, message) {}

  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  struct Bounded {};
  Error(Bounded, SourceLocation where, std::string message);
  SourceLocation where_;
  std::string message_;
};

/// `e`, reported against `file` if it names no file yet: for an error about a program or model a
/// caller read, raised by code that does not know the file's name.
Error inFile(const Error& e, const std::string& file);

/// Formats a location as "file:line:col" (omitting the parts that are unknown).
std::string formatLocation(const SourceLocation& where);

}  // namespace systole
