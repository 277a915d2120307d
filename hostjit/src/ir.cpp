// Algorithm: a function's entry block holds its stack slots and falls through to the body; a loop
// is a do-while over an i64 phi (so a body may add blocks of its own), tagged with
// llvm.loop.vectorize.enable when asked; constant tables are private constant globals, which the
// optimizer folds when indexed by a constant.
#include "ir.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Metadata.h"

namespace systole::hostjit {

void Ir::begin(const std::string& name) {
  auto* ptr = b.getPtrTy();
  auto* type = llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr}, false);
  f_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, m);
  f_->addFnAttr(llvm::Attribute::NoUnwind);
  entry_ = llvm::BasicBlock::Create(ctx, "entry", f_);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "body", f_));
}

void Ir::finish() {
  b.CreateRetVoid();
  llvm::IRBuilder<> e(entry_);
  e.CreateBr(&*std::next(f_->begin()));
}

llvm::Value* Ir::input(size_t k) {
  return b.CreateLoad(b.getPtrTy(), at(b.getPtrTy(), f_->getArg(0), c64(static_cast<int64_t>(k))));
}

llvm::Value* Ir::output(size_t k) {
  return b.CreateLoad(b.getPtrTy(), at(b.getPtrTy(), f_->getArg(1), c64(static_cast<int64_t>(k))));
}

namespace {
template <typename T>
llvm::Value* constantTable(llvm::Module& m, llvm::Type* elem, const std::vector<T>& values, auto make) {
  std::vector<llvm::Constant*> items;
  for (T v : values) items.push_back(make(v));
  auto* type = llvm::ArrayType::get(elem, values.size());
  return new llvm::GlobalVariable(m, type, true, llvm::GlobalValue::PrivateLinkage,
                                  llvm::ConstantArray::get(type, items));
}
}  // namespace

llvm::Value* Ir::table(const std::vector<int64_t>& values) {
  return constantTable(m, i64(), values, [&](int64_t v) { return b.getInt64(static_cast<uint64_t>(v)); });
}
llvm::Value* Ir::table(const std::vector<int32_t>& values) {
  return constantTable(m, i32(), values, [&](int32_t v) { return b.getInt32(static_cast<uint32_t>(v)); });
}
llvm::Value* Ir::table(const std::vector<float>& values) {
  return constantTable(m, f32(), values, [&](float v) { return llvm::ConstantFP::get(f32(), static_cast<double>(v)); });
}

llvm::Value* Ir::local(llvm::Type* type, llvm::Value* init, int64_t count) {
  llvm::IRBuilder<> e(entry_);
  llvm::Value* slot = e.CreateAlloca(type, count == 1 ? nullptr : c64(count));
  if (init) b.CreateStore(init, slot);
  return slot;
}

void Ir::loop(int64_t count, const std::function<void(llvm::Value*)>& body, bool vectorize) {
  if (count <= 0) return;
  llvm::BasicBlock* before = b.GetInsertBlock();
  auto* head = llvm::BasicBlock::Create(ctx, "loop", f_);
  auto* exit = llvm::BasicBlock::Create(ctx, "loop.end", f_);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode* i = b.CreatePHI(i64(), 2);
  i->addIncoming(c64(0), before);
  body(i);
  llvm::Value* next = b.CreateAdd(i, c64(1), "", true, true);
  i->addIncoming(next, b.GetInsertBlock());
  llvm::BranchInst* back = b.CreateCondBr(b.CreateICmpSLT(next, c64(count)), head, exit);
  if (vectorize) {
    llvm::Metadata* enable[] = {llvm::MDString::get(ctx, "llvm.loop.vectorize.enable"),
                                llvm::ConstantAsMetadata::get(b.getTrue())};
    llvm::MDNode* id = llvm::MDNode::getDistinct(ctx, {nullptr, llvm::MDNode::get(ctx, enable)});
    id->replaceOperandWith(0, id);
    back->setMetadata(llvm::LLVMContext::MD_loop, id);
  }
  b.SetInsertPoint(exit);
}

void Ir::loopNest(const std::vector<int64_t>& shape,
                  const std::function<void(const std::vector<llvm::Value*>&)>& body) {
  std::vector<llvm::Value*> idx;
  std::function<void(size_t)> level = [&](size_t d) {
    if (d == shape.size()) return body(idx);
    loop(shape[d], [&](llvm::Value* i) {
      idx.push_back(i);
      level(d + 1);
      idx.pop_back();
    });
  };
  level(0);
}

void Ir::when(llvm::Value* cond, const std::function<void()>& body) {
  auto* then = llvm::BasicBlock::Create(ctx, "then", f_);
  auto* done = llvm::BasicBlock::Create(ctx, "endif", f_);
  b.CreateCondBr(cond, then, done);
  b.SetInsertPoint(then);
  body();
  b.CreateBr(done);
  b.SetInsertPoint(done);
}

}  // namespace systole::hostjit
