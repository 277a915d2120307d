// SystemC 2.3.4's QuickThreads coroutines tell AddressSanitizer about each stack switch
// (__sanitizer_start_switch_fiber) but describe the main coroutine's stack as empty (bottom 0,
// size 0). After the first switch back, ASan believes the running thread's stack is [0, 0): an
// exception thrown on it (every sim::Fault) then warns "ASan is ignoring requested
// __asan_handle_no_return" and false reports follow, such as a stack-buffer-overflow in
// sigaltstack (issue 16, item 6).
#pragma once

namespace systole::sim {

/// Tells ASan the calling thread's real stack again. Call after sc_start returns, on the thread
/// that called it; does nothing in a build without AddressSanitizer.
void restoreStackBoundsForAsan();

}  // namespace systole::sim
