// Fuzz target: the expression engine alone (parse, constant folding, postfix evaluation). Names
// are the default config's parameters (constants) and the field names of its instructions, each
// field name bound to one of kMaxFields slots; an expression that compiles is evaluated with every
// field at 0, at 1, at 2^31 - 1 and at INT64_MAX. Errors are systole::Error; anything else is a bug.
#include <array>
#include <limits>
#include <map>

#include "fuzz_support.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/expr.h"

namespace {

std::map<std::string, systole::isa::NameBinding, std::less<>> names() {
  using systole::isa::NameBinding;
  const auto& config = *systole::fuzz::shippedConfig("default");
  std::map<std::string, NameBinding, std::less<>> m;
  for (const auto& p : systole::isa::parameterTable(config.params()))
    m[p.name] = {NameBinding::Kind::Constant, p.value, 0};
  for (const auto& instr : config.instructions())
    for (const auto& f : instr.fields)
      m.try_emplace(f.name,
                    NameBinding{NameBinding::Kind::Field, 0, static_cast<int>(m.size() % systole::isa::kMaxFields)});
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  static const auto bindings = names();
  const isa::NameResolver resolve = [](std::string_view name) -> std::optional<isa::NameBinding> {
    auto it = bindings.find(name);
    if (it == bindings.end()) return std::nullopt;
    return it->second;
  };
  try {
    const auto expr = isa::Expr::compile(fuzz::text(data, size), resolve, SourceLocation{"fuzz.expr", 1, 1});
    for (int64_t value : {int64_t{0}, int64_t{1}, int64_t{0x7fffffff}, std::numeric_limits<int64_t>::max()}) {
      std::array<int64_t, isa::kMaxFields> fields;
      fields.fill(value);
      try {
        (void)expr.eval(fields);
      } catch (const Error& e) {
        fuzz::rejected(e);
      }
    }
  } catch (const Error& e) {
    fuzz::rejected(e);
  }
  return 0;
}
