// A small fork-join helper on std::thread for independent pieces of work (calibration samples).
#pragma once

#include <cstddef>
#include <functional>

namespace systole::compiler {

/// The worker count `jobs` asks for: `jobs` itself when positive, else the hardware concurrency
/// (at least 1).
int resolveJobs(int jobs);

/// Calls `fn(i)` once for every i in [0, count) on up to `jobs` threads (resolveJobs; the calling
/// thread is one of them), handing out indices in increasing order. If calls throw, no new index
/// is started and the exception of the lowest failing index is rethrown once all threads are done,
/// so which error is reported does not depend on the thread count.
void parallelFor(size_t count, int jobs, const std::function<void(size_t)>& fn);

}  // namespace systole::compiler
