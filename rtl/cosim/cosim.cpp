// makeRtlArray: the Verilated array of the config (build_table.h), one per shipped config and per
// array variant (a shipped config with one --set, such as default_w4).
#include "systole/rtl/cosim.h"

#include "build_table.h"

namespace systole::rtl {

namespace {

using Factory = std::unique_ptr<sim::ArrayBackend> (*)(const isa::IsaConfig&, const RtlArrayOptions&);

}  // namespace

#define SYSTOLE_COSIM_DECLARE(name) \
  std::unique_ptr<sim::ArrayBackend> makeRtlArray_##name(const isa::IsaConfig&, const RtlArrayOptions&);
#define SYSTOLE_COSIM_BUILD(name, path, override) SYSTOLE_COSIM_DECLARE(name)
#include "rtl_cosim_builds.inc"
#undef SYSTOLE_COSIM_BUILD

namespace {

const Build<Factory> kBuilds[] = {
#define SYSTOLE_COSIM_BUILD(name, path, override) {#name, path, override, &makeRtlArray_##name},
#include "rtl_cosim_builds.inc"
#undef SYSTOLE_COSIM_BUILD
};

}  // namespace

std::unique_ptr<sim::ArrayBackend> makeRtlArray(const isa::IsaConfig& isa, const RtlArrayOptions& options) {
  return findBuild<Factory>(kBuilds, isa, "RTL array").make(isa, options);
}

std::vector<std::string> rtlArrayConfigs() { return buildNames<Factory>(kBuilds); }

}  // namespace systole::rtl
