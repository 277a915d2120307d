// The statistics document of a model's run (docs/stats.md, schema "systole.stats/2"): the
// simulator's totals, one record per layer in schedule order (NPU layers and host operators)
// and a totals record with the same fields, each the sum over the layers; and the same table as
// CSV (one header row, one row per layer, a total row).
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "systole/isa/config.h"
#include "systole/runtime/accuracy.h"
#include "systole/runtime/session.h"

namespace systole::runtime {

/// The document; `values` (by value name, may be empty) gives a layer's accuracy against the
/// float model where it was measured.
nlohmann::ordered_json statsDocument(const RunResult& result, const isa::Params& p,
                                     const std::map<std::string, TensorAccuracy>& values);

/// The document's "layers" and "totals" as CSV: nested fields flattened to dotted column names,
/// lists joined by ';', absent values empty.
std::string statsCsv(const nlohmann::ordered_json& document);

/// `text` as one CSV cell: quoted (with doubled quotes) when it holds a comma, quote or newline.
std::string csvField(const std::string& text);

}  // namespace systole::runtime
