// Verilator check of rtl/dma_addr_gen.sv against a C++ reference address generator. For each
// random descriptor of one of the config's DMA instructions (dma_load, dma_load_2d, dma_store and
// the _acc forms of load and store, operands within the YAML field limits and the memories), the
// RTL's beats must equal the reference's exactly - burst address and length, beat address and
// size, first/last flags, on-chip bank, row in bank and byte offset - and the cycles from accepting
// the descriptor to the last beat's completion must equal both the reference model's count and the
// instruction's YAML timing expression (`dram.latency + rows * ceil_div(bytes,
// dram.bytes_per_cycle)`; dma_load_2d's has `runs * rows`). Runs with random back-pressure on the
// beat channel check the same beats and that each stalled cycle costs one.
//
// The reference, written independently of the RTL's incremental counters (one-run instructions
// have runs = 1):
//   for each run r and row i of it (k = r*rows + i): DRAM row address base + r*run_stride +
//   i*stride, on-chip row row + k in bank (row+k) mod banks
//     split the row from its first byte into bursts of dma.burst_bytes (the last one shorter)
//       each burst of len bytes is ceil(len / dram.bytes_per_cycle) beats of bytes_per_cycle
//   cycles = dram.latency + number of beats (one beat per cycle, each completing dram.latency
//   cycles after it was issued). An empty descriptor (runs, rows or bytes 0) issues nothing and
//   ends in its accept cycle; the YAML charges dram.latency for it, so it is checked separately.
#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "Vtb_dma_addr_gen.h"
#include "rtl_check.h"

namespace {

using namespace systole;
using namespace systole::rtlcheck;
using Tb = Vtb_dma_addr_gen;

struct Desc {
  const Timing* timing = nullptr;
  bool acc = false;
  bool bcastForm = false;  // dma_load, dma_load_acc: the instructions with a broadcast form
  int64_t addr = 0, row = 0, rows = 0, bytes = 0, stride = 0;
  int64_t runs = 1, runStride = 0;  // dma_load_2d; 1 and unused for the others
};

struct Beat {
  uint64_t addr = 0;
  int64_t bytes = 0;
  bool first = false, last = false, descLast = false;
  uint64_t burstAddr = 0;
  int64_t burstLen = 0;
  int64_t bank = 0, bankRow = 0, offset = 0;
  bool operator==(const Beat&) const = default;
};

std::string str(const Beat& b) {
  return "{addr=" + std::to_string(b.addr) + " bytes=" + std::to_string(b.bytes) +
         " burst=" + std::to_string(b.burstAddr) + "+" + std::to_string(b.burstLen) + (b.first ? " first" : "") +
         (b.last ? " last" : "") + (b.descLast ? " desc_last" : "") + " bank=" + std::to_string(b.bank) +
         " bank_row=" + std::to_string(b.bankRow) + " offset=" + std::to_string(b.offset) + "}";
}

/// An on-chip row a broadcast writes row 0's data to.
struct Copy {
  int64_t bank = 0, bankRow = 0;
  bool operator==(const Copy&) const = default;
};

struct RefRun {
  std::vector<Beat> beats;
  std::vector<Copy> copies;
  int64_t cycles = 0;
};

/// dma.broadcast: a dma_load or dma_load_acc of more than one row with stride 0 reads row 0 only
/// and then writes it to the other rows, one per cycle (dma_load_2d has no broadcast form).
bool broadcast(const Desc& d, const isa::Params& p) {
  return p.dma_broadcast && d.bcastForm && d.stride == 0 && d.rows > 1;
}

RefRun reference(const Desc& d, const isa::Params& p) {
  RefRun out;
  const int64_t banks = d.acc ? p.acc_banks : p.spad_banks;
  const int64_t burst = p.dma_burst_bytes, bpc = p.dram_bytes_per_cycle;
  const bool bcast = broadcast(d, p);
  const int64_t dramRows = bcast ? 1 : d.rows;
  for (int64_t k = 0; k < d.runs * dramRows; ++k) {  // row i of run r
    const int64_t r = k / dramRows, i = k % dramRows;
    const uint64_t rowAddr = static_cast<uint64_t>(d.addr + r * d.runStride + i * d.stride);
    const int64_t onChip = d.row + k;
    for (int64_t off = 0; off < d.bytes; off += burst) {
      const int64_t len = std::min(burst, d.bytes - off);
      for (int64_t b = 0; b < len; b += bpc) {
        Beat beat;
        beat.addr = rowAddr + static_cast<uint64_t>(off + b);
        beat.bytes = std::min(bpc, len - b);
        beat.first = b == 0;
        beat.last = b + bpc >= len;
        beat.descLast = r == d.runs - 1 && i == dramRows - 1 && off + len == d.bytes && beat.last;
        beat.burstAddr = rowAddr + static_cast<uint64_t>(off);
        beat.burstLen = len;
        beat.bank = onChip % banks;
        beat.bankRow = onChip / banks;
        beat.offset = off + b;
        out.beats.push_back(beat);
      }
    }
  }
  if (bcast && d.bytes > 0)
    for (int64_t i = 1; i < d.rows; ++i) out.copies.push_back({(d.row + i) % banks, (d.row + i) / banks});
  out.cycles = out.beats.empty() ? 1 : p.dram_latency + static_cast<int64_t>(out.beats.size() + out.copies.size());
  return out;
}

struct RtlRun {
  bool ok = true;
  std::vector<Beat> beats;
  std::vector<Copy> copies;
  int64_t cycles = 0;  // accept cycle .. done cycle, inclusive
  int64_t stalls = 0;  // cycles a beat waited for beat_ready_i
};

class DmaCheck : Bench<Tb> {
 public:
  DmaCheck(const isa::IsaConfig& isa, Clocked<Tb>& sim, Report& report, std::mt19937_64& rng)
      : Bench(isa, sim, report, rng) {
    for (auto s : {isa::Semantics::DmaLoad, isa::Semantics::DmaLoad2d, isa::Semantics::DmaStore,
                   isa::Semantics::DmaLoadAcc, isa::Semantics::DmaStoreAcc}) {
      Timing t(isa, s);
      if (t.present()) timings_.push_back(t);
    }
  }

  bool packageMatches() {
    sim_.settle();
    bool ok = samePackage(r_, "DMA_BURST_BYTES", t_.pkg_burst_bytes_o, p_.dma_burst_bytes);
    ok &= samePackage(r_, "DRAM_BYTES_PER_CYCLE", t_.pkg_bytes_per_cycle_o, p_.dram_bytes_per_cycle);
    ok &= samePackage(r_, "DRAM_LATENCY", t_.pkg_dram_latency_o, p_.dram_latency);
    ok &= samePackage(r_, "SCRATCHPAD_BANKS", t_.pkg_spad_banks_o, p_.spad_banks);
    ok &= samePackage(r_, "ACCUMULATOR_BANKS", t_.pkg_acc_banks_o, p_.acc_banks);
    ok &= samePackage(r_, "DMA_BROADCAST", t_.pkg_broadcast_o, p_.dma_broadcast);
    int aw = 0;
    while ((int64_t{1} << aw) < p_.dram_size) ++aw;
    ok &= samePackage(r_, "the DRAM address width", t_.pkg_addr_bits_o, aw);
    addrMask_ = (uint64_t{1} << aw) - 1;
    if (timings_.empty()) {
      r_.fail("the config has no DMA instruction");
      ok = false;
    }
    return ok;
  }

  Desc randomDesc(bool empty) {
    Desc d;
    d.timing = &timings_[rng_() % timings_.size()];
    const auto& id = d.timing->desc();
    d.acc = id.semantics == isa::Semantics::DmaLoadAcc || id.semantics == isa::Semantics::DmaStoreAcc;
    d.bcastForm = id.semantics == isa::Semantics::DmaLoad || id.semantics == isa::Semantics::DmaLoadAcc;
    const bool twoD = id.semantics == isa::Semantics::DmaLoad2d;
    auto lim = [&](int k) { return d.timing->operandLimit(k); };
    const int64_t memRows = d.acc ? p_.acc_rows : p_.spad_rows;
    const int64_t banks = d.acc ? p_.acc_banks : p_.spad_banks;
    const int64_t rowBytes = d.acc ? p_.acc_row_bytes : p_.spad_row_bytes;
    const int64_t bpc = p_.dram_bytes_per_cycle, burst = p_.dma_burst_bytes;
    auto pick = [&](std::initializer_list<int64_t> edges, int64_t lo, int64_t hi) {
      int64_t v = (rng_() & 1) ? edges.begin()[rng_() % edges.size()] : uniform(rng_, lo, hi);
      return std::clamp(v, lo, hi);
    };

    const int64_t bytesMax = std::min(lim(3), rowBytes);
    d.bytes = pick({1, bpc - 1, bpc, bpc + 1, 2 * bpc, bytesMax - 1, bytesMax, burst, burst + 1, 4}, 1, bytesMax);
    if (d.acc) d.bytes = std::max<int64_t>(4, d.bytes / 4 * 4);
    if (twoD) {
      const int64_t runsMax = std::min(lim(5), memRows);
      d.runs = (rng_() % 8 == 0) ? uniform(rng_, 1, std::min<int64_t>(runsMax, 32))
                                 : pick({1, 2, 3, banks, banks + 1}, 1, std::min<int64_t>(runsMax, 8));
    }
    const int64_t rowsMax = std::min(lim(2), memRows / d.runs);
    d.rows = (rng_() % 8 == 0) ? uniform(rng_, 1, std::min<int64_t>(rowsMax, 300))
                               : pick({1, 2, banks, banks + 1, 2 * banks + 1}, 1, std::min<int64_t>(rowsMax, 16));
    const int64_t rowMax = std::min(lim(1), memRows - d.runs * d.rows);
    d.row = pick({0, banks - 1, rowMax - 1, rowMax}, 0, rowMax);
    const int64_t strideMax = lim(4);
    d.stride =
        pick({0, 1, d.bytes - 1, d.bytes, d.bytes + 1, burst, burst * banks, 3 * bpc, 4096, strideMax}, 0, strideMax);
    if (d.rows > 1 && (d.rows - 1) * d.stride + d.bytes > p_.dram_size)
      d.stride = (p_.dram_size - d.bytes) / (d.rows - 1);
    const int64_t runSpan = (d.rows - 1) * d.stride + d.bytes;  // DRAM bytes from a run's first row to its end
    if (twoD) {
      const int64_t runStrideMax = lim(6);
      d.runStride = pick({0, 1, d.bytes, d.stride, d.rows * d.stride, d.rows * d.stride + 1, burst, 4096, runStrideMax},
                         0, runStrideMax);
      if (d.runs > 1 && (d.runs - 1) * d.runStride + runSpan > p_.dram_size)
        d.runStride = (p_.dram_size - runSpan) / (d.runs - 1);
    }
    const int64_t span = (d.runs - 1) * d.runStride + runSpan;
    const int64_t addrMax = std::min(lim(0), p_.dram_size - span);
    d.addr = pick({0, 1, bpc - 1, burst - 1, addrMax - 1, addrMax}, 0, addrMax);
    if (empty) {
      switch (rng_() % (twoD ? 3 : 2)) {
        case 0: d.rows = 0; break;
        case 1: d.bytes = 0; break;
        default: d.runs = 0; break;
      }
    }
    return d;
  }

  RtlRun run(const Desc& d, bool stall) {
    RtlRun res;
    sim_.settle();
    if (!r_.expect(t_.desc_ready_o, "desc_ready_o low while idle")) {
      res.ok = false;
      return res;
    }
    bool done = false;
    res.ok = clockUntil(
        sim_, r_, 1000000, "TIMEOUT: descriptor not done",
        [&](int64_t c) {
          const bool first = c == 0;
          t_.desc_valid_i = first;
          t_.desc_acc_i = first ? d.acc : (rng_() & 1);
          t_.desc_bcast_i = first ? d.bcastForm : (rng_() & 1);
          t_.desc_addr_i = static_cast<uint32_t>((first ? static_cast<uint64_t>(d.addr) : rng_()) & addrMask_);
          t_.desc_stride_i = static_cast<uint32_t>((first ? static_cast<uint64_t>(d.stride) : rng_()) & addrMask_);
          t_.desc_run_stride_i =
              static_cast<uint32_t>((first ? static_cast<uint64_t>(d.runStride) : rng_()) & addrMask_);
          rtlcheck::set(t_.desc_rows_i, first ? d.rows : static_cast<int64_t>(rng_() & 0xff));
          rtlcheck::set(t_.desc_runs_i, first ? d.runs : static_cast<int64_t>(rng_() & 0xff));
          rtlcheck::set(t_.desc_bytes_i, first ? d.bytes : static_cast<int64_t>(rng_() & 0x3));
          rtlcheck::set(t_.desc_row_i, first ? d.row : 0);
          t_.beat_ready_i = stall ? (rng_() % 10 < 6) : 1;
        },
        [&](int64_t) {
          if (t_.beat_valid_o) {
            if (t_.beat_ready_i) {
              res.beats.push_back({.addr = t_.beat_addr_o,
                                   .bytes = t_.beat_bytes_o,
                                   .first = t_.beat_first_o != 0,
                                   .last = t_.beat_last_o != 0,
                                   .descLast = t_.beat_desc_last_o != 0,
                                   .burstAddr = t_.burst_addr_o,
                                   .burstLen = t_.burst_len_o,
                                   .bank = t_.beat_bank_o,
                                   .bankRow = t_.beat_bank_row_o,
                                   .offset = t_.beat_offset_o});
            } else {
              ++res.stalls;
            }
          }
          if (t_.copy_valid_o) res.copies.push_back({t_.copy_bank_o, t_.copy_bank_row_o});
          done = t_.done_o;
        },
        [&](int64_t c) {
          if (done) res.cycles = c + 1;
          return done;
        });
    t_.desc_valid_i = 0;
    return res;
  }

  void check(const Desc& d, bool stall) {
    const RefRun ref = reference(d, p_);
    const RtlRun rtl = run(d, stall);
    if (!rtl.ok) return;
    const auto& id = d.timing->desc();
    ++descs_;
    ++byInstr_[id.name];
    beats_ += static_cast<int64_t>(ref.beats.size());
    auto name = [&](int k) { return d.timing->operandName(k); };
    const std::array<int64_t, 7> values = {d.addr,   d.row,  d.rows,     d.bytes,
                                           d.stride, d.runs, d.runStride};  // semantics order
    std::vector<std::pair<const char*, int64_t>> ops;
    for (int k = 0; k < isa::semanticsInfo(id.semantics).operandCount(); ++k)
      ops.emplace_back(name(k), values[static_cast<size_t>(k)]);
    const std::string where = id.name + " " + [&] {
      std::string s;
      for (const auto& [n, v] : ops) s += std::string(s.empty() ? "" : ", ") + n + "=" + std::to_string(v);
      return s;
    }();

    // The beats, one by one.
    const size_t n = std::max(ref.beats.size(), rtl.beats.size());
    bool same = true;
    for (size_t i = 0; i < n && same; ++i) {
      if (i >= ref.beats.size() || i >= rtl.beats.size() || !(ref.beats[i] == rtl.beats[i])) {
        same = false;
        r_.fail("BEAT MISMATCH " + where + ": beat " + std::to_string(i) + " of " + std::to_string(ref.beats.size()) +
                ": model " + (i < ref.beats.size() ? str(ref.beats[i]) : "(none)") + ", RTL " +
                (i < rtl.beats.size() ? str(rtl.beats[i]) : "(none)"));
      }
    }
    if (same && ref.copies != rtl.copies) {
      same = false;
      r_.fail("BROADCAST MISMATCH " + where + ": the model writes " + std::to_string(ref.copies.size()) +
              " copies of row 0, the RTL " + std::to_string(rtl.copies.size()) +
              (ref.copies.size() == rtl.copies.size() ? " (to other rows)" : ""));
    }
    if (same) r_.pass();

    if (ref.beats.empty()) {
      ++empty_;
      r_.expect(rtl.cycles == 1, "an empty descriptor (" + where + ") took " + std::to_string(rtl.cycles) +
                                     " cycles, expected to finish in its accept cycle");
    } else if (!stall) {
      d.timing->check(r_, ops, rtl.cycles, ref.cycles);
    } else {
      ++stalled_;
      d.timing->checkStalled(r_, ops, rtl.cycles, rtl.stalls, "back-pressure", "stall cycles");
    }
  }

  /// Presents a descriptor whose rows are wider than a scratchpad row (an assertion must fire).
  void injectBadDescriptor() {
    Desc d;
    d.acc = false;
    d.rows = 1;
    d.bytes = p_.spad_row_bytes + 1;
    t_.desc_valid_i = 1;
    t_.desc_acc_i = 0;
    t_.desc_bcast_i = 0;
    t_.desc_addr_i = 0;
    t_.desc_stride_i = 0;
    t_.desc_rows_i = 1;
    t_.desc_runs_i = 1;
    t_.desc_run_stride_i = 0;
    rtlcheck::set(t_.desc_bytes_i, d.bytes);
    t_.desc_row_i = 0;
    t_.beat_ready_i = 1;
    sim_.settle();
    sim_.tick();
    t_.desc_valid_i = 0;
    sim_.settle();
  }

  int64_t descs() const { return descs_; }
  /// "dma.load 1012, dma.load.acc 987, ...": how many descriptors of each instruction were checked.
  std::string byInstr() const {
    std::string s;
    for (const auto& [name, n] : byInstr_) s += (s.empty() ? "" : ", ") + name + " " + std::to_string(n);
    return s;
  }
  int64_t beats() const { return beats_; }
  int64_t empties() const { return empty_; }
  int64_t stalled() const { return stalled_; }

 private:
  std::vector<Timing> timings_;
  uint64_t addrMask_ = 0;
  int64_t descs_ = 0, beats_ = 0, empty_ = 0, stalled_ = 0;
  std::map<std::string, int64_t> byInstr_;
};

}  // namespace

int main(int argc, char** argv) {
  const Injection<DmaCheck> inject = {"bad-descriptor", "bad descriptor", &DmaCheck::injectBadDescriptor};
  return checkMain<Tb, DmaCheck>(argc, argv, "dma_addr_gen", inject, [](Session<Tb>& s, DmaCheck& check) {
    const int cases = s.cases(5000);
    for (int i = 0; i < cases; ++i) {
      if (s.sim.assertionFailed()) break;  // reported once; the state is no longer meaningful
      const bool empty = s.rng() % 40 == 0;
      const bool stall = s.rng() % 5 == 0;
      check.check(check.randomDesc(empty), stall);
    }
    return s.finish(std::to_string(check.descs()) + " descriptors (" + std::to_string(check.empties()) + " empty, " +
                    std::to_string(check.stalled()) + " with back-pressure; " + check.byInstr() + "), " +
                    std::to_string(check.beats()) + " beats compared");
  });
}
