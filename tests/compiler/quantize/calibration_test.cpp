// Calibration and the quantizer's options: determinism, errors, the sample limit, thread-count
// independence, progress, the observer, the range methods (percentile, entropy), random inputs and
// calibration directories.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include <unistd.h>

#include "quant_net.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/quant_math.h"
#include "systole/compiler/quantize.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/npy.h"

namespace systole::compiler {
namespace {

using test::convReluGraph;
using test::GraphBuilder;
using test::Net;

TEST(Quantize, IsDeterministic) {
  Graph a = convReluGraph(), b = convReluGraph();
  const auto calib = makeRandomInputs(a, 4, 5);
  quantize(a, calib);
  quantize(b, calib);
  EXPECT_EQ(a.print(), b.print());
  EXPECT_NE(a.print().find("QuantizeLinear"), std::string::npos);
}

TEST(Quantize, ErrorsAreReported) {
  Graph g = convReluGraph();
  EXPECT_THROW(quantize(g, {}), Error);  // no calibration data
  quantize(g, makeRandomInputs(g, 2, 0));
  EXPECT_THROW(quantize(g, makeRandomInputs(g, 2, 0)), Error);  // already quantized
  Graph h = convReluGraph();
  QuantOptions bad;
  bad.method = CalibrationMethod::Percentile;
  bad.percentile = 20;
  EXPECT_THROW(quantize(h, makeRandomInputs(h, 1, 0), bad), Error);
  EXPECT_THROW(quantizeWithRanges(h, {}), Error);  // no ranges
}

TEST(Quantize, NumSamplesLimitsCalibration) {
  const Graph g = convReluGraph();
  const auto calib = makeRandomInputs(g, 8, 3);
  QuantOptions one;
  one.num_samples = 1;
  const auto r1 = calibrate(g, calib, one);
  const auto r1b = calibrate(g, {calib[0]});
  ASSERT_EQ(r1.size(), r1b.size());
  for (const auto& [name, range] : r1) {
    EXPECT_EQ(range.lo, r1b.at(name).lo) << name;
    EXPECT_EQ(range.hi, r1b.at(name).hi) << name;
  }
  const auto all = calibrate(g, calib);
  EXPECT_GE(all.at("conv2").hi, r1.at("conv2").hi);
  EXPECT_LE(all.at("conv2").lo, r1.at("conv2").lo);
}

/// A deeper graph than convReluGraph, with a residual Add, so values are freed at different times.
Graph residualGraph() {
  Net n;
  const int x = n.b.input("x", {1, 3, 24, 24});
  const int c1 = n.conv("c1", x, 8, 3, 1, 1, "relu");
  const int c2 = n.conv("c2", c1, 8, 3, 1, 1);
  const int c3 = n.conv("c3", c2, 8, 1, 1, 0, "clip");
  const int sum = n.b.node("Add", {c1, c3}, "sum", {1, 8, 24, 24});
  n.b.output(n.conv("c4", sum, 4, 3, 2, 1));
  return n.b.g;
}

TEST(Calibrate, SameRangesWhateverTheThreadCount) {
  const Graph g = residualGraph();
  const auto calib = makeRandomInputs(g, 7, 5, RandomDistribution::Normal);
  for (CalibrationMethod method :
       {CalibrationMethod::MinMax, CalibrationMethod::Percentile, CalibrationMethod::Entropy}) {
    QuantOptions opts;
    opts.method = method;
    opts.percentile = 99.9;
    opts.jobs = 1;
    const auto serial = calibrate(g, calib, opts);
    EXPECT_EQ(serial.size(), 6u);  // x, c1..c4, sum
    for (int jobs : {2, 3, 8}) {
      opts.jobs = jobs;
      const auto parallel = calibrate(g, calib, opts);
      ASSERT_EQ(parallel.size(), serial.size());
      for (const auto& [name, range] : serial) {
        EXPECT_EQ(parallel.at(name).lo, range.lo) << calibrationMethodName(method) << " " << name << " jobs " << jobs;
        EXPECT_EQ(parallel.at(name).hi, range.hi) << calibrationMethodName(method) << " " << name << " jobs " << jobs;
      }
    }
  }
}

// Progress counts samples over the passes the method takes: one for MinMax and Percentile (whose
// tails come with the ranges), two for Entropy (a histogram over the ranges).
TEST(Calibrate, ReportsProgressOverItsPasses) {
  const Graph g = convReluGraph();
  const auto calib = makeRandomInputs(g, 5, 1);
  for (auto [method, passes] : {std::pair{CalibrationMethod::MinMax, 1u},
                                {CalibrationMethod::Percentile, 1u},
                                {CalibrationMethod::Entropy, 2u}}) {
    SCOPED_TRACE(std::string(calibrationMethodName(method)));
    QuantOptions opts;
    opts.method = method;
    opts.jobs = 2;
    std::vector<size_t> done;
    opts.progress = [&](size_t d, size_t total) {
      EXPECT_EQ(total, 5u * passes);
      done.push_back(d);
    };
    (void)calibrate(g, calib, opts);
    ASSERT_EQ(done.size(), 5u * passes);
    for (size_t i = 0; i < done.size(); ++i) EXPECT_EQ(done[i], i + 1);
  }
}

TEST(Interpreter, ObserverSeesEveryValueKeepAllReturns) {
  const Graph g = residualGraph();
  const auto in = makeRandomInputs(g, 1, 3)[0];
  const auto all = interpret(g, in, /*keepAll=*/true);
  const Interpreter interpreter(g);
  std::map<std::string, HostTensor> seen;
  const auto outputs = interpreter.run(in, [&](int v, const HostTensor& t) {
    EXPECT_TRUE(seen.emplace(g.values[static_cast<size_t>(v)].name, t).second) << "seen twice";
  });
  EXPECT_EQ(seen, all);
  EXPECT_EQ(outputs, interpret(g, in));
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs.at("c4"), all.at("c4"));
}

TEST(Quantize, PercentileAndEntropyNarrowOutliers) {
  // One extreme input value: MinMax keeps it, Percentile and Entropy clip it.
  GraphBuilder b;
  const int x = b.input("x", {1, 1, 100, 100});
  const int r = b.node("Relu", {x}, "r", {1, 1, 100, 100});
  b.output(r);
  auto calib = makeRandomInputs(b.g, 1, 0);
  calib[0].at("x").data<float>()[17] = 1000.0f;
  QuantOptions m;
  m.method = CalibrationMethod::MinMax;
  QuantOptions p;
  p.method = CalibrationMethod::Percentile;
  p.percentile = 99.99;  // one element in 10^4 may be clipped on each side
  QuantOptions e;
  e.method = CalibrationMethod::Entropy;
  EXPECT_EQ(calibrate(b.g, calib, m).at("x").hi, 1000.0);
  EXPECT_LT(calibrate(b.g, calib, p).at("x").hi, 2.0);
  // Entropy's threshold is at least 128 of its 2048 bins over [0, 1000] (62.7).
  EXPECT_LT(calibrate(b.g, calib, e).at("x").hi, 200.0);
  EXPECT_LT(calibrate(b.g, calib, p).at("x").lo, -0.9);
  // The default, percentile 99.999, keeps one outlier in 10^4 elements.
  EXPECT_EQ(calibrate(b.g, calib).at("x").hi, 1000.0);
}

TEST(Quantize, DefaultIsPercentile99999) {
  const QuantOptions defaults;
  EXPECT_EQ(defaults.method, CalibrationMethod::Percentile);
  EXPECT_EQ(defaults.percentile, 99.999);
}

TEST(Quantize, EntropyKeepsTheTailOfANarrowDistributionFarFromZero) {
  // Like a global average pool's output: most values in [0.25, 0.35], 5% spread up to 1.4. The
  // KL threshold alone clips near 0.35 (the 5% largest values, the informative ones, saturate);
  // Entropy keeps the full range when its threshold clips more than 1% of the values.
  GraphBuilder b;
  const int x = b.input("x", {1, 1, 100, 100});
  const int r = b.node("Relu", {x}, "r", {1, 1, 100, 100});
  b.output(r);
  auto calib = makeRandomInputs(b.g, 1, 0);
  float* d = calib[0].at("x").data<float>();
  for (int i = 0; i < 10000; ++i)
    d[i] = i % 20 == 0 ? 0.4f + 1.0f * static_cast<float>(i) / 10000 : 0.3f + 0.05f * d[i];
  QuantOptions e;
  e.method = CalibrationMethod::Entropy;
  QuantOptions m;
  m.method = CalibrationMethod::MinMax;
  const TensorRange range = calibrate(b.g, calib, e).at("x");
  EXPECT_FLOAT_EQ(static_cast<float>(range.hi), calibrate(b.g, calib, m).at("x").hi);
}

TEST(RandomInputs, SeededUniformAndNormal) {
  GraphBuilder b;
  b.input("x", {10000});
  b.input("ids", {3}, ElemType::Int64);
  const auto u1 = makeRandomInputs(b.g, 2, 42), u2 = makeRandomInputs(b.g, 2, 42), u3 = makeRandomInputs(b.g, 2, 43);
  ASSERT_EQ(u1.size(), 2u);
  EXPECT_EQ(u1, u2);
  EXPECT_NE(u1, u3);
  EXPECT_NE(u1[0].at("x"), u1[1].at("x"));
  EXPECT_EQ(u1[0].at("ids").elements(), 3);
  const HostTensor& u = u1[0].at("x");
  double mean = 0;
  for (int64_t i = 0; i < u.elements(); ++i) {
    ASSERT_GE(u.data<float>()[i], -1.0f);
    ASSERT_LT(u.data<float>()[i], 1.0f);
    mean += u.data<float>()[i];
  }
  EXPECT_NEAR(mean / 10000, 0.0, 0.03);
  const HostTensor nt = makeRandomInputs(b.g, 1, 7, RandomDistribution::Normal)[0].at("x");
  double m = 0, sq = 0;
  for (int64_t i = 0; i < nt.elements(); ++i) {
    m += nt.data<float>()[i];
    sq += double{nt.data<float>()[i]} * nt.data<float>()[i];
  }
  m /= 10000;
  EXPECT_NEAR(m, 0.0, 0.05);
  EXPECT_NEAR(std::sqrt(sq / 10000 - m * m), 1.0, 0.05);

  GraphBuilder dyn;
  dyn.input("x", {-1, 3});
  EXPECT_THROW(makeRandomInputs(dyn.g, 1, 0), Error);
}

/// A fresh empty directory under the system's temporary directory, removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = std::filesystem::temp_directory_path() /
           ("systole_quant_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

void writeFloats(const std::filesystem::path& file, std::vector<int64_t> shape, float first) {
  NpyArray a;
  a.dtype = isa::DType::Float32;
  a.shape = std::move(shape);
  int64_t n = 1;
  for (int64_t d : a.shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = first + static_cast<float>(i);
  a.bytes.resize(v.size() * 4);
  std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
  writeNpy(file.string(), a);
}

TEST(CalibrationDir, OneFilePerSampleOrStacked) {
  GraphBuilder b;
  b.input("x", {1, 2, 3});
  TempDir dir;
  writeFloats(dir.path / "b.npy", {1, 2, 3}, 100);
  writeFloats(dir.path / "a.npy", {3, 2, 3}, 0);  // three stacked samples
  writeFloats(dir.path / "ignored.txt", {1}, 0);
  const auto samples = loadCalibrationDir(b.g, dir.path.string());
  ASSERT_EQ(samples.size(), 4u);  // a.npy's three, then b.npy
  EXPECT_EQ(samples[0].at("x").shape, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(samples[0].at("x").data<float>()[0], 0.0f);
  EXPECT_EQ(samples[1].at("x").data<float>()[0], 6.0f);
  EXPECT_EQ(samples[2].at("x").data<float>()[5], 17.0f);
  EXPECT_EQ(samples[3].at("x").data<float>()[0], 100.0f);

  writeFloats(dir.path / "c.npy", {1, 3, 2}, 0);
  try {
    loadCalibrationDir(b.g, dir.path.string());
    FAIL() << "expected a shape error";
  } catch (const Error& e) {
    EXPECT_NE(e.where().file.find("c.npy"), std::string::npos);
    EXPECT_NE(e.message().find("[1,3,2]"), std::string::npos) << e.message();
  }
}

TEST(CalibrationDir, ImagesCombinedIntoTheBoundBatch) {
  // An input bound to batch 4 (--shape) takes samples of any batch: the images are combined in
  // order, and the last sample is filled by taking them again from the first.
  GraphBuilder b;
  b.input("x", {4, 2, 3});
  TempDir dir;
  writeFloats(dir.path / "a.npy", {1, 2, 3}, 0);    // image 0
  writeFloats(dir.path / "b.npy", {2, 2, 3}, 100);  // images 1 and 2
  writeFloats(dir.path / "c.npy", {2, 2, 3}, 200);  // images 3 and 4
  const auto samples = loadCalibrationDir(b.g, dir.path.string());
  ASSERT_EQ(samples.size(), 2u);
  const float* s0 = samples[0].at("x").data<float>();
  const float* s1 = samples[1].at("x").data<float>();
  EXPECT_EQ(samples[1].at("x").shape, (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(s0[0], 0.0f);     // image 0
  EXPECT_EQ(s0[6], 100.0f);   // image 1
  EXPECT_EQ(s0[18], 200.0f);  // image 3
  EXPECT_EQ(s1[0], 206.0f);   // image 4
  EXPECT_EQ(s1[6], 0.0f);     // then images 0, 1, 2 again
  EXPECT_EQ(s1[18], 106.0f);

  writeFloats(dir.path / "d.npy", {4, 2, 3}, 300);  // a whole sample stays one
  EXPECT_EQ(loadCalibrationDir(b.g, dir.path.string()).size(), 3u);
}

TEST(CalibrationDir, SubdirectoryPerSampleForSeveralInputs) {
  GraphBuilder b;
  b.input("x", {2});
  b.input("y", {1, 3});
  TempDir dir;
  for (int s = 0; s < 2; ++s) {
    const auto sub = dir.path / ("sample" + std::to_string(s));
    std::filesystem::create_directories(sub);
    writeFloats(sub / "x.npy", {2}, static_cast<float>(10 * s));
    writeFloats(sub / "y.npy", {1, 3}, static_cast<float>(10 * s + 5));
  }
  const auto samples = loadCalibrationDir(b.g, dir.path.string());
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[1].at("x").data<float>()[1], 11.0f);
  EXPECT_EQ(samples[1].at("y").data<float>()[2], 17.0f);
  std::filesystem::remove(dir.path / "sample1" / "y.npy");
  EXPECT_THROW(loadCalibrationDir(b.g, dir.path.string()), Error);
  EXPECT_THROW(loadCalibrationDir(b.g, (dir.path / "nothing").string()), Error);
}

TEST(CalibrationMethodNames, RoundTrip) {
  for (CalibrationMethod m : {CalibrationMethod::MinMax, CalibrationMethod::Percentile, CalibrationMethod::Entropy})
    EXPECT_EQ(parseCalibrationMethod(calibrationMethodName(m)), m);
  EXPECT_FALSE(parseCalibrationMethod("kl"));
}

}  // namespace
}  // namespace systole::compiler
