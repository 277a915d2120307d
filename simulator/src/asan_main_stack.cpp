// Algorithm: read the calling thread's stack (pthread_getattr_np) and announce a "switch" to it:
// __sanitizer_start_switch_fiber with its bounds, then __sanitizer_finish_switch_fiber, with no
// actual switch in between. ASan then records those bounds as the current stack (and keeps the
// thread's fake stack, saved and restored across the two calls).
#include "asan_main_stack.h"

#if defined(__SANITIZE_ADDRESS__)
#define SYSTOLE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYSTOLE_ASAN 1
#endif
#endif

#ifdef SYSTOLE_ASAN
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>

#include <cstddef>
#endif

namespace systole::sim {

#ifdef SYSTOLE_ASAN
void restoreStackBoundsForAsan() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* bottom = nullptr;
  size_t size = 0;
  const int rc = pthread_attr_getstack(&attr, &bottom, &size);
  pthread_attr_destroy(&attr);
  if (rc != 0) return;
  void* fakeStack = nullptr;
  __sanitizer_start_switch_fiber(&fakeStack, bottom, size);
  __sanitizer_finish_switch_fiber(fakeStack, nullptr, nullptr);
}
#else
void restoreStackBoundsForAsan() {}
#endif

}  // namespace systole::sim
