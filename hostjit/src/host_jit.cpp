// Algorithm: plan every node (lower.h); emit one function per planned node into one module;
// compile the module once (engine.h: cached object, or O1 + code generation) and look the
// functions up. A call passes the tensors' data pointers; their sizes are checked against the
// graph's, since the code is specialized to those shapes.
#include "systole/hostjit/host_jit.h"

#include <chrono>
#include <map>

#include "engine.h"
#include "lower.h"
#include "systole/isa/diagnostic.h"

namespace systole::hostjit {

using Function = void (*)(const uint8_t* const* inputs, uint8_t* const* outputs);

struct HostJit::Impl {
  struct Kernel {
    Function fn = nullptr;
    std::vector<size_t> in, out;  // expected sizes in bytes (0 for an omitted input)
    std::string name;
  };
  std::unique_ptr<Engine> engine;
  std::map<int, Kernel> kernels;
};

Emitter plan(const compiler::Graph& g, const compiler::Node& n) {
  try {
    for (auto planner : {planBoundary, planMovement, planNormalize, planMatMul, planElementwise})
      if (Emitter e = planner(g, n)) return e;
  } catch (...) {  // a malformed parameter (or one only known at run time): the interpreter says what
  }
  return {};
}

bool hasLowering(const compiler::Graph& g, const compiler::Node& n) { return static_cast<bool>(plan(g, n)); }

namespace {
size_t bytesOf(const compiler::Graph& g, int v) {
  if (v < 0) return 0;
  const auto& value = g.values[static_cast<size_t>(v)];
  return static_cast<size_t>(value.elements() * compiler::elemTypeBytes(value.type));
}
}  // namespace

HostJit::HostJit(const compiler::Graph& g, const std::vector<int>& nodes, const Options& options)
    : impl_(std::make_unique<Impl>()) {
  const auto start = std::chrono::steady_clock::now();
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = std::make_unique<llvm::Module>("systole.host", *ctx);
  {
    Ir ir(*ctx, *m);
    for (int id : nodes) {
      const compiler::Node& n = g.nodes.at(static_cast<size_t>(id));
      Emitter emit = plan(g, n);
      if (!emit) continue;
      Impl::Kernel k;
      k.name = "node" + std::to_string(id);
      for (int v : n.inputs) k.in.push_back(bytesOf(g, v));
      for (int v : n.outputs) k.out.push_back(bytesOf(g, v));
      ir.begin(k.name);
      emit(ir);
      ir.finish();
      impl_->kernels[id] = std::move(k);
    }
  }
  if (!impl_->kernels.empty()) {
    impl_->engine = std::make_unique<Engine>(options.cache_dir);
    impl_->engine->add(std::move(m), std::move(ctx));
    for (auto& [id, k] : impl_->kernels) k.fn = reinterpret_cast<Function>(impl_->engine->lookup(k.name));
    impl_->engine->describeCache(report_);
  }
  report_.compiled = impl_->kernels.size();
  report_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

HostJit::~HostJit() = default;

bool HostJit::compiled(int node) const { return impl_->kernels.count(node) != 0; }

void HostJit::run(int node, const Inputs& in, const Outputs& out) const {
  const Impl::Kernel& k = impl_->kernels.at(node);
  if (in.size() != k.in.size() || out.size() != k.out.size())
    throw Error("host JIT: " + k.name + " called with the wrong number of tensors");
  std::vector<const uint8_t*> inputs;
  std::vector<uint8_t*> outputs;
  for (size_t i = 0; i < in.size(); ++i) {
    if ((in[i] ? in[i]->size() : 0) != k.in[i])
      throw Error("host JIT: input " + std::to_string(i) + " does not have the compiled size");
    inputs.push_back(in[i] ? in[i]->data() : nullptr);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i] || out[i]->size() != k.out[i])
      throw Error("host JIT: output " + std::to_string(i) + " does not have the compiled size");
    outputs.push_back(out[i]->data());
  }
  k.fn(inputs.data(), outputs.data());
}

}  // namespace systole::hostjit
