// The OpenMP team size our parallel regions (and oneDNN, which sizes its work by omp_get_max_threads) run with.
//
// ThreadSanitizer builds run every team at one thread. Debian's libgomp is not built with TSan, so the barrier
// that ends a region is invisible to it: each hand-over between a worker and the thread that opened the region
// (a buffer filled by the team, then freed by the replica thread) looks like a race. Suppressing reports by a
// libgomp frame missed one when the worker's stack could not be restored (TSan's history had been overwritten),
// and it blinded TSan to every race with a worker on its other side. With one-thread teams no libgomp worker
// exists and every report is between our own threads; races among one team's workers go unchecked, as they did
// under the suppression. A thread that never sets a count takes OMP_NUM_THREADS (1 for TSan tests:
// tests/CMakeLists.txt). Every explicit num_threads goes through omp_team.
#pragma once

namespace mg {

#if defined(__SANITIZE_THREAD__)
inline constexpr bool kSerialOpenMP = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kSerialOpenMP = true;
#else
inline constexpr bool kSerialOpenMP = false;
#endif
#else
inline constexpr bool kSerialOpenMP = false;
#endif

// The team size to use where `wanted` threads were asked for.
inline int omp_team(int wanted) { return kSerialOpenMP ? 1 : wanted; }

}  // namespace mg
