// Host operators compiled to native code: for each host node of a quantized graph that has a
// lowering (hostjit/src/lower_*.cpp), LLVM IR is built with IRBuilder, specialized to the node's
// shapes and parameters, and compiled with ORC LLJIT. The generated code does the same operations
// in the same order as the reference interpreter's kernel (compiler::runKernel), so its results
// are equal bit for bit; nodes without a lowering keep running in the interpreter. The object code
// can be kept in a cache directory (next to the compile cache's artifacts), keyed by a hash of the
// IR, so a later run of the same model skips LLVM's optimizer and code generator.
// No LLVM header is visible here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "systole/compiler/graph.h"

namespace systole::hostjit {

struct Options {
  /// Where compiled objects are kept (e.g. compiler::defaultCacheDir()); empty: no object cache.
  std::string cache_dir;
};

/// What building the code cost.
struct CompileReport {
  size_t compiled = 0;      // nodes with native code
  double seconds = 0;       // building IR, optimizing, generating code (or loading it), linking
  bool cache_hit = false;   // the object came from the cache
  std::string cache_entry;  // the object file read or written ("" without a cache)
  std::string warning;      // "PATH: warning: ..." (a corrupt entry rebuilt, an entry not stored)
};

/// One node's tensors as their bytes (HostTensor::bytes, or a constant's Value::data), in the
/// node's input and output order; nullptr for an omitted optional input.
using Inputs = std::vector<const std::vector<uint8_t>*>;
using Outputs = std::vector<std::vector<uint8_t>*>;

class HostJit {
 public:
  /// Compiles every node of `nodes` (ids in `g`) that has a lowering, all in one LLVM module.
  /// `g` must outlive this object. Throws Error if LLVM fails.
  HostJit(const compiler::Graph& g, const std::vector<int>& nodes, const Options& options = {});
  ~HostJit();
  HostJit(const HostJit&) = delete;
  HostJit& operator=(const HostJit&) = delete;

  /// True if `node` has native code.
  bool compiled(int node) const;
  /// Runs `node`'s native code on tensors of the graph's shapes and types (as compiler::runKernel
  /// gets them); throws Error if a size differs.
  void run(int node, const Inputs& in, const Outputs& out) const;

  const CompileReport& report() const { return report_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  CompileReport report_;
};

/// True if the JIT has a lowering for this node (its op, types and parameters), without building it.
bool hasLowering(const compiler::Graph& g, const compiler::Node& n);

}  // namespace systole::hostjit
