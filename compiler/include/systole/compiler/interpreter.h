// The reference interpreter: plain C++, no tiling. Float operators in float32; quantized
// operators (int8 tensors with the attributes of docs/quantized-ops.md) in exactly the integer
// arithmetic the ISA specifies (systole/isa/arith.h). It is the witness every compiled program is
// checked against.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "systole/compiler/graph.h"
#include "systole/compiler/host_tensor.h"

namespace systole::compiler {

/// Sees one value (its id in the graph) and its tensor as soon as it is known: the graph inputs
/// first, then each node's outputs in topological order; the tensor is released after the call
/// once no later node reads it.
using ValueObserver = std::function<void(int value, const HostTensor&)>;

/// A graph prepared for evaluation (constants materialized once, order and readers computed), so
/// many inputs can be evaluated without redoing that work. `run` is const and may be called from
/// several threads at once. The graph must outlive the interpreter and stay unchanged.
class Interpreter {
 public:
  explicit Interpreter(const Graph& g);
  /// Takes `g`'s constant bytes instead of copying them (they are the model's weights, its whole
  /// size) and gives them back when destroyed; meanwhile nothing may read `g`'s constant data (the
  /// kernels read only their input tensors).
  struct TakeConstants {};
  Interpreter(Graph& g, TakeConstants);
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;
  /// Evaluates the graph on `inputs` (by graph-input name), calling `observe` (if set) for every
  /// non-constant value. Keeps each intermediate only until its last reader has run. Returns the
  /// graph outputs by name. Throws systole::Error naming the node, its op type and the reason for
  /// an unsupported operator or bad input.
  std::map<std::string, HostTensor> run(const std::map<std::string, HostTensor>& inputs,
                                        const ValueObserver& observe = {}) const;

 private:
  Interpreter(const Graph& g, Graph* lender);

  const Graph& g_;
  Graph* lender_ = nullptr;  // set when the constants were taken from the graph
  std::vector<std::optional<HostTensor>> constants_;
  std::vector<int> order_;
  std::vector<size_t> readers_;
  std::vector<bool> isOutput_;
};

/// Evaluates `g` on `inputs` (by graph-input name). Returns the graph outputs by name, or every
/// value computed when `keepAll` (--check uses that). Throws as Interpreter::run does.
std::map<std::string, HostTensor> interpret(const Graph& g, const std::map<std::string, HostTensor>& inputs,
                                            bool keepAll = false);

/// One node's kernel: reads `in` (nullptr for an omitted optional input), writes `out` (already
/// shaped and typed from the graph's values).
bool runQuantizedKernel(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in,
                        std::vector<HostTensor*>& out);  // false if `n` is not a quantized op
void runFloatKernel(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in,
                    std::vector<HostTensor*>& out);  // throws Error for an unknown op
/// The node's quantized kernel, else its float one; an Error names the node ("node 'NAME' (OP): ...").
void runKernel(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, std::vector<HostTensor*>& out);

}  // namespace systole::compiler
