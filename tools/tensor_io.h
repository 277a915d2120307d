// Binding a program's tensors to .npy files: NAME=FILE.npy inputs (checked against the tensor
// table), seeded random inputs for the rest, and writing outputs to a directory.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "systole/isa/npy.h"
#include "systole/isa/program.h"

namespace systole::tools {

/// Parses NAME=FILE.npy arguments and fills in seeded random values for inputs not given.
std::map<std::string, std::vector<uint8_t>> bindInputs(const isa::Program& program,
                                                       const std::vector<std::string>& args, uint64_t seed);

/// The file an output tensor is written to inside --output-dir: NAME.npy with every character but
/// letters, digits, '_', '-' and '.' made '_', and never starting with '.'.
std::string outputFileName(const std::string& tensor);
/// Writes every tensor as DIR/outputFileName(name); two names that map to one file are an error
/// before anything is written.
void writeOutputs(const std::string& dir, const std::vector<std::pair<isa::TensorInfo, std::vector<uint8_t>>>& tensors);

}  // namespace systole::tools
