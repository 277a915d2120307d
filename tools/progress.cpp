// Algorithm: a ticker thread wakes every 100 ms; while a task has run for at least a second it
// redraws the line in place (carriage return, erase to end of line) when its text has changed.
// end() and the destructor erase a drawn line, so later output starts on a clean line.
#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace systole::tools {

namespace {

constexpr auto kDelay = std::chrono::seconds(1);
constexpr auto kPeriod = std::chrono::milliseconds(100);

}  // namespace

bool progressWanted(bool quiet) { return !quiet && isatty(STDERR_FILENO) == 1; }

Progress::Progress(bool enabled) : enabled_(enabled) {
  if (enabled_) ticker_ = std::thread([this] { tick(); });
}

Progress::~Progress() {
  if (!enabled_) return;
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
    erase();
  }
  wake_.notify_all();
  ticker_.join();
}

void Progress::begin(std::string task) {
  if (!enabled_) return;
  const std::lock_guard lock(mutex_);
  erase();
  task_ = std::move(task);
  detail_.clear();
  start_ = std::chrono::steady_clock::now();
  active_ = true;
}

void Progress::detail(std::string text) {
  if (!enabled_) return;
  const std::lock_guard lock(mutex_);
  detail_ = std::move(text);
}

void Progress::end() {
  if (!enabled_) return;
  const std::lock_guard lock(mutex_);
  erase();
  active_ = false;
}

void Progress::erase() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

void Progress::tick() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, kPeriod);
    if (stop_ || !active_) continue;
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed < kDelay) continue;
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(elapsed).count();
    std::string line =
        "systole: " + task_ + (detail_.empty() ? "" : ": ") + detail_ + " (" + std::to_string(seconds) + " s)";
    if (drawn_ && line == shown_) continue;
    std::fprintf(stderr, "\r\x1b[K%s", line.c_str());
    std::fflush(stderr);
    shown_ = std::move(line);
    drawn_ = true;
  }
}

}  // namespace systole::tools
