// Co-simulation (systole sim --rtl=array): whole programs run with the Verilated systolic array in
// place of the C++ array model must give the same outputs and the same statistics (cycles
// included) on every shipped config: a tiled GEMM and a 3x3 convolution through strided DMA, on
// os16 a program of matmul_streams, and on default a program of depthwise tiles (dwconv).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "gemm_program.h"
#include "systole/isa/builder.h"
#include "systole/isa/diagnostic.h"
#include "systole/rtl/cosim.h"
#include "systole/sim/simulator.h"

namespace systole::testing {
namespace {

using isa::Semantics;

const isa::IsaConfig& shippedConfig(const std::string& name) {
  static std::map<std::string, isa::IsaConfig> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache.emplace(name, isa::IsaConfig::load(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/" + name + ".yaml"))
             .first;
  return it->second;
}

std::vector<uint8_t> bytesOf(const std::vector<int8_t>& v) { return {v.begin(), v.end()}; }

/// Forwards to another backend, counting the operations (and optionally misreporting cycles).
class Counting final : public sim::ArrayBackend {
 public:
  explicit Counting(sim::ArrayBackend& inner, uint64_t extraCycles = 0) : inner_(inner), extra_(extraCycles) {}
  void reset() override { inner_.reset(); }
  uint64_t preload(const sim::Lane* rows, int64_t stride) override {
    ++preloads;
    return inner_.preload(rows, stride);
  }
  uint64_t matmul(const sim::Lane* act, int64_t actStride, int64_t m, bool accumulate, int32_t* acc,
                  int64_t accStride) override {
    ++matmuls;
    return inner_.matmul(act, actStride, m, accumulate, acc, accStride) + extra_;
  }
  uint64_t stream(const sim::Lane* act, int64_t actStride, int64_t sliceStride, const sim::Lane* w, int64_t wStride,
                  int64_t slices, int64_t m, bool accumulate, int32_t* acc, int64_t accStride) override {
    ++streams;
    return inner_.stream(act, actStride, sliceStride, w, wStride, slices, m, accumulate, acc, accStride) + extra_;
  }
  uint64_t depthwise(const sim::Lane* act, int64_t actStride, int64_t m, int64_t kh, int64_t kw, int64_t pitch,
                     int64_t stride, bool accumulate, int32_t* acc, int64_t accStride) override {
    ++depthwises;
    return inner_.depthwise(act, actStride, m, kh, kw, pitch, stride, accumulate, acc, accStride) + extra_;
  }
  int64_t preloads = 0, matmuls = 0, streams = 0, depthwises = 0;

 private:
  sim::ArrayBackend& inner_;
  uint64_t extra_;
};

/// Runs `program` with the C++ model and with the RTL array; both results must agree exactly.
void expectSameWithRtl(const isa::IsaConfig& isa, const isa::Program& program,
                       const std::map<std::string, std::vector<uint8_t>>& inputs) {
  sim::Simulator simulator(isa);
  sim::SimOptions options;
  options.poison = true;
  const sim::SimResult model = simulator.run(program, inputs, options);
  auto rtl = rtl::makeRtlArray(isa);
  Counting counting(*rtl);
  options.array = &counting;
  const sim::SimResult cosim = simulator.run(program, inputs, options);
  // Every array instruction of the program ran on the RTL.
  int64_t preloads = 0, matmuls = 0, streams = 0, depthwises = 0;
  for (const isa::Instruction& in : isa::decodeAll(isa, program.code)) {
    const auto s = isa.instr(in.desc).semantics;
    preloads += s == Semantics::WeightPreload;
    matmuls += s == Semantics::MatmulTile;
    streams += s == Semantics::MatmulStream;
    depthwises += s == Semantics::DepthwiseTile;
  }
  EXPECT_GT(preloads + matmuls + streams + depthwises, 0);
  EXPECT_EQ(counting.preloads, preloads);
  EXPECT_EQ(counting.matmuls, matmuls);
  EXPECT_EQ(counting.streams, streams);
  EXPECT_EQ(counting.depthwises, depthwises);
  EXPECT_EQ(cosim.stats.cycles, model.stats.cycles);
  EXPECT_EQ(cosim.stats.toJson(), model.stats.toJson());
  ASSERT_EQ(cosim.outputs.size(), model.outputs.size());
  for (size_t t = 0; t < model.outputs.size(); ++t) {
    EXPECT_EQ(cosim.outputs[t].info.name, model.outputs[t].info.name);
    EXPECT_TRUE(cosim.outputs[t].bytes == model.outputs[t].bytes)
        << "output " << model.outputs[t].info.name << " differs";
  }
  EXPECT_GT(model.stats.macs, 0u);
  // The backend is reset per run: a second run gives the same again.
  const sim::SimResult again = simulator.run(program, inputs, options);
  EXPECT_EQ(again.stats.toJson(), model.stats.toJson());
}

class CosimOnConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(CosimOnConfig, GemmSameOutputsAndCycles) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  for (int buffers : {1, 2}) {
    SCOPED_TRACE("buffers " + std::to_string(buffers));
    // Ragged in every dimension: several K tiles accumulate, partial M chunks and N tiles.
    GemmSpec spec{.M = 2 * p.array_rows + 3, .K = 2 * p.array_rows + 1, .N = p.array_cols + 5, .buffers = buffers};
    spec.zero_point = -3;
    const auto A = randomInt8(static_cast<size_t>(spec.M * spec.K), 11);
    const auto B = randomInt8(static_cast<size_t>(spec.K * spec.N), 12);
    expectSameWithRtl(isa, buildGemmProgram(isa, spec, B), {{"A", bytesOf(A)}});
  }
}

// 3x3 convolution, stride 1, padding 1 (input pre-padded in DRAM, HWC): for each kernel offset and
// output row one strided dma_load gathers the window rows (implicit im2col), one weight_preload
// per offset, matmul_tile accumulating over the 9 offsets, then requantize and store.
TEST_P(CosimOnConfig, ConvSameOutputsAndCycles) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t R = p.array_rows;
  const int64_t H = 5, W = 6, C = R - 1, OC = p.array_cols;
  const int64_t Wp = W + 2, OH = H, OW = W;
  isa::ProgramBuilder b(isa);
  uint64_t next = 0x1000;
  auto alloc = [&](size_t bytes) {
    const uint64_t addr = next;
    next = (next + bytes + 255) & ~uint64_t{255};
    return addr;
  };
  const auto input = randomInt8(static_cast<size_t>((H + 2) * Wp * C), 21);
  const auto weights = randomInt8(static_cast<size_t>(9 * R * OC), 22);
  std::vector<int32_t> scale(static_cast<size_t>(2 * p.acc_row_elems));
  for (int64_t j = 0; j < p.acc_row_elems; ++j) {
    scale[static_cast<size_t>(j)] = 1 << 30;
    scale[static_cast<size_t>(p.acc_row_elems + j)] = 40;
  }
  std::vector<uint8_t> scaleBytes(scale.size() * 4);
  for (size_t i = 0; i < scale.size(); ++i)
    for (size_t k = 0; k < 4; ++k)
      scaleBytes[i * 4 + k] = static_cast<uint8_t>(static_cast<uint32_t>(scale[i]) >> (8 * k));
  const uint64_t inAddr = alloc(input.size()), wAddr = alloc(weights.size()), sAddr = alloc(scaleBytes.size());
  b.addData(inAddr, bytesOf(input));
  b.addData(wAddr, bytesOf(weights));
  b.addData(sAddr, scaleBytes);
  const uint64_t outAddr = alloc(static_cast<size_t>(OH * OW * OC));
  b.addTensor({"y", isa::TensorKind::Output, isa::DType::Int8, {OH * OW * OC}, outAddr, 1.0f, 0});
  const int64_t wRow = 0, outRow = 9 * R + 2 * OW, scaleRow = OH * OW;
  auto winRow = [&](int64_t buf) { return 9 * R + buf * OW; };
  b.emit(Semantics::DmaLoadAcc, {static_cast<int64_t>(sAddr), scaleRow, 2, p.acc_row_bytes, p.acc_row_bytes});
  b.emit(Semantics::DmaLoad, {static_cast<int64_t>(wAddr), wRow, 9 * R, OC, OC}, isa::kPushNext);
  int64_t step = 0;
  for (int64_t o = 0; o < 9; ++o) {
    const int64_t kh = o / 3, kw = o % 3;
    for (int64_t oh = 0; oh < OH; ++oh, ++step) {
      const int64_t buf = step % 2;
      const int64_t src = static_cast<int64_t>(inAddr) + ((oh + kh) * Wp + kw) * C;
      b.emit(Semantics::DmaLoad, {src, winRow(buf), OW, C, C},
             static_cast<uint8_t>(isa::kPushNext | (step >= 2 ? isa::kPopNext : 0)));
      if (oh == 0) b.emit(Semantics::WeightPreload, {wRow + o * R}, o == 0 ? isa::kPopPrev : 0);
      // Release the window buffer only for a load that will reuse it (a token never popped is a fault).
      b.emit(Semantics::MatmulTile, {winRow(buf), oh * OW, OW, o > 0 ? 1 : 0},
             static_cast<uint8_t>(isa::kPopPrev | (step + 2 < 9 * OH ? isa::kPushPrev : 0)));
    }
  }
  b.emit(Semantics::Requantize, {0, outRow, OH * OW, scaleRow, 0, -128, 127}, isa::kPushNext);
  b.emit(Semantics::DmaStore, {static_cast<int64_t>(outAddr), outRow, OH * OW, OC, OC}, isa::kPopPrev);
  b.emit(Semantics::Finish, {});
  expectSameWithRtl(isa, b.build(), {});
}

TEST_P(CosimOnConfig, CyclesDifferentFromTheYamlAreAFault) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  GemmSpec spec{.M = p.array_rows, .K = p.array_rows, .N = p.array_cols};
  const auto A = randomInt8(static_cast<size_t>(spec.M * spec.K), 41);
  const auto B = randomInt8(static_cast<size_t>(spec.K * spec.N), 42);
  sim::Simulator simulator(isa);
  auto rtl = rtl::makeRtlArray(isa);
  Counting offByOne(*rtl, 1);
  sim::SimOptions options;
  options.array = &offByOne;
  try {
    simulator.run(buildGemmProgram(isa, spec, B), {{"A", bytesOf(A)}}, options);
    FAIL() << "expected a fault";
  } catch (const sim::Fault& f) {
    EXPECT_NE(f.message().find("the array backend took"), std::string::npos) << f.message();
    EXPECT_NE(f.message().find("YAML timing"), std::string::npos) << f.message();
  }
}

TEST_P(CosimOnConfig, VcdIsWritten) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const std::string vcd = ::testing::TempDir() + "cosim_" + GetParam() + ".vcd";
  std::filesystem::remove(vcd);
  {
    GemmSpec spec{.M = p.array_rows, .K = p.array_rows, .N = p.array_cols};
    const auto A = randomInt8(static_cast<size_t>(spec.M * spec.K), 31);
    const auto B = randomInt8(static_cast<size_t>(spec.K * spec.N), 32);
    sim::Simulator simulator(isa);
    auto rtl = rtl::makeRtlArray(isa, {.vcd = vcd});
    sim::SimOptions options;
    options.array = rtl.get();
    simulator.run(buildGemmProgram(isa, spec, B), {{"A", bytesOf(A)}}, options);
  }
  std::ifstream in(vcd);
  ASSERT_TRUE(in.good()) << vcd;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("$enddefinitions"), std::string::npos);
  EXPECT_NE(text.find("cmd_ready_o"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(ShippedConfigs, CosimOnConfig, ::testing::Values("tiny", "default", "large", "os16"));

// os16's gemm.stream on the RTL: full and partial tiles, strides above, equal to and below m
// (slices sharing rows), accumulating onto loaded rows and onto an earlier stream's, out to DRAM.
TEST(Cosim, StreamSameOutputsAndCycles) {
  const auto& isa = shippedConfig("os16");
  const auto& p = isa.params();
  const int64_t R = p.array_rows, N = p.array_cols, E = p.spad_row_bytes, A = p.acc_row_bytes;
  isa::ProgramBuilder b(isa);
  const uint64_t aAddr = 0x1000, wAddr = 0x4000, cAddr = 0x8000, outAddr = 0x9000;
  b.addData(aAddr, bytesOf(randomInt8(static_cast<size_t>(120 * E), 51)));
  b.addData(wAddr, bytesOf(randomInt8(static_cast<size_t>(5 * R * N), 52)));
  b.addData(cAddr, bytesOf(randomInt8(static_cast<size_t>(R * A), 53)));
  b.addTensor({"y", isa::TensorKind::Output, isa::DType::Int32, {26 * N}, outAddr, 1.0f, 0});
  b.emit(Semantics::DmaLoad, {static_cast<int64_t>(aAddr), 0, 120, E, E});
  b.emit(Semantics::DmaLoad, {static_cast<int64_t>(wAddr), 200, 5 * R, N, N});
  b.emit(Semantics::DmaLoadAcc, {static_cast<int64_t>(cAddr), 0, R, A, A}, isa::kPushNext);
  b.emit(Semantics::MatmulStream, {0, 40, 200, 0, R, 3, 1}, isa::kPopPrev);
  b.emit(Semantics::MatmulStream, {5, 40, 200 + R, R, 9, 2, 0});
  b.emit(Semantics::MatmulStream, {3, 1, 200, R + 9, 1, 5, 0});
  b.emit(Semantics::MatmulStream, {7, 16, 200 + 3 * R, 0, R, 2, 1}, isa::kPushNext);
  b.emit(Semantics::DmaStoreAcc, {static_cast<int64_t>(outAddr), 0, 26, A, A}, isa::kPopPrev);
  b.emit(Semantics::Finish, {});
  expectSameWithRtl(isa, b.build(), {});
}

// default's dwconv (depthwise_tile) on the RTL's depthwise mode: 3x3 kernels at strides 1 and 2
// over a padded image, a 1x1 at stride 3, a 5x3 (15 taps), a 4x4 with pitch 0 (all 16 PE rows,
// overlapping kernel rows) and a 3x3 whose window nearly fills the 256-row line buffer (so it
// wraps), accumulating onto loaded rows and onto an earlier tile's, a second preload between them,
// out to DRAM.
TEST(Cosim, DepthwiseSameOutputsAndCycles) {
  const auto& isa = shippedConfig("default");
  const auto& p = isa.params();
  ASSERT_GE(isa.bySemantics(Semantics::DepthwiseTile), 0);
  ASSERT_GE(p.array_line_buffer_rows, 243);
  const int64_t R = p.array_rows, E = p.spad_row_bytes, A = p.acc_row_bytes;
  isa::ProgramBuilder b(isa);
  const int64_t inRows = 400, wRow = 1000, accRows = 64;
  const uint64_t xAddr = 0x1000, wAddr = 0x10000, cAddr = 0x12000, outAddr = 0x20000;
  b.addData(xAddr, bytesOf(randomInt8(static_cast<size_t>(inRows * E), 61)));
  b.addData(wAddr, bytesOf(randomInt8(static_cast<size_t>(2 * R * E), 62)));
  b.addData(cAddr, bytesOf(randomInt8(static_cast<size_t>(accRows * A), 63)));
  b.addTensor({"y", isa::TensorKind::Output, isa::DType::Int32, {accRows * A / 4}, outAddr, 1.0f, 0});
  b.emit(Semantics::DmaLoad, {static_cast<int64_t>(xAddr), 0, inRows, E, E});
  b.emit(Semantics::DmaLoad, {static_cast<int64_t>(wAddr), wRow, 2 * R, E, E});
  b.emit(Semantics::DmaLoadAcc, {static_cast<int64_t>(cAddr), 0, accRows, A, A}, isa::kPushNext);
  b.emit(Semantics::WeightPreload, {wRow}, isa::kPopPrev);
  // a_row, acc_row, m, accumulate, kh, kw, pitch, stride
  b.emit(Semantics::DepthwiseTile, {0, 0, 8, 0, 3, 3, 10, 1});    // a padded 10-pixel row
  b.emit(Semantics::DepthwiseTile, {3, 8, 4, 1, 3, 3, 10, 2});    // stride 2, onto loaded rows
  b.emit(Semantics::DepthwiseTile, {7, 0, 8, 1, 1, 1, 0, 3});     // 1x1, onto the first tile's rows
  b.emit(Semantics::DepthwiseTile, {20, 12, 5, 0, 5, 3, 20, 1});  // 15 taps
  b.emit(Semantics::WeightPreload, {wRow + R});
  b.emit(Semantics::DepthwiseTile, {50, 17, 6, 1, 4, 4, 0, 2});      // all PE rows, rows overlap
  b.emit(Semantics::DepthwiseTile, {100, 23, 10, 1, 3, 3, 120, 1});  // a 243-row window: the buffer wraps
  // The field's largest stride.
  b.emit(Semantics::DepthwiseTile, {9, 40, 24, 0, 2, 5, 7, 7}, isa::kPushNext);
  b.emit(Semantics::DmaStoreAcc, {static_cast<int64_t>(outAddr), 0, accRows, A, A}, isa::kPopPrev);
  b.emit(Semantics::Finish, {});
  expectSameWithRtl(isa, b.build(), {});
}

TEST(Cosim, ConfigWithoutRtlBuildIsRefused) {
  // A config with the name of a shipped one but different contents has no Verilated model.
  const std::string src = std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/tiny.yaml";
  const std::string copy = ::testing::TempDir() + "cosim_tiny_changed.yaml";
  std::filesystem::copy_file(src, copy, std::filesystem::copy_options::overwrite_existing);
  std::ofstream(copy, std::ios::app) << "\n# changed\n";
  const auto changed = isa::IsaConfig::load(copy);
  try {
    rtl::makeRtlArray(changed);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no RTL build for config 'tiny'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(rtl::rtlArrayConfigs().size(), 8u);  // the four shipped configs and the four array variants
}

}  // namespace
}  // namespace systole::testing
