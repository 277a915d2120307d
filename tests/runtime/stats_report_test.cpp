// The stats document's per-layer records add up to its totals (which come from the simulator's
// and the host model's own totals), the CSV has one row per record plus the total, and the
// model trace holds every step, every layer and every executed instruction; a run reports its
// progress step by step.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "systole/compiler/pipeline.h"
#include "systole/runtime/session.h"
#include "systole/runtime/stats_report.h"

namespace systole {
namespace {

const std::string kModel = std::string(SYSTOLE_SOURCE_DIR) + "/tests/models/bundled/tiny_cnn.onnx";

struct Ran {
  runtime::RunResult result;
  nlohmann::ordered_json document;
};

Ran run(const std::string& config, bool trace, sim::TraceLevel level = sim::TraceLevel::Instructions,
        std::vector<std::string>* progress = nullptr) {
  const auto isa = isa::IsaConfig::load(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/" + config + ".yaml");
  auto compiled = compiler::runPipeline(kModel, isa, compiler::PipelineOptions{});
  runtime::Session session(isa, std::move(*compiled.compiled), compiled.graph);
  runtime::RunOptions options;
  options.timing_only = true;
  options.trace = trace;
  options.trace_level = level;
  if (progress)
    options.progress = [progress](size_t done, size_t total, const std::string& next) {
      progress->push_back(std::to_string(done) + "/" + std::to_string(total) + " " + next);
    };
  Ran r{session.run(runtime::randomInputs(compiled.graph, 1), options), {}};
  r.document = runtime::statsDocument(r.result, isa.params(), {});
  return r;
}

/// The number at a dotted path of a record (0 where it is null).
uint64_t number(const nlohmann::ordered_json& record, const std::string& path) {
  const nlohmann::ordered_json* v = &record;
  std::istringstream parts(path);
  for (std::string key; std::getline(parts, key, '.');) v = &v->at(key);
  return v->is_null() ? 0 : v->get<uint64_t>();  // a field that does not apply to this record
}

class StatsReport : public ::testing::TestWithParam<const char*> {};

TEST_P(StatsReport, TotalsEqualTheSumsOverTheLayers) {
  const auto [result, doc] = run(GetParam(), false);
  EXPECT_EQ(doc.at("schema"), "systole.stats/2");
  const auto& layers = doc.at("layers");
  const auto& totals = doc.at("totals");
  ASSERT_GT(layers.size(), 2u);
  std::vector<std::string> additive = {"macs",
                                       "cycles",
                                       "npu_cycles",
                                       "host_cycles",
                                       "instructions",
                                       "dram.bytes_read",
                                       "dram.bytes_written",
                                       "dram.min_bytes",
                                       "predicted_cycles",
                                       "roofline.bound_cycles"};
  for (const auto& [queue, causes] : totals.at("stall_cycles").items())
    for (const auto& [cause, _] : causes.items()) additive.push_back("stall_cycles." + queue + "." + cause);
  for (const auto& [unit, _] : totals.at("units").items()) additive.push_back("units." + unit + ".busy_cycles");
  for (const auto& [counter, _] : totals.at("sram").items()) additive.push_back("sram." + counter);
  for (const auto& field : additive) {
    uint64_t sum = 0;
    for (const auto& l : layers) sum += number(l, field);
    EXPECT_EQ(sum, number(totals, field)) << field;
  }
  // Energy (floating point) adds up too, per component; host operators have none.
  for (const auto& [component, value] : totals.at("energy").items()) {
    double sum = 0;
    for (const auto& l : layers)
      if (!l.at("energy").is_null()) sum += l.at("energy").at(component).get<double>();
    EXPECT_NEAR(sum, value.get<double>(), 1e-9 * value.get<double>()) << component;
    EXPECT_DOUBLE_EQ(value.get<double>(), doc.at("energy").at(component).get<double>()) << component;
  }
  EXPECT_GT(totals.at("energy").at("mac_pj").get<double>(), 0);
  EXPECT_GT(totals.at("energy").at("scratchpad_pj").get<double>(), 0);
  EXPECT_GT(doc.at("area").at("total_mm2").get<double>(), 0);
  // The totals are the simulator's and the host model's own figures.
  EXPECT_EQ(number(totals, "npu_cycles"), number(doc, "cycles"));
  EXPECT_EQ(number(totals, "host_cycles"), number(doc, "host_cycles"));
  EXPECT_EQ(number(totals, "instructions"), number(doc, "instructions"));
  EXPECT_EQ(number(totals, "dram.bytes_read"), number(doc, "dma.bytes_read"));
  EXPECT_EQ(number(totals, "stall_cycles.compute.token"), number(doc, "stall_cycles.compute.token"));
  EXPECT_EQ(number(totals, "cycles") + number(doc, "transfer_cycles"), number(doc, "total_cycles"));
  // Every NPU layer did work of its own, and host operators are records too.
  size_t host = 0;
  for (const auto& l : layers) {
    if (l.at("runs_on") == "host") {
      EXPECT_TRUE(l.at("energy").is_null()) << l.at("name");
      ++host;
      EXPECT_GT(number(l, "host_cycles"), 0u) << l.at("name");
      continue;
    }
    EXPECT_GT(number(l, "instructions"), 0u) << l.at("name");
    EXPECT_GT(number(l, "dram.bytes_read") + number(l, "dram.bytes_written"), 0u) << l.at("name");
    EXPECT_TRUE(l.at("roofline").at("bound") == "compute" || l.at("roofline").at("bound") == "memory");
  }
  EXPECT_GT(host, 0u);
}

TEST_P(StatsReport, CsvHasAHeaderARowPerLayerAndATotalRow) {
  const auto [result, doc] = run(GetParam(), false);
  const std::string csv = runtime::statsCsv(doc);
  std::istringstream lines(csv);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  ASSERT_EQ(rows.size(), doc.at("layers").size() + 2);
  EXPECT_EQ(rows[0].rfind("index,name,op,onnx_nodes,runs_on,program,macs,cycles,npu_cycles,host_cycles", 0), 0u)
      << rows[0];
  EXPECT_EQ(rows.back().rfind(",total,", 0), 0u) << rows.back();
  const auto commas = [](const std::string& s) { return std::count(s.begin(), s.end(), ','); };
  for (const auto& row : rows) EXPECT_EQ(commas(row), commas(rows[0])) << row;
}

TEST_P(StatsReport, TraceHoldsEveryStepLayerAndInstruction) {
  const auto [result, doc] = run(GetParam(), true);
  const auto trace = nlohmann::json::parse(result.trace_json);
  size_t instructions = 0, layers = 0, steps = 0, counters = 0;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") == "C") ++counters;
    if (e.at("ph") != "X") continue;
    if (e.at("cat") == "instruction") {
      ++instructions;
      EXPECT_TRUE(e.at("args").contains("index"));
    } else if (e.at("tid") == 1)
      ++layers;
    else if (e.at("tid") == 0)
      ++steps;
  }
  EXPECT_EQ(instructions, number(doc, "instructions"));
  EXPECT_EQ(layers, doc.at("layers").size());
  EXPECT_EQ(steps,
            result.programs + result.host_operators + 2 * result.programs);  // each program's inputs and outputs move
  EXPECT_GT(counters, 0u);
  const auto layersOnly = run(GetParam(), true, sim::TraceLevel::Layers);
  EXPECT_LT(layersOnly.result.trace_json.size() * 4, result.trace_json.size());
  EXPECT_EQ(layersOnly.result.trace_json.find("\"instruction\""), std::string::npos);
}

TEST_P(StatsReport, ProgressIsReportedBeforeEachStep) {
  std::vector<std::string> progress;
  run(GetParam(), false, sim::TraceLevel::Layers, &progress);
  EXPECT_EQ(progress,
            (std::vector<std::string>{"0/3 host QuantizeLinear", "1/3 NPU program 0", "2/3 host DequantizeLinear"}));
}

INSTANTIATE_TEST_SUITE_P(Configs, StatsReport, ::testing::Values("default", "tiny"));

}  // namespace
}  // namespace systole
