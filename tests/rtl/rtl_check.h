// Shared pieces of the RTL checks: command line, the config and its timing expressions, failure
// reporting, clocking a Verilated model (one cycle, or a drive/observe loop until done), reading/
// writing elements of packed-array ports whatever C++ type Verilator chose for them (CData..QData
// for <= 64 bits, VlWide above), what every check class holds (Bench) and a check's main()
// (checkMain). Streaming rows into a block: row_stream.h.
//
// Every check is one executable per (block, config): the Verilated model is built from that
// config's generated package, and the config file named on the command line must match it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "systole/isa/config.h"
#include "systole/isa/semantics.h"
#include "verilated.h"

namespace systole::rtlcheck {

struct Options {
  std::string config;                          // path of the YAML the model is checked against
  std::vector<isa::ConfigOverride> overrides;  // --set KEY=VALUE, as the package was generated with
  uint64_t seed = 0;                           // stimulus seed; 0: derived from the config file's hash (see seedFor)
  int cases = 0;                               // 0: the check's default
  std::string inject;                          // a deliberate protocol violation (tests that the assertions fire)
};

inline Options parseOptions(int argc, char** argv, const char* usage) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s: %s needs a value\nusage: %s\n", argv[0], a.c_str(), usage);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--config")
      o.config = value();
    else if (a == "--set")
      o.overrides.push_back(isa::ConfigOverride::parse(value()));
    else if (a == "--seed")
      o.seed = std::stoull(value());
    else if (a == "--cases")
      o.cases = std::stoi(value());
    else if (a == "--inject")
      o.inject = value();
    else {
      std::fprintf(stderr, "%s: unknown argument '%s'\nusage: %s\n", argv[0], a.c_str(), usage);
      std::exit(2);
    }
  }
  if (o.config.empty()) {
    std::fprintf(stderr, "usage: %s\n", usage);
    std::exit(2);
  }
  return o;
}

/// The seed to use: --seed if given, else one derived from the config (so configs with the same
/// parameters still get different stimuli). Printed with the results, so a failure can be replayed.
inline uint64_t seedFor(const Options& o, const isa::IsaConfig& isa) {
  return o.seed != 0 ? o.seed : (isa.hash() % 1000000007u) + 1;
}

/// Counts checks and mismatches; prints the first few mismatches in full.
class Report {
 public:
  explicit Report(std::string name) : name_(std::move(name)) {}

  void pass() { ++checks_; }
  /// Records a failed check; `what` is printed for the first kMaxPrinted failures.
  void fail(const std::string& what) {
    ++checks_;
    ++failures_;
    if (failures_ <= kMaxPrinted)
      std::fprintf(stderr, "%s: %s\n", name_.c_str(), what.c_str());
    else if (failures_ == kMaxPrinted + 1)
      std::fprintf(stderr, "%s: (further mismatches not printed)\n", name_.c_str());
  }
  bool expect(bool ok, const std::string& what) {
    ok ? pass() : fail(what);
    return ok;
  }

  int64_t checks() const { return checks_; }
  int64_t failures() const { return failures_; }
  const std::string& name() const { return name_; }

  /// Prints the summary line; returns the process exit code.
  int finish(const std::string& counts) const {
    std::printf("%s: %s; %lld checks, %lld mismatches\n", name_.c_str(), counts.c_str(),
                static_cast<long long>(checks_), static_cast<long long>(failures_));
    return failures_ == 0 ? 0 : 1;
  }

 private:
  static constexpr int64_t kMaxPrinted = 12;
  std::string name_;
  int64_t checks_ = 0;
  int64_t failures_ = 0;
};

/// The timing expression of one instruction, evaluated with operands given by name.
class Timing {
 public:
  Timing(const isa::IsaConfig& isa, isa::Semantics s) : isa_(&isa) {
    index_ = isa.bySemantics(s);
    if (index_ >= 0) desc_ = &isa.instr(index_);
  }
  bool present() const { return desc_ != nullptr; }
  const isa::InstrDesc& desc() const { return *desc_; }

  /// The name and the limit of the instruction's k-th operand (its semantics class's order).
  const char* operandName(int k) const { return operand(k).name.c_str(); }
  int64_t operandLimit(int k) const { return operand(k).limit(); }
  /// The limit of the field named `field`.
  int64_t fieldLimit(const char* field) const {
    const int k = desc_->fieldIndex(field);
    if (k < 0) throw std::runtime_error("instruction " + desc_->name + " has no field " + field);
    return desc_->fields[static_cast<size_t>(k)].limit();
  }

  /// Field values in the instruction's field order, from (operand name, value) pairs.
  std::vector<int64_t> fields(std::span<const std::pair<const char*, int64_t>> operands) const {
    std::vector<int64_t> f(desc_->fields.size(), 0);
    for (const auto& [name, value] : operands) {
      const int k = desc_->fieldIndex(name);
      if (k < 0) throw std::runtime_error("instruction " + desc_->name + " has no field " + name);
      f[static_cast<size_t>(k)] = value;
    }
    return f;
  }

  int64_t eval(std::span<const std::pair<const char*, int64_t>> operands) const {
    const auto f = fields(operands);
    return desc_->cycles.eval(f);
  }

  /// "cycles = `expr` with a=1, b=2 (array.rows=16, ...)" naming the parameters the text uses.
  std::string describe(std::span<const std::pair<const char*, int64_t>> operands) const {
    std::ostringstream s;
    s << desc_->name << " (" << isa::semanticsInfo(desc_->semantics).name << "): cycles = `" << desc_->cycles.text()
      << "` with ";
    bool first = true;
    for (const auto& [name, value] : operands) {
      s << (first ? "" : ", ") << name << "=" << value;
      first = false;
    }
    std::string params;
    for (const auto& e : isa::parameterTable(isa_->params()))
      if (desc_->cycles.text().find(e.name) != std::string::npos)
        params += (params.empty() ? "" : ", ") + e.name + "=" + std::to_string(e.value);
    if (!params.empty()) s << " (" << params << ")";
    return s.str();
  }

  /// Compares the RTL's cycle count with the expression (and, if given, a C++ model's count).
  void check(Report& r, std::span<const std::pair<const char*, int64_t>> operands, int64_t rtlCycles,
             int64_t modelCycles = -1) const {
    const int64_t expected = eval(operands);
    if (rtlCycles != expected)
      r.fail("TIMING MISMATCH " + describe(operands) + ": model (the expression) " + std::to_string(expected) +
             " cycles, RTL " + std::to_string(rtlCycles));
    else
      r.pass();
    if (modelCycles >= 0) {
      if (modelCycles != expected)
        r.fail("TIMING MISMATCH " + describe(operands) + ": the expression " + std::to_string(expected) +
               " cycles, the C++ reference model " + std::to_string(modelCycles));
      else
        r.pass();
    }
  }

  /// check() for a run held up for `stalls` cycles (idle inputs, back-pressure), each of which
  /// costs one cycle more than the expression; `cause` and `unit` name them in a mismatch.
  void checkStalled(Report& r, std::span<const std::pair<const char*, int64_t>> operands, int64_t rtlCycles,
                    int64_t stalls, const std::string& cause, const std::string& unit) const {
    const int64_t expected = eval(operands) + stalls;
    r.expect(rtlCycles == expected, "TIMING MISMATCH with " + cause + " " + describe(operands) + ": the expression + " +
                                        std::to_string(stalls) + " " + unit + " gives " + std::to_string(expected) +
                                        ", the RTL took " + std::to_string(rtlCycles));
  }

 private:
  const isa::FieldDesc& operand(int k) const {
    return desc_->fields[static_cast<size_t>(desc_->operand_field[static_cast<size_t>(k)])];
  }

  const isa::IsaConfig* isa_;
  int index_ = -1;
  const isa::InstrDesc* desc_ = nullptr;
};

/// Requires the Verilated package's value of a parameter to equal the config's.
inline bool samePackage(Report& r, const char* what, int64_t pkg, int64_t config) {
  if (pkg == config) return true;
  r.fail("PACKAGE MISMATCH: the model was Verilated with " + std::string(what) + " = " + std::to_string(pkg) +
         " but the config file says " + std::to_string(config) + " (wrong --config for this model?)");
  return false;
}

// ---- ports -------------------------------------------------------------------------------------

/// Writes a value to a narrow port of whatever integer type Verilator gave it.
template <typename P, typename V>
void set(P& port, V value) {
  port = static_cast<P>(value);
}

template <typename P>
inline constexpr bool kNarrowPort = std::is_integral_v<P>;

/// Writes `width` (<= 32) bits at `lsb` of a port; an element never straddles a 32-bit word.
template <typename P>
void putBits(P& port, int lsb, int width, uint64_t value) {
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  if constexpr (kNarrowPort<P>) {
    using U = std::make_unsigned_t<P>;
    const uint64_t cur = static_cast<uint64_t>(static_cast<U>(port));
    port = static_cast<P>((cur & ~(mask << lsb)) | ((value & mask) << lsb));
  } else {
    const int word = lsb / 32, shift = lsb % 32;
    const uint64_t cur = port[word];
    port[word] = static_cast<uint32_t>((cur & ~(mask << shift)) | ((value & mask) << shift));
  }
}

template <typename P>
uint64_t getBits(const P& port, int lsb, int width) {
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  if constexpr (kNarrowPort<P>) {
    using U = std::make_unsigned_t<P>;
    return (static_cast<uint64_t>(static_cast<U>(port)) >> lsb) & mask;
  } else {
    return (static_cast<uint64_t>(port[lsb / 32]) >> (lsb % 32)) & mask;
  }
}

/// A Verilated top with clk_i / rst_ni, stepped one clock cycle at a time. Inputs set before
/// settle() are the cycle's inputs; settle() evaluates the combinational outputs of the cycle;
/// tick() is the rising edge that ends it.
template <typename Top>
class Clocked {
 public:
  explicit Clocked(uint64_t seed) : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->fatalOnError(false);  // an assertion failure is reported and fails the check
    ctx_->randReset(2);         // registers without reset start random (--x-initial unique)
    ctx_->randSeed(static_cast<int>(seed % 1000003) + 1);
    top_ = std::make_unique<Top>(ctx_.get());
  }
  ~Clocked() { top_->final(); }

  Top& top() { return *top_; }

  void reset() {
    // A real falling edge on rst_ni, so the asynchronous resets act before the first clock edge.
    top_->clk_i = 0;
    top_->rst_ni = 1;
    top_->eval();
    top_->rst_ni = 0;
    top_->eval();
    for (int i = 0; i < 3; ++i) tick();
    top_->rst_ni = 1;
    settle();
  }
  void settle() {
    top_->clk_i = 0;
    top_->eval();
  }
  void tick() {
    top_->clk_i = 0;
    top_->eval();
    ctx_->timeInc(1);
    top_->clk_i = 1;
    top_->eval();
    ctx_->timeInc(1);
    ++cycle_;
  }
  uint64_t cycle() const { return cycle_; }
  /// True once an SVA assertion (or $error) fired.
  bool assertionFailed() const { return ctx_->gotError(); }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Top> top_;
  uint64_t cycle_ = 0;
};

/// Clocks a streaming check until it is done, one cycle per round: drive(c) sets cycle c's inputs,
/// settle(), observe(c) reads its outputs, tick(). Stops after a cycle in which an SVA assertion
/// fired, after one in which done(c) holds, or once c passes `timeout` (the first and the last
/// reported as failures). Returns true if done(c) ended it.
template <typename Top, typename Drive, typename Observe, typename Done>
bool clockUntil(Clocked<Top>& sim, Report& r, int64_t timeout, const std::string& timeoutMessage, Drive&& drive,
                Observe&& observe, Done&& done) {
  for (int64_t c = 0;; ++c) {
    drive(c);
    sim.settle();
    observe(c);
    sim.tick();
    if (sim.assertionFailed()) {
      r.fail("ASSERTION failed in the RTL (see above)");
      return false;
    }
    if (done(c)) return true;
    if (c > timeout) {
      r.fail(timeoutMessage);
      return false;
    }
  }
}

/// What every check class holds: the config's parameters, the clocked model and its top, the
/// report and the stimulus generator.
template <typename Top>
class Bench {
 public:
  Bench(const isa::IsaConfig& isa, Clocked<Top>& sim, Report& report, std::mt19937_64& rng)
      : p_(isa.params()), sim_(sim), t_(sim.top()), r_(report), rng_(rng) {}

 protected:
  const isa::Params& p_;
  Clocked<Top>& sim_;
  Top& t_;
  Report& r_;
  std::mt19937_64& rng_;
};

/// Picks from a list of edge values half the time and a uniform value otherwise.
template <typename T>
T edgeOrUniform(std::mt19937_64& rng, std::span<const T> edges, T lo, T hi) {
  if (!edges.empty() && (rng() & 1)) return edges[rng() % edges.size()];
  return static_cast<T>(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
}

inline int64_t uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

/// Runs a check body, turning exceptions (bad config path, ...) into exit code 2.
template <typename F>
int runCheck(const char* name, F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", name, e.what());
    return 2;
  }
}

/// One run of a check: its options, the config, the report, the seed and the model it drives.
template <typename Top>
struct Session {
  const Options& opt;
  const isa::IsaConfig& isa;
  Report& report;
  uint64_t seed;
  Clocked<Top>& sim;
  std::mt19937_64& rng;

  /// --cases if given, else the check's default.
  int cases(int byDefault) const { return opt.cases > 0 ? opt.cases : byDefault; }
  /// Prints the summary line, the seed first (so a failure can be replayed); the exit code.
  int finish(const std::string& counts) const { return report.finish("seed " + std::to_string(seed) + ": " + counts); }
};

/// A protocol violation a check can inject (--inject `name`): run() presents it, and an SVA
/// assertion must fire; `what` names it in the report.
template <typename Check>
struct Injection {
  const char* name = nullptr;  // nullptr: the check has none
  const char* what = nullptr;
  void (Check::*run)() = nullptr;
};

/// A check's main(): parses the command line, loads the config, seeds and resets the model,
/// builds the Check (a Bench) and, if the model's package matches the config, runs the injection
/// if --inject names it, else returns body(session, check).
template <typename Top, typename Check, typename Body>
int checkMain(int argc, char** argv, const std::string& name, const Injection<Check>& injection, Body&& body) {
  const std::string usage = name + "_check --config FILE.yaml [--set KEY=VALUE]... [--seed N] [--cases N]" +
                            (injection.name ? " [--inject " + std::string(injection.name) + "]" : "");
  const auto opt = parseOptions(argc, argv, usage.c_str());
  return runCheck(name.c_str(), [&] {
    const auto isa = isa::IsaConfig::load(opt.config, opt.overrides);
    Report report(name + "[" + isa.params().name + "]");
    const uint64_t seed = seedFor(opt, isa);
    Clocked<Top> sim(seed);
    sim.reset();
    std::mt19937_64 rng(seed);
    Check check(isa, sim, report, rng);
    if (!check.packageMatches()) return report.finish("package does not match the config");
    if (injection.name && opt.inject == injection.name) {
      (check.*injection.run)();
      report.expect(!sim.assertionFailed(),
                    "ASSERTION failed in the RTL (see above) after an injected " + std::string(injection.what));
      return report.finish("protocol violation injected");
    }
    Session<Top> session{opt, isa, report, seed, sim, rng};
    return body(session, check);
  });
}

/// checkMain() for a check without an injection.
template <typename Top, typename Check, typename Body>
int checkMain(int argc, char** argv, const std::string& name, Body&& body) {
  return checkMain<Top, Check>(argc, argv, name, Injection<Check>{}, std::forward<Body>(body));
}

}  // namespace systole::rtlcheck
