// Why: glibc reads its malloc tunables only at start-up, and on the (virtual) machines this project
// runs on a 4 KiB page fault costs microseconds, so a ResNet-50 compile spent a third of its time
// faulting in the heap page by page (3.3 s wall, 1.1 s of it system time; 2.5 s with huge pages).
// A restart costs one more start-up (about 70 ms), so it is done only for files big enough to
// gain more than that, and never twice (the variable is set before the exec).
#include "huge_page_restart.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace systole::tools {

void restartWithHugePagesForBigModels(int argc, char** argv) {
  constexpr std::uintmax_t kBigFile = std::uintmax_t{16} << 20;
  constexpr const char* kTunable = "glibc.malloc.hugetlb=1";
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::string(tunables).find("glibc.malloc.hugetlb") != std::string::npos) return;
  bool big = false;
  for (int i = 1; i < argc && !big; ++i) {
    const std::string arg = argv[i];
    std::error_code ec;
    big = (arg.ends_with(".onnx") || arg.ends_with(".sbin")) && std::filesystem::is_regular_file(arg, ec) &&
          std::filesystem::file_size(arg, ec) >= kBigFile && !ec;
  }
  if (!big) return;
  const std::string value = tunables && *tunables ? std::string(tunables) + ":" + kTunable : std::string(kTunable);
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: then carry on without huge pages
}

}  // namespace systole::tools
