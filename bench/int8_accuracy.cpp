// INT8 against float: for each model, quantize with seeded random calibration inputs, then run the
// float and the quantized reference interpreters on N other seeded inputs and report the mean and
// worst cosine similarity of the outputs and the top-1 agreement.
//
//   int8_accuracy N MODEL.onnx...
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "systole/compiler/interpreter.h"
#include "systole/compiler/onnx_import.h"
#include "systole/compiler/passes.h"
#include "systole/compiler/quantize.h"

using namespace systole::compiler;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s N MODEL.onnx...\n", argv[0]);
    return 2;
  }
  const int n = std::atoi(argv[1]);
  std::printf("| model | inputs | mean cosine | worst cosine | top-1 agreement |\n| --- | ---: | ---: | ---: | ---: |\n");
  for (int m = 2; m < argc; ++m) {
    Graph floatGraph = importOnnx(argv[m]);
    optimize(floatGraph);
    Graph quantized = floatGraph;
    quantize(quantized, makeRandomInputs(quantized, 8, 0));
    double sum = 0, worst = 1;
    int agree = 0;
    const auto inputs = makeRandomInputs(floatGraph, n, 12345);
    for (const auto& in : inputs) {
      const auto f = interpret(floatGraph, in);
      const auto q = interpret(quantized, in);
      const HostTensor& a = f.begin()->second;
      const HostTensor& b = q.at(f.begin()->first);
      double dot = 0, na = 0, nb = 0;
      int64_t ta = 0, tb = 0;
      for (int64_t i = 0; i < a.elements(); ++i) {
        const double x = a.data<float>()[i], y = b.data<float>()[i];
        dot += x * y, na += x * x, nb += y * y;
        if (x > a.data<float>()[ta]) ta = i;
        if (y > b.data<float>()[tb]) tb = i;
      }
      const double cosine = dot / (std::sqrt(na * nb) + 1e-30);
      sum += cosine;
      worst = std::min(worst, cosine);
      agree += ta == tb;
    }
    std::printf("| %s | %d | %.5f | %.5f | %d%% |\n", argv[m], n, sum / n, worst, 100 * agree / n);
    std::fflush(stdout);
  }
  return 0;
}
