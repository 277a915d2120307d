// Algorithm: LLJIT for the detected host, with AllowFPOpFusion = Strict (a multiply and an add
// stay two roundings, as in the interpreter, which GCC builds without contraction) and a
// TMOwningSimpleCompiler that asks the ObjectFileCache first. `add` sets the module's identifier
// to fnv1a64(these settings, LLVM version, CPU, features, IR text): on a cache hit the unoptimized module is
// handed over and the compiler returns the stored object; on a miss the optimizer runs and the
// compiler stores what it generates. The optimizer is LLVM's O1 pipeline without unrolling, whose
// loop vectorizer takes only the loops a lowering marks (element-wise ones, Ir::loop), and the code
// generator runs at CodeGenOptLevel::Less: the full O2 pipeline made the host code no faster on the
// development machine (AVX2) and compiling took up to three times as long (bench/host_jit.md), a
// cost every run without a cached object pays. The JIT resolves `systole_host_expf` to the
// function the interpreter's Softmax uses, and other symbols (memcpy, memset) in the process.
#include "engine.h"

#include <cmath>
#include <cstdio>
#include <mutex>

#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "object_file_cache.h"
#include "systole/isa/config.h"
#include "systole/isa/diagnostic.h"

namespace systole::hostjit {

namespace {

/// Names the optimizer and code generator settings below, for the cache key: change it with them.
constexpr const char* kPipeline = "O1, no unrolling, marked loops vectorized, codegen Less, no fusion";

/// std::exp on a float, compiled here as the interpreter's kernel is (a call of the C library's expf).
float hostExpf(float x) { return std::exp(x); }

template <typename T>
T orThrow(llvm::Expected<T> value, const char* what) {
  if (!value) throw Error(std::string("host JIT: ") + what + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}

void orThrow(llvm::Error e, const char* what) {
  if (e) throw Error(std::string("host JIT: ") + what + ": " + llvm::toString(std::move(e)));
}

llvm::orc::JITTargetMachineBuilder hostMachine() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto jtmb = orThrow(llvm::orc::JITTargetMachineBuilder::detectHost(), "detecting the host");
  jtmb.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Strict;
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Less);
  return jtmb;
}

void optimize(llvm::Module& m, llvm::TargetMachine& tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;  // vectorize only the loops the lowerings mark (Ir::loop)
  tuning.LoopVectorization = false;
  tuning.SLPVectorization = false;
  tuning.LoopUnrolling = false;
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O1).run(m, mam);
}

}  // namespace

Engine::Engine(const std::string& cacheDir) {
  auto jtmb = hostMachine();
  cpu_ = jtmb.getCPU() + " " + jtmb.getFeatures().getString();
  tm_ = orThrow(jtmb.createTargetMachine(), "creating the target machine");
  if (!cacheDir.empty()) cache_ = std::make_unique<ObjectFileCache>(cacheDir);
  ObjectFileCache* cache = cache_.get();
  jit_ = orThrow(
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(jtmb)
          .setCompileFunctionCreator([cache](llvm::orc::JITTargetMachineBuilder b)
                                         -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
            auto tm = b.createTargetMachine();
            if (!tm) return tm.takeError();
            return std::make_unique<llvm::orc::TMOwningSimpleCompiler>(std::move(*tm), cache);
          })
          .create(),
      "creating LLJIT");
  llvm::orc::SymbolMap symbols;
  symbols[jit_->mangleAndIntern("systole_host_expf")] = {
      llvm::orc::ExecutorAddr::fromPtr(&hostExpf), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  orThrow(jit_->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols))),
          "defining the runtime symbols");
}

Engine::~Engine() = default;

void Engine::add(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx) {
  // Remarks and warnings (a marked loop the vectorizer declined) are not the user's business.
  ctx->setDiagnosticHandlerCallBack([](const llvm::DiagnosticInfo* d, void*) {
    if (d->getSeverity() != llvm::DS_Error) return;
    llvm::DiagnosticPrinterRawOStream printer(llvm::errs());
    d->print(printer);
    llvm::errs() << "\n";
  });
  m->setDataLayout(jit_->getDataLayout());
  m->setTargetTriple(jit_->getTargetTriple().str());
  std::string text;
  llvm::raw_string_ostream os(text);
  if (llvm::verifyModule(*m, &os)) throw Error("host JIT: invalid IR: " + os.str());
  m->print(os, nullptr);
  const std::string keyed = std::string(kPipeline) + "\n" + LLVM_VERSION_STRING + "\n" + cpu_ + "\n" + os.str();
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(isa::fnv1a64(keyed.data(), keyed.size())));
  key_ = key;
  m->setModuleIdentifier(key_);
  const bool cached = cache_ && cache_->prefetch(key);
  if (!cached) optimize(*m, *tm_);
  orThrow(jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))), "adding the module");
}

void* Engine::lookup(const std::string& name) {
  auto address = orThrow(jit_->lookup(name), "looking up a host function");
  return address.toPtr<void*>();
}

void Engine::describeCache(CompileReport& report) const {
  if (!cache_) return;
  report.cache_entry = cache_->entryPath(key_);
  report.cache_hit = cache_->hit();
  report.warning = cache_->warning();
}

}  // namespace systole::hostjit
