// Algorithm: the timeline is a clock that each step advances by its cycles. A program's layers
// are attributed by completion: walking its layers in order, layer k owns the cycles from the
// latest completion among layers 0..k-1 (the program's start for k = 0) to the latest among
// 0..k (the program's end for the last layer), so the shares are disjoint and sum to the
// program's cycles; a layer whose instructions all complete earlier owns 0 cycles.
#include "model_timeline.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "systole/isa/encoding.h"

namespace systole::runtime {

std::vector<uint32_t> layerRegionStarts(const compiler::CompiledProgram& program) {
  std::vector<uint32_t> starts;
  for (const auto& l : program.layers) starts.push_back(starts.empty() ? 0 : l.first_instruction);
  return starts;
}

std::vector<LayerTiming> attributeLayers(const std::vector<compiler::LayerReport>& reports, const sim::Stats& stats,
                                         uint64_t offset, size_t program) {
  std::vector<LayerTiming> layers;
  uint64_t done = 0;
  for (size_t k = 0; k < reports.size(); ++k) {
    const sim::RegionStats& r = stats.regions.at(k);
    LayerTiming t;
    t.report = reports[k];
    t.program = program;
    t.counters = r.counters;
    t.simulated_cycles = r.ran() && r.last_end > r.first_start ? r.last_end - r.first_start : 0;
    const uint64_t end =
        k + 1 == reports.size() ? std::max(done, stats.cycles) : std::max(done, r.ran() ? r.last_end : 0);
    t.start_cycle = offset + done;
    t.attributed_cycles = end - done;
    done = end;
    layers.push_back(std::move(t));
  }
  return layers;
}

ModelTimeline::ModelTimeline(const isa::IsaConfig& isa, std::optional<sim::TraceLevel> trace) : isa_(isa) {
  if (trace) trace_.emplace(isa, *trace);
}

void ModelTimeline::host(const HostStep& step) {
  if (trace_) {
    const nlohmann::ordered_json args = {{"op", step.op}, {"cycles", step.cycles}, {"macs", step.macs}};
    trace_->addSpan(sim::TraceTrack::Steps, "host " + step.op, "host", now_, now_ + step.cycles, args);
    trace_->addSpan(sim::TraceTrack::Layers, step.name, "host", now_, now_ + step.cycles, args);
  }
  now_ += step.cycles;
}

void ModelTimeline::transfer(const std::string& what, uint64_t cycles) {
  if (trace_ && cycles)
    trace_->addSpan(sim::TraceTrack::Steps, what, "transfer", now_, now_ + cycles, {{"cycles", cycles}});
  now_ += cycles;
}

void ModelTimeline::program(const compiler::CompiledProgram& program, const sim::SimResult& sim,
                            std::vector<LayerTiming>& layers) {
  auto timed = attributeLayers(program.layers, sim.stats, now_, programs_);
  if (trace_) {
    trace_->addSpan(
        sim::TraceTrack::Steps, "NPU program " + std::to_string(programs_), "npu", now_, now_ + sim.stats.cycles,
        {{"cycles", sim.stats.cycles}, {"instructions", sim.stats.instructions}, {"layers", program.layers.size()}});
    for (const auto& l : timed)
      trace_->addSpan(sim::TraceTrack::Layers, l.report.name, "npu", l.start_cycle, l.start_cycle + l.attributed_cycles,
                      {{"op", l.report.op},
                       {"macs", l.report.macs},
                       {"cycles", l.attributed_cycles},
                       {"span_cycles", l.simulated_cycles},
                       {"predicted_cycles", l.report.predicted_cycles},
                       {"instructions",
                        std::to_string(l.report.first_instruction) + ".." + std::to_string(l.report.end_instruction)}});
    trace_->addProgram(now_, sim.stats.cycles, isa::decodeAll(isa_, program.program.code), sim.timeline);
  }
  layers.insert(layers.end(), std::make_move_iterator(timed.begin()), std::make_move_iterator(timed.end()));
  now_ += sim.stats.cycles;
  ++programs_;
}

std::string ModelTimeline::traceJson() { return trace_ ? trace_->finish() : std::string(); }

}  // namespace systole::runtime
