#include "rtl_area.h"

#include <algorithm>
#include <iterator>
#include <sstream>

#include "html_cells.h"
#include "json_file.h"
#include "svg_chart.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/generate.h"

namespace systole::tools {

namespace {

using Json = nlohmann::ordered_json;

/// A part of isa::areaOf (its key in the stats document's `area`) and the blocks it prices. The
/// SRAMs have no RTL.
struct AreaPart {
  const char* key;
  const char* title;
  std::vector<std::string> blocks;
};

const std::vector<AreaPart>& areaParts() {
  static const std::vector<AreaPart> parts = {
      {"array_mm2", "array", {"systolic_array", "weight_transposer"}},
      {"vector_mac_mm2", "vector MAC lanes", {"vector_mac_lane"}},
      {"fixed_mm2",
       "fixed: the rest of the vector unit, DMA, control",
       {"requant_lane", "vector_alu_lane", "vector_reduce_row", "recip_lane", "dma_addr_gen", "int4_unpack"}},
      {"scratchpad_mm2", "scratchpad", {}},
      {"accumulator_mm2", "accumulator", {}},
  };
  return parts;
}

bool priced(const std::string& block) {
  return std::any_of(areaParts().begin(), areaParts().end(), [&](const AreaPart& part) {
    return std::find(part.blocks.begin(), part.blocks.end(), block) != part.blocks.end();
  });
}

int64_t count(const Json& j, const char* key, const std::string& path, const std::string& what) {
  if (!j.contains(key) || !j[key].is_number_integer() || j[key].get<int64_t>() < 0)
    throw Error(SourceLocation{path, 0, 0}, what + " has no count '" + key + "'");
  return j[key].get<int64_t>();
}

/// The NPU's total of one figure over `blocks`.
int64_t total(const RtlSynthesis& synth, const std::vector<std::string>& blocks, int64_t RtlBlock::*figure) {
  int64_t sum = 0;
  for (const RtlBlock& b : synth.blocks)
    if (std::find(blocks.begin(), blocks.end(), b.name) != blocks.end()) sum += b.instances * (b.*figure);
  return sum;
}

double modelMm2(const StatsRun& run, const char* key) {
  const Json& area = run.doc.contains("area") ? run.doc["area"] : Json::object();
  return area.contains(key) && area[key].is_number() ? area[key].get<double>() : 0;
}

std::string mm2(double v) { return fixed(v, v < 0.1 ? 3 : 2) + " mm²"; }

std::string ratio(double rtl, double model) { return model > 0 && rtl > 0 ? fixed(rtl / model, 1) + "×" : ""; }

}  // namespace

RtlSynthesis readRtlSynthesis(const std::string& path) {
  const Json doc = readJsonFile(path);
  if (!doc.is_object() || !doc.contains("config") || !doc["config"].is_string() || !doc.contains("blocks") ||
      !doc["blocks"].is_object())
    throw Error(SourceLocation{path, 0, 0},
                "not a synthesis summary (config and blocks; bench/synth.sh writes one per config)");
  RtlSynthesis synth{path, doc["config"].get<std::string>(), {}, {}};
  if (doc.contains("parameters") && doc["parameters"].is_object())
    for (const auto& [name, value] : doc["parameters"].items())
      synth.parameters[name] = count(doc["parameters"], name.c_str(), path, "parameters");
  for (const auto& [name, figures] : doc["blocks"].items()) {
    if (!priced(name)) throw Error(SourceLocation{path, 0, 0}, "block '" + name + "' has no part in the area model");
    const std::string what = "block '" + name + "'";
    synth.blocks.push_back(RtlBlock{name, count(figures, "instances", path, what), count(figures, "cells", path, what),
                                    count(figures, "flip_flops", path, what), count(figures, "memory_bits", path, what),
                                    count(figures, "transistors", path, what)});
  }
  return synth;
}

void checkSameConfig(const RtlSynthesis& synth, const StatsRun& run) {
  const std::string runConfig = configName(run);
  if (synth.config != runConfig)
    throw Error(SourceLocation{synth.path, 0, 0},
                "synthesized from config '" + synth.config + "', but run " + run.label + " used '" + runConfig + "'");
  const Json& doc = run.doc;
  if (!doc.contains("config") || !doc["config"].contains("parameters")) return;
  for (const auto& [name, value] : doc["config"]["parameters"].items()) {
    const auto it = synth.parameters.find(isa::svName(name));
    if (it == synth.parameters.end() || !value.is_number() || value.get<double>() == static_cast<double>(it->second))
      continue;
    std::ostringstream msg;
    msg << "synthesized from a different '" << synth.config << "': " << name << " is " << it->second
        << " in the synthesized package and " << value.dump() << " in run " << run.label
        << " (synthesize again: bench/synth.sh)";
    throw Error(SourceLocation{synth.path, 0, 0}, msg.str());
  }
}

std::string rtlAreaHtml(const StatsRun& run, const RtlSynthesis& synth, double um2PerTransistor) {
  const double mm2PerTransistor = um2PerTransistor / 1e6;
  std::ostringstream o;
  o << "<h3>Area: the YAML's model against the synthesized RTL</h3><p>RTL: " << escapeXml(synth.path)
    << " (bench/synth.sh: Yosys, generic cells), its estimated transistors at " << fixed(um2PerTransistor, 3)
    << " µm² each (an assumption: <code>--um2-per-transistor</code>). Not synthesized: the SRAMs and the NPU's "
       "control (rtl/npu).</p>";
  o << "<table><tr><th>part</th><th>YAML model</th><th>RTL blocks</th><th>cells</th><th>flip-flops</th>"
       "<th>transistors</th><th>RTL area</th><th>RTL / model</th></tr>";
  double modelSum = 0, rtlSum = 0;  // over the synthesized parts
  for (const AreaPart& part : areaParts()) {
    const double model = modelMm2(run, part.key);
    o << "<tr>" << td(part.title, false) << td(mm2(model));
    if (part.blocks.empty()) {
      o << "<td colspan='6'>not synthesized (SRAM)</td></tr>";
      continue;
    }
    modelSum += model;
    const double rtl = static_cast<double>(total(synth, part.blocks, &RtlBlock::transistors)) * mm2PerTransistor;
    rtlSum += rtl;
    std::string names;
    for (const RtlBlock& b : synth.blocks)
      if (b.instances > 0 && std::find(part.blocks.begin(), part.blocks.end(), b.name) != part.blocks.end())
        names += (names.empty() ? "" : ", ") + (b.instances > 1 ? std::to_string(b.instances) + " × " : "") + b.name;
    o << td(names.empty() ? "none in this config" : names, false)
      << td(humanNumber(static_cast<double>(total(synth, part.blocks, &RtlBlock::cells))))
      << td(humanNumber(static_cast<double>(total(synth, part.blocks, &RtlBlock::flip_flops))))
      << td(humanNumber(static_cast<double>(total(synth, part.blocks, &RtlBlock::transistors)))) << td(mm2(rtl))
      << td(ratio(rtl, model)) << "</tr>";
  }
  o << "<tr><td><b>the synthesized parts</b></td>" << td(mm2(modelSum)) << "<td colspan='4'></td>" << td(mm2(rtlSum))
    << td(ratio(rtlSum, modelSum)) << "</tr></table>";
  o << "<table><tr><th>block</th><th>instances</th><th>cells each</th><th>flip-flops each</th><th>memory bits "
       "each</th><th>transistors each</th><th>area, all instances</th></tr>";
  for (const RtlBlock& b : synth.blocks)
    o << "<tr>" << td(b.name, false) << td(std::to_string(b.instances)) << td(humanNumber(static_cast<double>(b.cells)))
      << td(humanNumber(static_cast<double>(b.flip_flops))) << td(humanNumber(static_cast<double>(b.memory_bits)))
      << td(humanNumber(static_cast<double>(b.transistors)))
      << td(mm2(static_cast<double>(b.instances * b.transistors) * mm2PerTransistor)) << "</tr>";
  o << "</table>";
  return o.str();
}

}  // namespace systole::tools
