// Outputs generated from a config: the ISA reference page and the SystemVerilog package for rtl/.
#pragma once

#include <string>

#include "systole/isa/config.h"

namespace systole::isa {

/// Markdown reference: parameters, header format, and per instruction a bit diagram, its fields,
/// semantics and timing. `sourceName` is how the page names the config it came from.
std::string generateIsaDoc(const IsaConfig& isa, const std::string& sourceName);

/// ASCII bit diagram of one instruction, most significant bit on the left.
std::string bitDiagram(const IsaConfig& isa, const InstrDesc& d);

/// SystemVerilog package `systole_pkg` with every parameter, opcode and field position.
std::string generateSvPackage(const IsaConfig& isa, const std::string& sourceName);

/// The package's name for a parameter, instruction or field ("array.rows" -> "ARRAY_ROWS").
std::string svName(std::string name);

}  // namespace systole::isa
