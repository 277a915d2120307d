// Algorithm: the writer appends trace events to one string as they come (a model's trace can
// hold millions of slices, too many for a JSON tree): metadata naming the tracks, then the spans
// and programs in the order the caller adds them. A program's instruction slices are sorted by
// (start, unit, index), so the trace depends only on the simulated timeline. Its counters are
// sampled in a bounded number of buckets per program: each DMA's bytes are spread evenly over its
// cycles (bandwidth in bytes per cycle, read and written), and each instruction counts as queued
// from its dispatch to its start (mean occupancy per queue).
#include "systole/sim/trace.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <tuple>

#include "systole/isa/diagnostic.h"
#include "systole/sim/functional.h"

namespace systole::sim {

namespace {

constexpr int kStepsTid = 0, kLayersTid = 1, kFirstUnitTid = 2;

std::string jsonString(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }

void appendInt(std::string& out, uint64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void appendInt(std::string& out, int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void appendReal(std::string& out, double v) {
  char buf[32];
  out.append(buf, static_cast<size_t>(std::snprintf(buf, sizeof buf, "%.4f", v)));
}

/// Adds `rate` per cycle over [a, b) into buckets `width` cycles wide (an empty interval adds
/// `rate` once, to the bucket of `a`).
void spread(std::vector<double>& buckets, uint64_t width, uint64_t a, uint64_t b, double rate) {
  if (buckets.empty()) return;
  const size_t last = buckets.size() - 1;
  if (b <= a) {
    buckets[std::min<size_t>(a / width, last)] += rate;
    return;
  }
  for (uint64_t k = a / width; k * width < b && k <= last; ++k) {
    const uint64_t lo = std::max(a, k * width), hi = std::min(b, (k + 1) * width);
    buckets[k] += rate * static_cast<double>(hi - lo);
  }
}

}  // namespace

TraceLevel parseTraceLevel(std::string_view text) {
  if (text == "layers") return TraceLevel::Layers;
  if (text == "instructions") return TraceLevel::Instructions;
  throw Error("unknown trace level '" + std::string(text) + "' (expected layers or instructions)");
}

std::string Trace::toJson(const isa::IsaConfig& isa, const std::vector<isa::Instruction>& program) const {
  uint64_t cycles = 0;
  for (const auto& s : slices_) cycles = std::max(cycles, s.end);
  TraceWriter writer(isa, TraceLevel::Instructions);
  writer.addProgram(0, cycles, program, slices_);
  return writer.finish();
}

TraceWriter::TraceWriter(const isa::IsaConfig& isa, TraceLevel level)
    : isa_(isa), level_(level), usPerCycle_(1.0 / static_cast<double>(isa.params().clock_mhz)) {
  out_ = "{\"traceEvents\":[";
  const auto track = [&](int tid, std::string_view name) {
    beginEvent();
    out_ += "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":";
    appendInt(out_, static_cast<int64_t>(tid));
    out_ += ",\"args\":{\"name\":" + jsonString(name) + "}}";
    beginEvent();
    out_ += "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":";
    appendInt(out_, static_cast<int64_t>(tid));
    out_ += ",\"args\":{\"sort_index\":";
    appendInt(out_, static_cast<int64_t>(tid));
    out_ += "}}";
  };
  track(kStepsTid, "steps");
  track(kLayersTid, "layers");
  for (int u = 0; u < isa::kNumUnits; ++u) track(kFirstUnitTid + u, isa::unitName(static_cast<isa::Unit>(u)));
}

void TraceWriter::beginEvent() {
  if (!first_) out_ += ',';
  first_ = false;
}

std::string TraceWriter::ts(uint64_t cycle) const {
  std::string s;
  appendReal(s, static_cast<double>(cycle) * usPerCycle_);
  return s;
}

void TraceWriter::addSpan(TraceTrack track, std::string_view name, std::string_view category, uint64_t start,
                          uint64_t end, const nlohmann::ordered_json& args) {
  beginEvent();
  out_ += "{\"name\":" + jsonString(name) + ",\"cat\":" + jsonString(category) + ",\"ph\":\"X\",\"pid\":1,\"tid\":";
  appendInt(out_, static_cast<int64_t>(track == TraceTrack::Steps ? kStepsTid : kLayersTid));
  out_ += ",\"ts\":" + ts(start) + ",\"dur\":" + ts(end - start);
  if (!args.is_null()) out_ += ",\"args\":" + args.dump();
  out_ += '}';
}

void TraceWriter::addProgram(uint64_t offset, uint64_t cycles, const std::vector<isa::Instruction>& program,
                             const std::vector<TraceSlice>& timeline) {
  if (level_ == TraceLevel::Instructions) addInstructions(offset, program, timeline);
  addCounters(offset, cycles, program, timeline);
}

void TraceWriter::addInstructions(uint64_t offset, const std::vector<isa::Instruction>& program,
                                  const std::vector<TraceSlice>& timeline) {
  std::vector<const TraceSlice*> sorted;
  sorted.reserve(timeline.size());
  for (const auto& s : timeline) sorted.push_back(&s);
  std::sort(sorted.begin(), sorted.end(), [](const TraceSlice* a, const TraceSlice* b) {
    return std::tie(a->start, a->track, a->instruction) < std::tie(b->start, b->track, b->instruction);
  });
  for (const TraceSlice* s : sorted) {
    const isa::Instruction& in = program[s->instruction];
    const isa::InstrDesc& d = isa_.instr(in.desc);
    beginEvent();
    out_ += "{\"name\":\"" + d.name + "\",\"cat\":\"instruction\",\"ph\":\"X\",\"pid\":1,\"tid\":";
    appendInt(out_, static_cast<int64_t>(kFirstUnitTid + s->track));
    out_ += ",\"ts\":" + ts(offset + s->start) + ",\"dur\":" + ts(s->end - s->start) + ",\"args\":{\"index\":";
    appendInt(out_, static_cast<uint64_t>(s->instruction));
    for (size_t f = 0; f < d.fields.size(); ++f) {
      out_ += ",\"" + d.fields[f].name + "\":";
      appendInt(out_, in.fields[f]);
    }
    if (in.tokens) {
      out_ += ",\"tokens\":\"";
      for (int t = 0, n = 0; t < isa::kNumTokenFlags; ++t)
        if (in.tokens & (1 << t)) out_ += (n++ ? " " : "") + std::string(isa::kTokenFlagNames[static_cast<size_t>(t)]);
      out_ += '"';
    }
    out_ += "}}";
  }
}

void TraceWriter::addCounters(uint64_t offset, uint64_t cycles, const std::vector<isa::Instruction>& program,
                              const std::vector<TraceSlice>& timeline) {
  // At most `samples` buckets per program, none narrower than `narrowest` cycles.
  const bool detailed = level_ == TraceLevel::Instructions;
  const uint64_t samples = detailed ? 8192 : 2048, narrowest = detailed ? 100 : 1000;
  const uint64_t width = std::max<uint64_t>(narrowest, (cycles + samples - 1) / samples);
  const size_t buckets = static_cast<size_t>(std::max<uint64_t>(1, (cycles + width - 1) / width));
  std::vector<double> read(buckets), written(buckets);
  std::vector<std::vector<double>> queued(isa::kNumUnits, std::vector<double>(buckets));
  for (const auto& s : timeline) {
    spread(queued[s.track], width, s.dispatch, s.start, 1.0);
    const isa::InstrDesc& d = isa_.instr(program[s.instruction].desc);
    if (!isDma(d.semantics)) continue;
    const DmaTransfer t = dmaTransfer(isa_.params(), d, program[s.instruction]);
    const double bytes = static_cast<double>(t.totalBytes());
    spread(t.to_dram ? written : read, width, s.start, s.end,
           s.end > s.start ? bytes / static_cast<double>(s.end - s.start) : bytes);
  }
  const auto counter = [&](std::string_view name, uint64_t at,
                           const std::vector<std::pair<std::string_view, double>>& values) {
    beginEvent();
    out_ += "{\"name\":" + jsonString(name) + ",\"ph\":\"C\",\"pid\":1,\"ts\":" + ts(at) + ",\"args\":{";
    for (size_t i = 0; i < values.size(); ++i) {
      out_ += (i ? ",\"" : "\"") + std::string(values[i].first) + "\":";
      appendReal(out_, values[i].second);
    }
    out_ += "}}";
  };
  for (size_t k = 0; k < buckets; ++k) {
    const uint64_t lo = k * width, hi = std::min<uint64_t>(cycles, (k + 1) * width);
    const double w = static_cast<double>(std::max<uint64_t>(1, hi - lo));
    counter("DRAM bandwidth (bytes/cycle)", offset + lo, {{"read", read[k] / w}, {"write", written[k] / w}});
    std::vector<std::pair<std::string_view, double>> occupancy;
    for (int u = 0; u < isa::kNumUnits; ++u)
      occupancy.emplace_back(isa::unitName(static_cast<isa::Unit>(u)), queued[static_cast<size_t>(u)][k] / w);
    counter("queue occupancy (instructions)", offset + lo, occupancy);
  }
  counter("DRAM bandwidth (bytes/cycle)", offset + cycles, {{"read", 0.0}, {"write", 0.0}});
  std::vector<std::pair<std::string_view, double>> idle;
  for (int u = 0; u < isa::kNumUnits; ++u) idle.emplace_back(isa::unitName(static_cast<isa::Unit>(u)), 0.0);
  counter("queue occupancy (instructions)", offset + cycles, idle);
}

std::string TraceWriter::finish() {
  out_ += "],\"displayTimeUnit\":\"ns\",\"otherData\":{\"isa\":" + jsonString(isa_.params().name) + "}}\n";
  std::string result = std::move(out_);
  out_.clear();
  first_ = true;
  return result;
}

}  // namespace systole::sim
