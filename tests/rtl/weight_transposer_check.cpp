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
#include "row_stream.h"

namespace {

using namespace systole;
using namespace systole::rtlcheck;
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

class TransposerCheck : Bench<Tb> {
 public:
  TransposerCheck(const isa::IsaConfig& isa, Clocked<Tb>& sim, Report& report, std::mt19937_64& rng)
      : Bench(isa, sim, report, rng),
        timing_(isa, isa::Semantics::WeightPreloadT),
        R_(p_.array_rows),
        N_(p_.array_cols),
        E_(p_.spad_row_bytes) {}

  bool packageMatches() {
    sim_.settle();
    bool ok = samePackage(r_, "ARRAY_ROWS", t_.pkg_array_rows_o, p_.array_rows);
    ok &= samePackage(r_, "ARRAY_COLS", t_.pkg_array_cols_o, p_.array_cols);
    ok &= samePackage(r_, "SCRATCHPAD_ROW_BYTES", t_.pkg_row_bytes_o, p_.spad_row_bytes);
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
    const int64_t rowMax = std::min<int64_t>(timing_.operandLimit(0), static_cast<int64_t>(spad_.size()) - N_);
    t.spadRow = uniform(rng_, 0, rowMax);
    t.bubbles.assign(static_cast<size_t>(N_), 0);
    if (rng_() % 4 == 0)
      for (size_t n = 1; n < t.bubbles.size(); ++n) t.bubbles[n] = rng_() % 3 == 0 ? static_cast<int>(rng_() % 3) : 0;
    t.gapBefore = rng_() % 2 == 0 ? 0 : uniform(rng_, 1, N_ + 2);
    return t;
  }

  /// Streams the tiles' rows into the transposer and checks each tile out.
  void run(const std::vector<Tile>& tiles) {
    RowFeeder feed(std::vector<size_t>(tiles.size(), static_cast<size_t>(N_)), [&](size_t tile, size_t row) {
      return row == 0 ? tiles[tile].gapBefore : tiles[tile].bubbles[row];
    });
    size_t checked = 0;
    clockUntil(
        sim_, r_, static_cast<int64_t>(tiles.size()) * 4 * (N_ + 8) + 100, "TIMEOUT waiting for a tile",
        [&](int64_t c) {
          // Idle cycles carry garbage: only in_valid_i may make the transposer take a row.
          for (int64_t k = 0; k < E_; ++k) putBits(t_.in_row_i, static_cast<int>(8 * k), 8, rng_());
          const auto in = feed.step(c);
          if (in) {
            const auto& src = spad_[static_cast<size_t>(tiles[in->item].spadRow + static_cast<int64_t>(in->row))];
            for (int64_t k = 0; k < E_; ++k)
              putBits(t_.in_row_i, static_cast<int>(8 * k), 8, static_cast<uint8_t>(src[static_cast<size_t>(k)]));
          }
          t_.in_valid_i = in.has_value();
        },
        [&](int64_t c) {
          if (!t_.out_valid_o) return;
          if (checked >= tiles.size() || feed.firstIn(checked) < 0)
            r_.fail("a tile out with no tile in flight");
          else
            compareTile(tiles[checked], feed.since(checked, c), feed.idleWithin(checked));
          ++checked;
        },
        [&](int64_t) { return checked >= tiles.size() && feed.finished(); });
    t_.in_valid_i = 0;
  }

  int64_t tiles() const { return tiles_; }
  int64_t stalled() const { return stalled_; }

 private:
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

    const std::vector<std::pair<const char*, int64_t>> ops = {{timing_.operandName(0), t.spadRow}};
    if (bubbles == 0) {
      timing_.check(r_, ops, cycles);
    } else {
      ++stalled_;
      timing_.checkStalled(r_, ops, cycles, bubbles, "idle cycles", "idle cycles");
    }
  }

  Timing timing_;
  int64_t R_, N_, E_;
  Rows spad_;
  int64_t tiles_ = 0, stalled_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  return checkMain<Tb, TransposerCheck>(argc, argv, "weight_transposer", [](Session<Tb>& s, TransposerCheck& check) {
    if (!check.present()) return s.report.finish("the config has no weight_preload_t instruction: nothing to check");

    const int batches = s.cases(1000);
    for (int b = 0; b < batches; ++b) {
      if (s.sim.assertionFailed()) break;  // reported once; the state is no longer meaningful
      check.fillScratchpad();
      std::vector<Tile> tiles;
      const int count = 1 + static_cast<int>(s.rng() % 6);
      for (int i = 0; i < count; ++i) tiles.push_back(check.randomTile());
      check.run(tiles);
    }
    return s.finish(std::to_string(check.tiles()) + " tiles of " + std::to_string(s.isa.params().array_rows) + " x " +
                    std::to_string(s.isa.params().array_cols) + " compared (" + std::to_string(check.stalled()) +
                    " with idle cycles between rows)");
  });
}
