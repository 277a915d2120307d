// A one-line status on stderr for compile work that takes a while ("systole: calibration and
// quantization: sample 5/16 (3 s)"), so a long compile shows where it is.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace systole::tools {

class Progress {
 public:
  /// Draws nothing unless `enabled`; see progressWanted().
  explicit Progress(bool enabled);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// A task starts (replacing any current one); it is shown once it has run for a second.
  void begin(std::string task);
  /// What the current task is doing now (drawn after the task's name).
  void detail(std::string text);
  /// The current task is over: its line is erased.
  void end();

 private:
  void tick();
  void erase();  // with mutex_ held

  bool enabled_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false, active_ = false, drawn_ = false;
  std::string task_, detail_, shown_;
  std::chrono::steady_clock::time_point start_;
  std::thread ticker_;
};

/// Progress is drawn only when stderr is a terminal and --quiet was not given.
bool progressWanted(bool quiet);

}  // namespace systole::tools
