// The synthesized RTL's size beside the YAML's area model (`systole report --rtl-area`). The
// figures are bench/synth.sh's summary of one config (BUILD_DIR/synth/<config>.json: per block its
// cells, flip-flops, memory bits and estimated transistors, and how many of it the NPU has); each
// block is counted in the part of isa::areaOf that prices it, and its transistors become mm² at an
// assumed area per transistor.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "report_page.h"

namespace systole::tools {

/// One synthesized block: its figures for one instance, and the NPU's count of it.
struct RtlBlock {
  std::string name;
  int64_t instances = 0, cells = 0, flip_flops = 0, memory_bits = 0, transistors = 0;
};

/// One config's synthesis summary.
struct RtlSynthesis {
  std::string path, config;
  std::map<std::string, int64_t> parameters;  // the package's parameters by SystemVerilog name
  std::vector<RtlBlock> blocks;
};

/// Reads a summary; anything but one (a block the area model has no part for, a missing figure)
/// is an Error at the file.
RtlSynthesis readRtlSynthesis(const std::string& path);

/// Throws Error at the summary unless it was synthesized from the run's config: the same name,
/// and every parameter of the run that the package has equal.
void checkSameConfig(const RtlSynthesis& synth, const StatsRun& run);

/// A section: per part of the area model its mm² beside the RTL blocks that implement it, and the
/// blocks one by one.
std::string rtlAreaHtml(const StatsRun& run, const RtlSynthesis& synth, double um2PerTransistor);

}  // namespace systole::tools
