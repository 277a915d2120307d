#include "html_cells.h"

#include <cstdio>

namespace systole::tools {

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string td(const std::string& text, bool numeric) {
  return std::string(numeric ? "<td class='n'>" : "<td>") + text + "</td>";
}

}  // namespace systole::tools
