// Algorithm: every record (a layer, a host operator, the totals) is one `Row` of the same
// fields, turned into JSON by one function, so the records and the totals cannot drift apart;
// the totals row takes its counters and cycles from the simulator's and the host model's own
// totals (not by adding the rows up), which is what lets a test check that they equal the sums.
// The CSV's columns are the totals record's leaves, in order.
#include "systole/runtime/stats_report.h"

#include <cmath>
#include <optional>
#include <sstream>

#include "systole/sim/energy.h"

namespace systole::runtime {

namespace {

struct Row {
  nlohmann::ordered_json index, name, op, onnx_nodes, runs_on, program;  // null where not applicable
  int64_t macs = 0;
  uint64_t npu_cycles = 0, host_cycles = 0;
  std::optional<uint64_t> span_cycles, start_cycle;
  std::optional<int64_t> predicted_cycles, min_dram_bytes;
  std::optional<compiler::Roofline> roofline;
  int64_t bound_cycles = 0;
  nlohmann::ordered_json bound;  // "compute" or "memory"; null for the totals
  sim::Counters counters;
  std::optional<sim::Energy> energy;  // the NPU's; null on the host (not modelled)
  const TensorAccuracy* accuracy = nullptr;
};

nlohmann::ordered_json orNull(const auto& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(); }

nlohmann::ordered_json toJson(const Row& r, const isa::Params& p) {
  const int64_t pes = p.array_rows * p.array_cols;
  nlohmann::ordered_json j;
  j["index"] = r.index;
  j["name"] = r.name;
  j["op"] = r.op;
  j["onnx_nodes"] = r.onnx_nodes;
  j["runs_on"] = r.runs_on;
  j["program"] = r.program;
  j["macs"] = r.macs;
  j["cycles"] = r.npu_cycles + r.host_cycles;
  j["npu_cycles"] = r.npu_cycles;
  j["host_cycles"] = r.host_cycles;
  j["span_cycles"] = orNull(r.span_cycles);
  j["predicted_cycles"] = orNull(r.predicted_cycles);
  j["start_cycle"] = orNull(r.start_cycle);
  auto& roof = j["roofline"];
  roof = {{"compute_cycles", nullptr},
          {"memory_cycles", nullptr},
          {"bound_cycles", nullptr},
          {"bound", nullptr},
          {"cycles_per_bound", nullptr}};
  if (r.roofline) {
    roof["compute_cycles"] = r.roofline->compute_cycles;
    roof["memory_cycles"] = r.roofline->memory_cycles;
    roof["bound_cycles"] = r.bound_cycles;
    roof["bound"] = r.bound;
    roof["cycles_per_bound"] =
        r.bound_cycles ? static_cast<double>(r.npu_cycles) / static_cast<double>(r.bound_cycles) : 0.0;
  }
  j["mac_utilization"] =
      r.npu_cycles ? static_cast<double>(r.macs) / (static_cast<double>(r.npu_cycles) * static_cast<double>(pes)) : 0.0;
  j["instructions"] = r.counters.instructions;
  j["stall_cycles"] = sim::stallsJson(r.counters);
  j["dram"] = {{"bytes_read", r.counters.dram_bytes_read},
               {"bytes_written", r.counters.dram_bytes_written},
               {"min_bytes", orNull(r.min_dram_bytes)}};
  j["units"] = sim::unitsJson(r.counters, r.npu_cycles);
  j["sram"] = sim::sramJson(r.counters);
  j["energy"] = r.energy ? sim::energyJson(*r.energy) : nlohmann::ordered_json(nullptr);
  auto& acc = j["accuracy"];
  acc = {{"sqnr_db", nullptr}, {"saturated", nullptr}};
  if (r.accuracy) {
    acc["sqnr_db"] =
        std::isinf(r.accuracy->sqnr_db) ? nlohmann::ordered_json("inf") : nlohmann::ordered_json(r.accuracy->sqnr_db);
    acc["saturated"] = orNull(r.accuracy->saturated);
  }
  return j;
}

Row npuRow(size_t index, const LayerTiming& l, const isa::Params& p,
           const std::map<std::string, TensorAccuracy>& values) {
  Row r;
  r.index = index;
  r.name = l.report.name;
  r.op = l.report.op;
  r.onnx_nodes = nlohmann::ordered_json::array({l.report.name});
  r.runs_on = "npu";
  r.program = l.program;
  r.macs = l.report.macs;
  r.npu_cycles = l.attributed_cycles;
  r.span_cycles = l.simulated_cycles;
  r.start_cycle = l.start_cycle;
  r.predicted_cycles = l.report.predicted_cycles;
  r.min_dram_bytes = l.report.min_dram_bytes;
  r.roofline = compiler::roofline(p, l.report.macs, l.report.min_dram_bytes);
  r.bound_cycles = r.roofline->boundCycles();
  r.bound = r.roofline->memoryBound() ? "memory" : "compute";
  r.counters = l.counters;
  r.energy = sim::energyOf(l.counters, l.attributed_cycles, p.cost);
  if (auto it = values.find(l.report.output); it != values.end()) r.accuracy = &it->second;
  return r;
}

Row hostRow(size_t index, const HostStep& h) {
  Row r;
  r.index = index;
  r.name = h.name;
  r.op = h.op;
  r.onnx_nodes = nlohmann::ordered_json::array({h.name});
  r.runs_on = "host";
  r.macs = h.macs;
  r.host_cycles = h.cycles;
  r.start_cycle = h.start_cycle;
  return r;
}

Row totalsRow(const RunResult& result, const isa::Params& p) {
  Row r;
  r.name = "total";
  r.runs_on = "model";
  r.npu_cycles = result.sim.stats.cycles;
  r.host_cycles = result.host_cycles;
  r.counters = result.sim.stats;
  r.energy = sim::energyOf(result.sim.stats, result.sim.stats.cycles, p.cost);
  r.macs = result.host_macs;
  int64_t predicted = 0, minBytes = 0;
  compiler::Roofline roof;
  for (const auto& l : result.layers) {
    r.macs += l.report.macs;
    predicted += l.report.predicted_cycles;
    minBytes += l.report.min_dram_bytes;
    const auto layerRoof = compiler::roofline(p, l.report.macs, l.report.min_dram_bytes);
    roof.compute_cycles += layerRoof.compute_cycles;
    roof.memory_cycles += layerRoof.memory_cycles;
    r.bound_cycles += layerRoof.boundCycles();
  }
  r.predicted_cycles = predicted;
  r.min_dram_bytes = minBytes;
  r.roofline = roof;
  return r;
}

/// The record's leaves in order, nested keys joined by '.'.
void leaves(const nlohmann::ordered_json& j, const std::string& prefix, std::vector<std::string>& out) {
  if (!j.is_object()) {
    out.push_back(prefix);
    return;
  }
  for (const auto& [key, value] : j.items()) leaves(value, prefix.empty() ? key : prefix + "." + key, out);
}

std::string csvCell(const nlohmann::ordered_json& v) {
  std::string text;
  if (v.is_null()) return text;
  if (v.is_string())
    text = v.get<std::string>();
  else if (v.is_array()) {
    for (const auto& e : v) text += (text.empty() ? "" : ";") + (e.is_string() ? e.get<std::string>() : e.dump());
  } else
    text = v.dump();
  return csvField(text);
}

const nlohmann::ordered_json* at(const nlohmann::ordered_json& j, const std::string& column) {
  const nlohmann::ordered_json* v = &j;
  std::istringstream parts(column);
  for (std::string key; std::getline(parts, key, '.');) {
    if (!v->is_object() || !v->contains(key)) return nullptr;
    v = &(*v)[key];
  }
  return v;
}

}  // namespace

nlohmann::ordered_json statsDocument(const RunResult& result, const isa::Params& p,
                                     const std::map<std::string, TensorAccuracy>& values) {
  auto j = nlohmann::ordered_json::parse(result.sim.stats.toJson());
  j["clock_mhz"] = p.clock_mhz;
  j["array_pes"] = p.array_rows * p.array_cols;
  j["programs"] = result.programs;
  j["total_cycles"] = result.totalCycles();
  j["host_cycles"] = result.host_cycles;
  j["transfer_cycles"] = result.transfer_cycles;
  const isa::AreaBreakdown area = isa::areaOf(p);
  j["area"] = {{"total_mm2", area.total()},
               {"array_mm2", area.array_mm2},
               {"scratchpad_mm2", area.scratchpad_mm2},
               {"accumulator_mm2", area.accumulator_mm2},
               {"fixed_mm2", area.fixed_mm2},
               {"vector_mac_mm2", area.vector_mac_mm2}};
  auto& config = j["config"];  // every parameter, independent and derived: what a report plots and diffs
  config = {{"name", p.name}, {"description", p.description}, {"dataflow", std::string(isa::dataflowName(p.dataflow))}};
  for (const auto& e : isa::parameterTable(p)) config["parameters"][e.name] = e.value;
  auto& layers = j["layers"];
  layers = nlohmann::ordered_json::array();
  size_t host = 0;
  for (size_t k = 0; k <= result.layers.size(); ++k) {
    for (; host < result.host_steps.size() && result.host_steps[host].after_layers == k; ++host)
      layers.push_back(toJson(hostRow(layers.size(), result.host_steps[host]), p));
    if (k < result.layers.size()) layers.push_back(toJson(npuRow(layers.size(), result.layers[k], p, values), p));
  }
  j["totals"] = toJson(totalsRow(result, p), p);
  return j;
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string statsCsv(const nlohmann::ordered_json& document) {
  std::vector<std::string> columns;
  leaves(document.at("totals"), "", columns);
  std::string out;
  for (size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + columns[c];
  out += "\n";
  const auto row = [&](const nlohmann::ordered_json& record) {
    for (size_t c = 0; c < columns.size(); ++c) {
      const auto* v = at(record, columns[c]);
      out += (c ? "," : "") + (v ? csvCell(*v) : std::string());
    }
    out += "\n";
  };
  for (const auto& record : document.at("layers")) row(record);
  row(document.at("totals"));
  return out;
}

}  // namespace systole::runtime
