// Streaming items (instructions, tiles) of input rows into a Verilated block with an in_valid_i /
// out_valid_o handshake, one row per cycle with idle cycles where the stimulus asks for them: the
// input side (RowFeeder) and the whole drive/compare loop of a pipelined lane (LaneCheck).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rtl_check.h"

namespace systole::rtlcheck {

/// The input side of a stream: item i has rows[i] rows (at least one), presented in order, one per
/// cycle, with idleBefore(i, row) idle cycles before each. Records the cycle each item's first
/// row went in and the idle cycles between its first and its last row.
class RowFeeder {
 public:
  struct Slot {
    size_t item, row;
  };

  RowFeeder(std::vector<size_t> rows, std::function<int64_t(size_t item, size_t row)> idleBefore)
      : rows_(std::move(rows)),
        idleBefore_(std::move(idleBefore)),
        firstIn_(rows_.size(), -1),
        idleWithin_(rows_.size(), 0),
        idle_(rows_.empty() ? 0 : idleBefore_(0, 0)) {}

  /// Cycle c: the row that goes in, or nothing (an idle cycle).
  std::optional<Slot> step(int64_t c) {
    if (item_ < rows_.size() && idle_ == 0) {
      const Slot s{item_, row_};
      if (row_ == 0) firstIn_[item_] = c;
      if (++row_ == rows_[item_]) {
        row_ = 0;
        if (++item_ < rows_.size()) idle_ = idleBefore_(item_, 0);
      } else {
        idle_ = idleBefore_(item_, row_);
        idleWithin_[item_] += idle_;
      }
      return s;
    }
    if (idle_ > 0) --idle_;
    return std::nullopt;
  }

  /// Every row has gone in.
  bool finished() const { return item_ == rows_.size(); }
  /// The cycle item i's first row went in (-1: not yet).
  int64_t firstIn(size_t i) const { return firstIn_[i]; }
  /// The cycles from item i's first row in to cycle c, both counted.
  int64_t since(size_t i, int64_t c) const { return c - firstIn_[i] + 1; }
  /// The idle cycles between item i's rows.
  int64_t idleWithin(size_t i) const { return idleWithin_[i]; }

 private:
  std::vector<size_t> rows_;
  std::function<int64_t(size_t, size_t)> idleBefore_;
  std::vector<int64_t> firstIn_, idleWithin_;
  size_t item_ = 0, row_ = 0;
  int64_t idle_ = 0;
};

/// A check of a vector unit's pipelined lanes (VECTOR_LANES side by side, one accumulator row per
/// cycle) running instruction `semantics`: every input row becomes one output row, in order, a
/// fixed number of cycles later. Item: an instruction, with its input rows in a vector `x`. The check supplies, as
/// overrides, the inputs of one cycle - garbageInputs() (random values: only in_valid_i may make the lane care) and
/// putInputs(item, row) (the row going in, over the garbage) - and the comparisons: compareRow(item, row) for every row
/// out, and checkTiming(item, cycles) after an item's last row, with the cycles from its first row in to its last row
/// out.
template <typename Top, typename Item>
class LaneCheck : public Bench<Top> {
 public:
  LaneCheck(const isa::IsaConfig& isa, Clocked<Top>& sim, Report& report, std::mt19937_64& rng,
            isa::Semantics semantics)
      : Bench<Top>(isa, sim, report, rng), timing_(isa, semantics), L_(static_cast<int>(this->p_.vector_lanes)) {}

  /// The Verilated package's lane count and latency are the config's.
  bool packageMatches() {
    this->sim_.settle();
    bool ok = samePackage(this->r_, "VECTOR_LANES", this->t_.pkg_vector_lanes_o, this->p_.vector_lanes);
    ok &= samePackage(this->r_, "VECTOR_LATENCY", this->t_.pkg_vector_latency_o, this->p_.vector_latency);
    return ok;
  }

  /// packageMatches(), and the lane widths are the config's (for a top that exposes them).
  bool packageAndLaneBitsMatch() {
    bool ok = packageMatches();
    ok &= samePackage(this->r_, "ACTIVATION_BITS", this->t_.pkg_act_bits_o, this->p_.act_bits);
    ok &= samePackage(this->r_, "ACCUMULATOR_BITS", this->t_.pkg_acc_bits_o, this->p_.acc_bits);
    return ok;
  }

  /// Streams the items through the lane, gaps[i] idle cycles before items[i] (0 = back to back)
  /// and none between its rows. Stops when every row is out, at an assertion or at a timeout
  /// (both reported).
  void run(const std::vector<Item>& items, const std::vector<int>& gaps) {
    Top& t = this->t_;
    std::vector<size_t> rows;
    for (const Item& it : items) rows.push_back(it.x.size());
    RowFeeder feed(std::move(rows), [&](size_t item, size_t row) { return row == 0 ? gaps[item] : 0; });
    std::deque<RowFeeder::Slot> inFlight;
    clockUntil(
        this->sim_, this->r_, static_cast<int64_t>(items.size()) * 200 + 1000, "TIMEOUT waiting for output rows",
        [&](int64_t c) {
          garbageInputs();
          const auto in = feed.step(c);
          if (in) {
            putInputs(items[in->item], in->row);
            inFlight.push_back(*in);
          }
          t.in_valid_i = in.has_value();
        },
        [&](int64_t c) {
          if (!t.out_valid_o) return;
          if (inFlight.empty()) {
            this->r_.fail("output row with no row in flight");
            return;
          }
          const RowFeeder::Slot out = inFlight.front();
          inFlight.pop_front();
          const Item& it = items[out.item];
          ++rows_;
          compareRow(it, out.row);
          if (out.row + 1 == it.x.size()) {
            ++items_;
            checkTiming(it, feed.since(out.item, c));
          }
        },
        [&](int64_t) { return feed.finished() && inFlight.empty(); });
    t.in_valid_i = 0;
  }

  /// `batches` random batches of 1 to 6 items from make(), each with 0 to latency + 2 idle cycles
  /// before it (back to back, and gaps shorter than, as long as and longer than the pipeline).
  /// Stops early once an assertion has fired (it is reported once; the state is no longer
  /// meaningful).
  template <typename Make>
  void runBatches(int batches, int64_t latency, Make&& make) {
    for (int b = 0; b < batches; ++b) {
      if (this->sim_.assertionFailed()) break;
      std::vector<Item> items;
      std::vector<int> gaps;
      const int count = 1 + static_cast<int>(this->rng_() % 6);
      for (int i = 0; i < count; ++i) {
        items.push_back(make());
        gaps.push_back(static_cast<int>(uniform(this->rng_, 0, latency + 2)));
      }
      run(items, gaps);
    }
  }

  /// Rows compared, items whose timing was checked.
  int64_t rows() const { return rows_; }
  int64_t items() const { return items_; }

 protected:
  ~LaneCheck() = default;
  virtual void garbageInputs() = 0;
  virtual void putInputs(const Item& item, size_t row) = 0;
  virtual void compareRow(const Item& item, size_t row) = 0;
  virtual void checkTiming(const Item& item, int64_t cycles) = 0;

  Timing timing_;  // the instruction's
  int L_;          // lanes

 private:
  int64_t rows_ = 0, items_ = 0;
};

}  // namespace systole::rtlcheck
