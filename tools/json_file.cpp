#include "json_file.h"

#include "systole/isa/diagnostic.h"
#include "systole/isa/file_io.h"

namespace systole::tools {

nlohmann::ordered_json readJsonFile(const std::string& path) {
  const std::string text = readTextFile(path);
  try {
    return nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::ordered_json::parse_error& e) {
    int line = 1, col = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) text[i] == '\n' ? (++line, col = 1) : ++col;
    std::string what = e.what();
    if (const size_t at = what.find(": "); at != std::string::npos) what = what.substr(at + 2);
    throw Error(SourceLocation{path, line, col}, "not valid JSON: " + what);
  }
}

}  // namespace systole::tools
