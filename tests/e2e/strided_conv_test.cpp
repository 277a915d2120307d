// A strided convolution's output pixels are computed in gathered rows (only the real output
// pixels; one DMA per tap per output row, at a stride of s pixels) or in virtual rows as wide as
// the padded input (about s times the pixels; one DMA per tap per chunk), whichever the cost model
// predicts faster from the YAML's timing expressions. Both are bit-exact.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "checked_run.h"
#include "graph_builder.h"
#include "shipped_config.h"
#include "systole/compiler/backend.h"
#include "systole/compiler/quantize.h"
#include "systole/runtime/session.h"

namespace systole::testing {
namespace {

/// A 3 x 3 stride-2 convolution over a 56 x 56 image: 28 x 28 output pixels, virtual rows of 58.
compiler::Graph model() {
  FloatGraphBuilder b(7);
  int x = b.input("image", {1, 16, 56, 56});
  x = b.conv(x, 16, 3, 2, 1, 1, true);
  compiler::Graph g = b.finish(x);
  compiler::quantize(g, compiler::makeRandomInputs(g, 4, 1));
  return g;
}

struct Tiled {
  std::string loops;                      // the conv layer's loop nest
  int64_t gathered = 0, virtualRows = 0;  // the two predictions it prints
  uint64_t simulated = 0;
};

Tiled compileAndCheck(const std::string& yaml, const compiler::Graph& g) {
  const isa::IsaConfig isa = isa::IsaConfig::parse(yaml, "changed.yaml");
  compiler::LowerOptions lower;
  lower.print_after = {"tiles"};
  compiler::CompiledProgram compiled = compiler::lowerToProgram(g, isa, lower);
  Tiled t;
  std::smatch match;
  const std::string tiles = compiled.printed.at("tiles");
  EXPECT_TRUE(std::regex_search(tiles, match, std::regex("\\(Conv\\): (Conv [^\\n]*)")));
  t.loops = match[1];
  EXPECT_TRUE(
      std::regex_search(t.loops, match, std::regex("predicted cycles: gathered rows (\\d+), virtual rows (\\d+)")));
  t.gathered = std::stoll(match[1]);
  t.virtualRows = std::stoll(match[2]);
  t.simulated = simulateChecked(isa, std::move(compiled), g);
  return t;
}

// default.yaml keeps 4 DMAs in flight (a DMA occupies its queue for its `issue`, the transfer):
// gathered rows load and compute about half the pixels, so they win.
TEST(StridedConv, GatheredRowsWhenDmasOverlap) {
  const Tiled t = compileAndCheck(defaultConfigText(), model());
  EXPECT_NE(t.loops.find("(gathered rows, DMA stride 2 px)"), std::string::npos) << t.loops;
  EXPECT_EQ(t.loops.find("virtual rows of"), std::string::npos) << t.loops;
  EXPECT_LT(t.gathered, t.virtualRows);
}

// With one DMA in flight every transfer also pays the DRAM latency; without 2-D loads gathered
// rows need one per tap per output row (28 pixels here) instead of one per tap, so virtual rows
// win on the same layer.
TEST(StridedConv, VirtualRowsWhenEachDmaPaysTheLatency) {
  const std::string withLoads2d =
      std::regex_replace(defaultConfigText(), std::regex("outstanding: 4"), "outstanding: 1");
  const std::string serial =
      std::regex_replace(withLoads2d, std::regex("  - name: dma\\.load2d\n(    .*\n|      .*\n)*"), "");
  ASSERT_NE(serial, withLoads2d);
  ASSERT_EQ(serial.find("dma_load_2d"), std::string::npos);
  const std::string base = defaultConfigText();
  const compiler::Graph g = model();
  const Tiled t = compileAndCheck(serial, g);
  EXPECT_NE(t.loops.find("(virtual rows of 58)"), std::string::npos) << t.loops;
  EXPECT_GT(t.gathered, t.virtualRows);
  EXPECT_GT(t.simulated, compileAndCheck(base, g).simulated);
}

}  // namespace
}  // namespace systole::testing
