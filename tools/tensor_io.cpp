#include "tensor_io.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <random>

#include "systole/isa/diagnostic.h"

namespace systole::tools {

std::map<std::string, std::vector<uint8_t>> bindInputs(const isa::Program& program,
                                                       const std::vector<std::string>& args, uint64_t seed) {
  std::map<std::string, std::vector<uint8_t>> bound;
  for (const auto& arg : args) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("--input expects NAME=FILE.npy, got '" + arg + "'");
    const std::string name = arg.substr(0, eq), path = arg.substr(eq + 1);
    auto it = std::find_if(program.tensors.begin(), program.tensors.end(), [&](const isa::TensorInfo& t) {
      return t.name == name && t.kind == isa::TensorKind::Input;
    });
    if (it == program.tensors.end())
      throw Error("--input " + name + ": the program has no input tensor named '" + name + "'");
    NpyArray a = readNpy(path);
    if (a.dtype != it->dtype || a.shape != it->shape) {
      auto show = [](isa::DType t, const std::vector<int64_t>& s) {
        std::string r = std::string(isa::dtypeName(t)) + "[";
        for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
        return r + "]";
      };
      throw Error(SourceLocation{path, 0, 0}, "input '" + name + "' must be " + show(it->dtype, it->shape) +
                                                  ", the file holds " + show(a.dtype, a.shape));
    }
    bound[name] = std::move(a.bytes);
  }
  std::mt19937_64 rng(seed);
  for (const auto& t : program.tensors) {
    if (t.kind != isa::TensorKind::Input || bound.count(t.name)) continue;
    std::vector<uint8_t> bytes(static_cast<size_t>(t.bytes()));
    if (t.dtype == isa::DType::Float32) {
      std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
      for (size_t i = 0; i < bytes.size(); i += 4) {
        const float v = uniform(rng);
        std::memcpy(&bytes[i], &v, 4);
      }
    } else {
      for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    }
    bound[t.name] = std::move(bytes);
  }
  return bound;
}

std::string outputFileName(const std::string& tensor) {
  // Tensor names come from the model or the program: only letters, digits, '_', '-' and '.'
  // survive, and no name starts with '.', so no write leaves the directory (no '/', no "..").
  std::string name;
  for (char c : tensor)
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ? c : '_';
  if (name.empty() || name[0] == '.') name = "_" + name;
  return name + ".npy";
}

void writeOutputs(const std::string& dir,
                  const std::vector<std::pair<isa::TensorInfo, std::vector<uint8_t>>>& tensors) {
  std::map<std::string, std::string> files;  // file -> tensor: checked for clashes before anything is written
  for (const auto& [info, bytes] : tensors) {
    const auto [it, fresh] = files.emplace(outputFileName(info.name), info.name);
    if (!fresh)
      throw Error("outputs '" + it->second + "' and '" + info.name + "' would both be written to " + dir + "/" +
                  it->first);
  }
  std::filesystem::create_directories(dir);
  for (const auto& [info, bytes] : tensors)
    writeNpy(dir + "/" + outputFileName(info.name), NpyArray{info.dtype, info.shape, bytes});
}

}  // namespace systole::tools
