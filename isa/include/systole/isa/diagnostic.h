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

/// Bad input (a malformed config, assembly file, container or command-line value). The CLI prints
/// what() and exits with code 2.
class Error : public std::runtime_error {
 public:
  Error(SourceLocation where, const std::string& message);
  explicit Error(const std::string& message) : Error(SourceLocation{}, message) {}

  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

/// Formats a location as "file:line:col" (omitting the parts that are unknown).
std::string formatLocation(const SourceLocation& where);

}  // namespace systole
