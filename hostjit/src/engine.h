// The JIT: one ORC LLJIT for the host CPU, its code generator given an object cache. A module is
// keyed by a hash of its IR before optimization (with the LLVM version and the CPU), so a cached
// object skips both the optimizer and the code generator.
#pragma once

#include <memory>
#include <string>

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Module.h"
#include "systole/hostjit/host_jit.h"

namespace systole::hostjit {

class ObjectFileCache;

class Engine {
 public:
  /// `cacheDir` empty: no object cache.
  explicit Engine(const std::string& cacheDir);
  ~Engine();

  /// Prepares `m` for this machine (data layout, triple), verifies it, optimizes it (O1, no
  /// fast-math, no FMA contraction) unless the cache holds its object, and adds it to the JIT.
  /// Throws Error on a verifier or LLVM error.
  void add(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx);

  /// The address of a function of an added module (compiling the module on first use).
  void* lookup(const std::string& name);

  /// After the lookups: whether the object came from the cache, the entry and any warning.
  void describeCache(CompileReport& report) const;

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::unique_ptr<llvm::TargetMachine> tm_;  // for the optimizer
  std::unique_ptr<ObjectFileCache> cache_;
  std::string cpu_, key_;
};

}  // namespace systole::hostjit
