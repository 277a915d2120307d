// RTL co-simulation: the Verilated systolic array (rtl/systolic_array.sv) as the simulator's
// ArrayBackend, one Verilated model per shipped config. Used by `systole sim --rtl=array`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "systole/isa/config.h"
#include "systole/sim/array_backend.h"

namespace systole::rtl {

struct RtlArrayOptions {
  std::string vcd;  // if not empty, dump the array's waveform (VCD) to this file
};

/// The Verilated array built for `isa`: picked by the ISA name, and only if the config file's
/// hash equals the one of the shipped config the model was built from. Throws systole::Error
/// ("no RTL build for config 'X'") otherwise.
std::unique_ptr<sim::ArrayBackend> makeRtlArray(const isa::IsaConfig& isa, const RtlArrayOptions& options = {});

/// Names of the configs with a Verilated array.
std::vector<std::string> rtlArrayConfigs();

}  // namespace systole::rtl
