// systole isa check|doc|svpkg: validate configs, print derived parameters, generate outputs.
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "systole/isa/file_io.h"
#include "systole/isa/generate.h"

namespace systole::tools {

namespace {

/// types.weight as written: "int8", "int8/int4".
std::string weightTypes(const isa::Params& p) {
  std::string text;
  for (int bits : p.weight_bits) text += (text.empty() ? "int" : "/int") + std::to_string(bits);
  return text;
}

void printSummary(const isa::IsaConfig& config) {
  const auto& p = config.params();
  std::cout << config.path() << ": ok: ISA '" << p.name << "', " << p.array_rows << "x" << p.array_cols << " "
            << isa::dataflowName(p.dataflow) << ", "
            << (p.act_bits != 8 ? "int" + std::to_string(p.act_bits) + " activations, " : "") << weightTypes(p)
            << " weights, "
            << (p.acc_bits < 32 ? "int" + std::to_string(p.acc_bits) + " saturating accumulators, " : "")
            << config.instructions().size() << " instructions of " << p.instr_bits << " bits\n";
  for (const auto& e : isa::parameterTable(p))
    std::cout << "  " << e.name << std::string(e.name.size() < 24 ? 24 - e.name.size() : 1, ' ') << e.value
              << (e.derived ? "  (derived)" : "") << "\n";
  for (const auto& c : isa::costParameters()) {
    const std::string name = std::string(c.section) + "." + std::string(c.key);
    constexpr size_t kWidth = 38;  // the longest cost key and a space
    std::cout << "  " << name << std::string(name.size() < kWidth ? kWidth - name.size() : 1, ' ')
              << isa::formatCost(p.cost.*c.member) << "  " << c.unit << "\n";
  }
  std::cout << "  " << isa::areaSummary(p) << "\n";
}

/// Generated files name their config by file name only, so they do not depend on where the
/// checkout lives.
std::string displayName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

}  // namespace

void registerIsa(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions) {
  auto* isaCmd = app.add_subcommand("isa", "Validate ISA configs and generate their reference and RTL package");
  isaCmd->require_subcommand(1);

  auto* check =
      isaCmd->add_subcommand("check", "Validate configs and print their derived parameters (exit 1 if any is invalid)");
  static std::vector<std::string> checkPaths;
  check->add_option("CONFIG", checkPaths, "ISA config files (or shipped config names)")->required();
  addSetOption(*check);
  actions.emplace_back(check, [] {
    int rc = kOk;
    for (const auto& path : checkPaths) {
      try {
        printSummary(loadConfig(path));
      } catch (const Error& e) {
        std::cerr << e.what() << "\n";
        rc = kCheckFailed;
      }
    }
    return rc;
  });

  struct GenOpts {
    std::string config, output;
  };
  static GenOpts docOpts, svOpts;
  auto* doc = isaCmd->add_subcommand("doc", "Write the ISA reference page (Markdown) for a config");
  doc->add_option("CONFIG", docOpts.config, "ISA config")->required();
  addSetOption(*doc);
  doc->add_option("-o,--output", docOpts.output, "output .md file")->required();
  actions.emplace_back(doc, [] {
    writeFileAtomic(docOpts.output, isa::generateIsaDoc(loadConfig(docOpts.config), displayName(docOpts.config)));
    return kOk;
  });

  auto* sv = isaCmd->add_subcommand("svpkg", "Write the SystemVerilog parameter package for a config");
  sv->add_option("CONFIG", svOpts.config, "ISA config")->required();
  addSetOption(*sv);
  sv->add_option("-o,--output", svOpts.output, "output .sv file")->required();
  actions.emplace_back(sv, [] {
    writeFileAtomic(svOpts.output, isa::generateSvPackage(loadConfig(svOpts.config), displayName(svOpts.config)));
    return kOk;
  });
}

}  // namespace systole::tools
