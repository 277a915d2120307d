// Verilator check of rtl/weight_transposer.sv against a C++ reference of weight_preload_t's gather
// (docs/isa-semantics.md; written like the simulator's weightPreloadTransposed):
//   W[k][n] = spad[spad_row + n][k] for k < array.rows, n < array.cols,
// delivered as array.rows weight rows of a scratchpad row's width (elements n >= array.cols zero).
// A model scratchpad of random rows (random bytes, the int8 edges, or bytes that encode their row
// and column, so a misplaced element shows) is read from a random spad_row, one row per cycle as the
// read path delivers it; tiles follow each other back to back or with idle cycles, and some have
// idle cycles between their rows (a stalled read). Every tile must equal the reference bit for bit,
// and the cycles from its first row in to the tile out must equal weight_preload_t's YAML timing
// expression (`array.cols`), plus one per idle cycle inside the tile. A config without
// weight_preload_t has nothing to check: the check says so and passes.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "Vtb_weight_transposer.h"
#include "rtl_check.h"

namespace {

using namespace systole;
using rtlcheck::Clocked;
using rtlcheck::getBits;
using rtlcheck::putBits;
using rtlcheck::Report;
using rtlcheck::Timing;
using rtlcheck::uniform;
using Tb = Vtb_weight_transposer;
using Rows = std::vector<std::vector<int8_t>>;

/// The gather: array.rows rows of max(lanes, array.cols) elements, as weight_preload receives them.
Rows gather(const Rows& spad, int64_t spadRow, int64_t R, int64_t N) {
  const int64_t lanes = static_cast<int64_t>(spad[0].size());
  Rows w(static_cast<size_t>(R), std::vector<int8_t>(static_cast<size_t>(std::max(lanes, N)), 0));
  for (int64_t k = 0; k < std::min(R, lanes); ++k)
    for (int64_t n = 0; n < N; ++n)
      w[static_cast<size_t>(k)][static_cast<size_t>(n)] =
          spad[static_cast<size_t>(spadRow + n)][static_cast<size_t>(k)];
  return w;
}

struct Tile {
  int64_t spadRow = 0;
  std::vector<int> bubbles;  // idle cycles before row n (bubbles[0] = 0: the tile starts with its row)
  int64_t gapBefore = 0;     // idle cycles before the tile
};

class TransposerCheck {
 public:
  TransposerCheck(const isa::IsaConfig& isa, Clocked<Tb>& sim, Report& report, std::mt19937_64& rng)
      : p_(isa.params()),
        sim_(sim),
        t_(sim.top()),
        r_(report),
        rng_(rng),
        timing_(isa, isa::Semantics::WeightPreloadT),
        R_(p_.array_rows),
        N_(p_.array_cols),
        E_(p_.spad_row_bytes) {}

  bool packageMatches() {
    sim_.settle();
    bool ok = rtlcheck::samePackage(r_, "ARRAY_ROWS", t_.pkg_array_rows_o, p_.array_rows);
    ok &= rtlcheck::samePackage(r_, "ARRAY_COLS", t_.pkg_array_cols_o, p_.array_cols);
    ok &= rtlcheck::samePackage(r_, "SCRATCHPAD_ROW_BYTES", t_.pkg_row_bytes_o, p_.spad_row_bytes);
    return ok;
  }
  bool present() const { return timing_.present(); }

  /// A model scratchpad window of random rows; spad_row is drawn within it.
  void fillScratchpad() {
    const int64_t rows = std::min<int64_t>(p_.spad_rows, 4 * N_);
    const int mode = static_cast<int>(rng_() % 4);
    spad_.assign(static_cast<size_t>(rows), std::vector<int8_t>(static_cast<size_t>(E_)));
    static constexpr std::array<int8_t, 5> kEdges = {-128, 127, 0, -1, 1};
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t k = 0; k < E_; ++k) {
        int8_t& b = spad_[static_cast<size_t>(i)][static_cast<size_t>(k)];
        if (mode == 0)
          b = kEdges[rng_() % kEdges.size()];
        else if (mode == 1)
          b = static_cast<int8_t>(i * 16 + k);  // row and column in the byte (unique on small tiles)
        else
          b = static_cast<int8_t>(rng_());
      }
  }

  Tile randomTile() {
    Tile t;
    const int64_t rowMax = std::min<int64_t>(fieldLimit(), static_cast<int64_t>(spad_.size()) - N_);
    t.spadRow = uniform(rng_, 0, rowMax);
    t.bubbles.assign(static_cast<size_t>(N_), 0);
    if (rng_() % 4 == 0)
      for (size_t n = 1; n < t.bubbles.size(); ++n) t.bubbles[n] = rng_() % 3 == 0 ? static_cast<int>(rng_() % 3) : 0;
    t.gapBefore = rng_() % 2 == 0 ? 0 : uniform(rng_, 1, N_ + 2);
    return t;
  }

  /// Streams the tiles' rows into the transposer and checks each tile out.
  void run(const std::vector<Tile>& tiles) {
    size_t tile = 0, row = 0, checked = 0;
    int64_t idle = tiles.empty() ? 0 : tiles[0].gapBefore;
    std::vector<int64_t> firstIns(tiles.size(), -1), bubbleCounts(tiles.size(), 0);
    for (int64_t c = 0;; ++c) {
      // Idle cycles carry garbage: only in_valid_i may make the transposer take a row.
      for (int64_t k = 0; k < E_; ++k) putBits(t_.in_row_i, static_cast<int>(8 * k), 8, rng_());
      bool valid = false;
      if (tile < tiles.size() && idle == 0) {
        const Tile& t = tiles[tile];
        if (row == 0) firstIns[tile] = c;
        const auto& src = spad_[static_cast<size_t>(t.spadRow + static_cast<int64_t>(row))];
        for (int64_t k = 0; k < E_; ++k)
          putBits(t_.in_row_i, static_cast<int>(8 * k), 8, static_cast<uint8_t>(src[static_cast<size_t>(k)]));
        valid = true;
        if (++row == static_cast<size_t>(N_)) {
          row = 0;
          if (++tile < tiles.size()) idle = tiles[tile].gapBefore;
        } else {
          idle = t.bubbles[row];
          bubbleCounts[tile] += idle;
        }
      } else if (idle > 0) {
        --idle;
      }
      t_.in_valid_i = valid;
      sim_.settle();
      if (t_.out_valid_o) {
        if (checked >= tiles.size() || firstIns[checked] < 0)
          r_.fail("a tile out with no tile in flight");
        else
          compareTile(tiles[checked], c - firstIns[checked] + 1, bubbleCounts[checked]);
        ++checked;
      }
      sim_.tick();
      if (sim_.assertionFailed()) {
        r_.fail("ASSERTION failed in the RTL (see above)");
        break;
      }
      if (checked >= tiles.size() && tile == tiles.size()) break;
      if (c > static_cast<int64_t>(tiles.size()) * 4 * (N_ + 8) + 100) {
        r_.fail("TIMEOUT waiting for a tile");
        break;
      }
    }
    t_.in_valid_i = 0;
  }

  int64_t tiles() const { return tiles_; }
  int64_t stalled() const { return stalled_; }

 private:
  int64_t fieldLimit() const {
    const auto& d = timing_.desc();
    return d.fields[static_cast<size_t>(d.operand_field[0])].limit();
  }

  void compareTile(const Tile& t, int64_t cycles, int64_t bubbles) {
    ++tiles_;
    const Rows want = gather(spad_, t.spadRow, R_, N_);
    bool same = true;
    for (int64_t k = 0; k < R_ && same; ++k)
      for (int64_t n = 0; n < E_ && same; ++n) {
        const auto got = static_cast<int8_t>(getBits(t_.out_rows_o, static_cast<int>(8 * (k * E_ + n)), 8));
        const int8_t exp = want[static_cast<size_t>(k)][static_cast<size_t>(n)];
        if (got != exp) {
          same = false;
          r_.fail("DATA MISMATCH weight_preload_t spad_row=" + std::to_string(t.spadRow) + ": W[" + std::to_string(k) +
                  "][" + std::to_string(n) + "] model " + std::to_string(exp) +
                  (n < N_ ? " (spad[" + std::to_string(t.spadRow + n) + "][" + std::to_string(k) + "])" : "") +
                  ", RTL " + std::to_string(got));
        }
      }
    if (same) r_.pass();

    const std::vector<std::pair<const char*, int64_t>> ops = {
        {timing_.desc().fields[static_cast<size_t>(timing_.desc().operand_field[0])].name.c_str(), t.spadRow}};
    if (bubbles == 0) {
      timing_.check(r_, ops, cycles);
    } else {
      ++stalled_;
      const int64_t expected = timing_.eval(ops) + bubbles;
      r_.expect(cycles == expected, "TIMING MISMATCH with idle cycles " + timing_.describe(ops) +
                                        ": the expression + " + std::to_string(bubbles) + " idle cycles gives " +
                                        std::to_string(expected) + ", the RTL took " + std::to_string(cycles));
    }
  }

  const isa::Params& p_;
  Clocked<Tb>& sim_;
  Tb& t_;
  Report& r_;
  std::mt19937_64& rng_;
  Timing timing_;
  int64_t R_, N_, E_;
  Rows spad_;
  int64_t tiles_ = 0, stalled_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const auto opt =
      rtlcheck::parseOptions(argc, argv, "weight_transposer_check --config FILE.yaml [--seed N] [--cases N]");
  return rtlcheck::runCheck("weight_transposer", [&] {
    const auto isa = isa::IsaConfig::load(opt.config);
    Report report("weight_transposer[" + isa.params().name + "]");
    const uint64_t seed = rtlcheck::seedFor(opt, isa);
    Clocked<Tb> sim(seed);
    sim.reset();
    std::mt19937_64 rng(seed);
    TransposerCheck check(isa, sim, report, rng);
    if (!check.packageMatches()) return report.finish("package does not match the config");
    if (!check.present()) return report.finish("the config has no weight_preload_t instruction: nothing to check");

    const int batches = opt.cases > 0 ? opt.cases : 1000;
    for (int b = 0; b < batches; ++b) {
      if (sim.assertionFailed()) break;  // reported once; the state is no longer meaningful
      check.fillScratchpad();
      std::vector<Tile> tiles;
      const int count = 1 + static_cast<int>(rng() % 6);
      for (int i = 0; i < count; ++i) tiles.push_back(check.randomTile());
      check.run(tiles);
    }
    return report.finish("seed " + std::to_string(seed) + ": " + std::to_string(check.tiles()) + " tiles of " +
                         std::to_string(isa.params().array_rows) + " x " + std::to_string(isa.params().array_cols) +
                         " compared (" + std::to_string(check.stalled()) + " with idle cycles between rows)");
  });
}
