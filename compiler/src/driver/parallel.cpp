// Algorithm: `jobs - 1` std::threads plus the caller pull the next index from one atomic counter
// until the range is exhausted or a call has failed; each failure is kept with its index, and the
// lowest is rethrown after joining.
#include "systole/compiler/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace systole::compiler {

int resolveJobs(int jobs) {
  if (jobs > 0) return jobs;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void parallelFor(size_t count, int jobs, const std::function<void(size_t)>& fn) {
  const size_t workers = std::min(count, static_cast<size_t>(resolveJobs(jobs)));
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex errorMutex;
  size_t errorIndex = std::numeric_limits<size_t>::max();
  std::exception_ptr error;
  auto work = [&] {
    for (size_t i; !failed.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < count;) {
      try {
        fn(i);
      } catch (...) {
        const std::lock_guard lock(errorMutex);
        if (i < errorIndex) {
          errorIndex = i;
          error = std::current_exception();
        }
        failed = true;
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace systole::compiler
