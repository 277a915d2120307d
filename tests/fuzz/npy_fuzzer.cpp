// Fuzz target: .npy parsing (header dictionary, shape, dtype, payload size). An array it accepts
// must serialize and parse back to itself.
#include <cstdio>
#include <cstdlib>

#include "fuzz_support.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  NpyArray array;
  try {
    array = parseNpy(fuzz::bytes(data, size), "fuzz.npy");
  } catch (const Error& e) {
    fuzz::rejected(e);
    return 0;
  }
  const NpyArray again = parseNpy(serializeNpy(array), "fuzz.npy");
  if (again.dtype != array.dtype || again.shape != array.shape || again.bytes != array.bytes) {
    std::fputs("serializeNpy does not round-trip the parsed array\n", stderr);
    std::abort();
  }
  return 0;
}
