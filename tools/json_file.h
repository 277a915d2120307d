// A JSON document read from a file, for the commands that read what other runs wrote (stats
// documents, synthesis summaries).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace systole::tools {

/// The file's JSON; a syntax error is an Error at its line and column in the file.
nlohmann::ordered_json readJsonFile(const std::string& path);

}  // namespace systole::tools
