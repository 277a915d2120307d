// The IRBuilder the lowerings write with: one function per host node, `void f(ptr inputs,
// ptr outputs)` taking arrays of tensor pointers, plus the few shapes of code they all need
// (counted loops, locals, constant tables, typed element access). Floating-point operations are
// emitted without fast-math flags, so LLVM keeps each one and its order as written (and the engine
// never fuses a multiply and an add).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace systole::hostjit {

class Ir {
 public:
  Ir(llvm::LLVMContext& ctx, llvm::Module& m) : ctx(ctx), m(m), b(ctx) {}

  /// Starts `void name(ptr inputs, ptr outputs)`; `finish` ends it.
  void begin(const std::string& name);
  void finish();

  /// Pointer k of the inputs / outputs array.
  llvm::Value* input(size_t k);
  llvm::Value* output(size_t k);

  llvm::Type* i8() { return b.getInt8Ty(); }
  llvm::Type* i32() { return b.getInt32Ty(); }
  llvm::Type* i64() { return b.getInt64Ty(); }
  llvm::Type* f32() { return b.getFloatTy(); }
  llvm::Type* f64() { return b.getDoubleTy(); }
  llvm::Value* c64(int64_t v) { return b.getInt64(static_cast<uint64_t>(v)); }
  llvm::Value* c32(int32_t v) { return b.getInt32(static_cast<uint32_t>(v)); }
  llvm::Value* cf32(float v) { return llvm::ConstantFP::get(f32(), static_cast<double>(v)); }
  llvm::Value* cf64(double v) { return llvm::ConstantFP::get(f64(), v); }

  /// &base[index] and its load / store, for elements of `type`.
  llvm::Value* at(llvm::Type* type, llvm::Value* base, llvm::Value* index) {
    return b.CreateInBoundsGEP(type, base, index);
  }
  llvm::Value* load(llvm::Type* type, llvm::Value* base, llvm::Value* index) {
    return b.CreateLoad(type, at(type, base, index));
  }
  void store(llvm::Value* v, llvm::Value* base, llvm::Value* index) { b.CreateStore(v, at(v->getType(), base, index)); }

  /// A constant array in the module (read with `load`).
  llvm::Value* table(const std::vector<int64_t>& values);
  llvm::Value* table(const std::vector<int32_t>& values);
  llvm::Value* table(const std::vector<float>& values);

  /// A stack slot of `count` elements in the entry block, set to `init` on entry if given.
  llvm::Value* local(llvm::Type* type, llvm::Value* init = nullptr, int64_t count = 1);

  /// for (i = 0; i < count; ++i) body(i), with i an i64. `vectorize` asks LLVM's loop vectorizer
  /// for this loop (the engine vectorizes no other): only for loops whose iterations are
  /// independent element-wise work, since vectorizing changes no result there.
  void loop(int64_t count, const std::function<void(llvm::Value*)>& body, bool vectorize = false);
  /// Row-major loops over `shape` (outermost first); body gets one index per dimension.
  void loopNest(const std::vector<int64_t>& shape, const std::function<void(const std::vector<llvm::Value*>&)>& body);
  /// if (cond) body();
  void when(llvm::Value* cond, const std::function<void()>& body);

  llvm::LLVMContext& ctx;
  llvm::Module& m;
  llvm::IRBuilder<> b;

 private:
  llvm::Function* f_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
};

}  // namespace systole::hostjit
