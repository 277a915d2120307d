// Verilator check of rtl/int4_unpack.sv against dma_load_int4's unpacking, isa::arith::int4At (the
// one definition the simulator's DMA uses; docs/isa-semantics.md): lane k of a row is nibble k of
// its packed DRAM bytes, low nibble first, sign-extended to activation.bits, for k < bytes / lane
// bytes; 0 beyond. Random descriptors (1..6 rows of 1..all lanes, bytes of random and edge values) stream
// in as DRAM beats of dram.bytes_per_cycle bytes, the bytes past a row's packed length in its last
// beat random (they must be ignored), sometimes with idle cycles between beats. Every row must equal
// the reference bit for bit, and each descriptor's cycles from its first beat in to its last row out,
// plus dram.latency (before the first beat, outside the unpacker), must equal dma.load.w4's YAML
// timing expression, plus one per idle cycle. A config without dma_load_int4 has nothing to check:
// the check says so and passes. (A row of 0 bytes moves no beat; the DMA zero-fills it without the
// unpacker.)
#include <string>
#include <vector>

#include "Vtb_int4_unpack.h"
#include "row_stream.h"
#include "systole/isa/arith.h"

namespace {

using namespace systole;
using namespace systole::rtlcheck;
using Tb = Vtb_int4_unpack;

struct Descriptor {
  int64_t rows = 0, bytes = 0;
  std::vector<std::vector<uint8_t>> packed;  // per row: its beats' bytes (beats x BW, garbage past the row)
  std::vector<int> idle;                     // idle cycles before beat i of the descriptor (idle[0]: before it)
};

class UnpackCheck : Bench<Tb> {
 public:
  UnpackCheck(const isa::IsaConfig& isa, Clocked<Tb>& sim, Report& report, std::mt19937_64& rng)
      : Bench(isa, sim, report, rng),
        timing_(isa, isa::Semantics::DmaLoadInt4),
        E_(p_.spad_row_bytes),
        BW_(p_.dram_bytes_per_cycle),
        LB_(p_.act_bits / 8) {}

  bool packageMatches() {
    sim_.settle();
    bool ok = samePackage(r_, "SCRATCHPAD_ROW_BYTES", t_.pkg_row_bytes_o, p_.spad_row_bytes);
    ok &= samePackage(r_, "DRAM_BYTES_PER_CYCLE", t_.pkg_dram_bytes_per_cycle_o, p_.dram_bytes_per_cycle);
    ok &= samePackage(r_, "ACTIVATION_BITS", t_.pkg_act_bits_o, p_.act_bits);
    return ok;
  }
  bool present() const { return timing_.present(); }

  int64_t beatsOf(int64_t bytes) const { return ((bytes / LB_ + 1) / 2 + BW_ - 1) / BW_; }

  Descriptor randomDescriptor() {
    Descriptor d;
    d.rows = uniform(rng_, 1, 6);
    d.bytes = LB_ * (rng_() % 4 == 0 ? E_ / LB_ : uniform(rng_, 1, E_ / LB_));  // whole lanes
    static constexpr uint8_t kEdges[] = {0x00, 0xFF, 0x88, 0x77, 0x80, 0x08, 0x7F, 0xF7};
    for (int64_t r = 0; r < d.rows; ++r) {
      std::vector<uint8_t> row(static_cast<size_t>(beatsOf(d.bytes) * BW_));
      for (uint8_t& b : row) b = rng_() % 3 == 0 ? kEdges[rng_() % std::size(kEdges)] : static_cast<uint8_t>(rng_());
      d.packed.push_back(std::move(row));
    }
    const bool stall = rng_() % 4 == 0;
    d.idle.assign(static_cast<size_t>(d.rows * beatsOf(d.bytes)), 0);
    d.idle[0] = rng_() % 2 == 0 ? 0 : static_cast<int>(uniform(rng_, 1, 4));
    for (size_t i = 1; i < d.idle.size(); ++i) d.idle[i] = stall && rng_() % 3 == 0 ? static_cast<int>(rng_() % 3) : 0;
    return d;
  }

  /// Streams the descriptors' beats into the unpacker and checks every row out.
  void run(const std::vector<Descriptor>& ds) {
    std::vector<size_t> beats;
    for (const auto& d : ds) beats.push_back(static_cast<size_t>(d.rows * beatsOf(d.bytes)));
    RowFeeder feed(beats, [&](size_t item, size_t beat) { return ds[item].idle[beat]; });
    size_t desc = 0, row = 0;  // the next row expected out
    clockUntil(
        sim_, r_, static_cast<int64_t>(ds.size()) * 64 * (beatsOf(E_) + 4) + 100, "TIMEOUT waiting for a row",
        [&](int64_t c) {
          for (int64_t i = 0; i < BW_; ++i) putBits(t_.beat_i, static_cast<int>(8 * i), 8, rng_());
          const auto in = feed.step(c);
          t_.beat_valid_i = in.has_value();
          t_.beat_last_i = rng_() & 1;  // garbage on idle cycles
          if (!in) return;
          const Descriptor& d = ds[in->item];
          const int64_t perRow = beatsOf(d.bytes), r = static_cast<int64_t>(in->row) / perRow,
                        b = static_cast<int64_t>(in->row) % perRow;
          for (int64_t i = 0; i < BW_; ++i)
            putBits(t_.beat_i, static_cast<int>(8 * i), 8,
                    d.packed[static_cast<size_t>(r)][static_cast<size_t>(b * BW_ + i)]);
          t_.beat_last_i = b == perRow - 1;
          t_.row_bytes_i = static_cast<uint32_t>(d.bytes);
        },
        [&](int64_t c) {
          if (!t_.out_valid_o) return;
          if (desc >= ds.size()) {
            r_.fail("a row out with no row in flight");
            return;
          }
          compareRow(ds[desc], row);
          if (++row == static_cast<size_t>(ds[desc].rows)) {
            checkTiming(ds[desc], feed.since(desc, c), feed.idleWithin(desc));
            row = 0;
            ++desc;
          }
        },
        [&](int64_t) { return desc >= ds.size() && feed.finished(); });
    t_.beat_valid_i = 0;
  }

  int64_t rows() const { return rows_; }
  int64_t stalled() const { return stalled_; }
  int64_t multiBeatRows() const { return multiBeat_; }

 private:
  void compareRow(const Descriptor& d, size_t r) {
    ++rows_;
    if (beatsOf(d.bytes) > 1) ++multiBeat_;
    const int bits = static_cast<int>(8 * LB_);
    for (int64_t k = 0; k < E_ / LB_; ++k) {
      const int64_t want = k < d.bytes / LB_ ? isa::arith::int4At(d.packed[r].data(), k) : 0;
      const uint64_t raw = getBits(t_.row_o, static_cast<int>(k) * bits, bits);
      const int64_t got = static_cast<int64_t>(raw << (64 - bits)) >> (64 - bits);
      if (got != want) {
        r_.fail("DATA MISMATCH dma_load_int4 bytes=" + std::to_string(d.bytes) + " row " + std::to_string(r) +
                ": lane " + std::to_string(k) + " model " + std::to_string(want) + ", RTL " + std::to_string(got));
        return;
      }
    }
    r_.pass();
  }

  void checkTiming(const Descriptor& d, int64_t cycles, int64_t idle) {
    const std::vector<std::pair<const char*, int64_t>> ops = {{timing_.operandName(2), d.rows},
                                                              {timing_.operandName(3), d.bytes}};
    if (idle == 0) {
      timing_.check(r_, ops, cycles + p_.dram_latency);
    } else {
      ++stalled_;
      timing_.checkStalled(r_, ops, cycles + p_.dram_latency, idle, "idle cycles", "idle cycles");
    }
  }

  Timing timing_;
  int64_t E_, BW_, LB_;  // row bytes, DRAM beat bytes, bytes per lane
  int64_t rows_ = 0, stalled_ = 0, multiBeat_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  return checkMain<Tb, UnpackCheck>(argc, argv, "int4_unpack", [](Session<Tb>& s, UnpackCheck& check) {
    if (!check.present()) return s.report.finish("the config has no dma_load_int4 instruction: nothing to check");
    const int batches = s.cases(1000);
    for (int b = 0; b < batches; ++b) {
      if (s.sim.assertionFailed()) break;  // reported once; the state is no longer meaningful
      std::vector<Descriptor> ds;
      const int count = 1 + static_cast<int>(s.rng() % 4);
      for (int i = 0; i < count; ++i) ds.push_back(check.randomDescriptor());
      check.run(ds);
    }
    return s.finish(std::to_string(check.rows()) + " rows of int4 weights compared (" +
                    std::to_string(check.multiBeatRows()) + " of more than one DRAM beat; " +
                    std::to_string(check.stalled()) + " descriptors with idle cycles between beats)");
  });
}
