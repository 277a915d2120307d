// systole asm|disasm: assembly text <-> .sbin programs.
#include <iostream>

#include "commands.h"
#include "systole/compiler/artifact.h"
#include "systole/isa/assembler.h"
#include "systole/isa/file_io.h"
#include "systole/isa/shipped_configs.h"

namespace systole::tools {

namespace {

/// Every program of a compiled model, under "# program K" when there is more than one.
int disassembleModel(const std::string& path, const std::string& isaPath, const std::string& output) {
  const compiler::Artifact artifact = compiler::readArtifact(path);
  const auto config = loadConfig(isaPath.empty() ? isa::shippedConfigPath(artifact.isa_name, path) : isaPath);
  compiler::checkArtifactMatches(artifact, config, path);
  std::string text;
  size_t k = 0;
  for (const auto& item : artifact.model.schedule) {
    if (!item.npu) continue;
    if (artifact.model.programCount() > 1) text += "# program " + std::to_string(k++) + "\n";
    text += isa::disassemble(config, item.npu->program);
  }
  if (output.empty())
    std::cout << text;
  else
    writeFileAtomic(output, text);
  return kOk;
}

}  // namespace

void registerAsm(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions) {
  struct AsmOpts {
    std::string input, isa, output;
  };
  static AsmOpts a;
  auto* as = app.add_subcommand("asm", "Assemble a program into a .sbin container");
  as->add_option("PROG", a.input, "assembly file")->required();
  as->add_option("--isa", a.isa, "ISA config (path or shipped name)")->required();
  addSetOption(*as);
  as->add_option("-o,--output", a.output, "output .sbin")->required();
  actions.emplace_back(as, [] {
    const auto config = loadConfig(a.isa);
    const auto program = isa::assemble(config, readTextFile(a.input), a.input);
    isa::writeSbin(a.output, program);
    return kOk;
  });

  static AsmOpts d;
  auto* dis = app.add_subcommand("disasm", "Print a .sbin program as assembly");
  dis->add_option("PROG", d.input, ".sbin file")->required();
  dis->add_option("--isa", d.isa, "ISA config (default: the shipped config the program names)");
  addSetOption(*dis);
  dis->add_option("-o,--output", d.output, "write to a file instead of stdout");
  actions.emplace_back(dis, [] {
    if (isa::sbinVersion(readBinaryFile(d.input), d.input) == isa::kModelSbinVersion)
      return static_cast<int>(disassembleModel(d.input, d.isa, d.output));
    const auto program = isa::readSbin(d.input);
    const auto config = loadConfig(d.isa.empty() ? isa::shippedConfigPath(program.isa_name, d.input) : d.isa);
    isa::checkProgramMatches(program, config, d.input);
    std::string text;
    try {
      text = isa::disassemble(config, program);
    } catch (const Error& e) {
      throw Error(SourceLocation{d.input, 0, 0}, e.message());
    }
    if (d.output.empty())
      std::cout << text;
    else
      writeFileAtomic(d.output, text);
    return static_cast<int>(kOk);
  });
}

}  // namespace systole::tools
