// A big compile or simulation restarted once with glibc's malloc on transparent huge pages.
#pragma once

namespace systole::tools {

/// If `argv` names a model or program file of at least 16 MiB and glibc's malloc was not started
/// with huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), replaces this process with itself so
/// started; otherwise, or if that fails, returns and the command runs as it is.
void restartWithHugePagesForBigModels(int argc, char** argv);

}  // namespace systole::tools
