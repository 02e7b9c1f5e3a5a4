// Catch2 v2 has no SKIP: a case that cannot run on this machine calls MG_SKIP, and a test binary whose every
// selected case skipped exits kSkipExitCode, which ctest (SKIP_RETURN_CODE) reports as skipped, not passed.
#pragma once

namespace mg::test {

inline constexpr int kSkipExitCode = 77;

// Set by MG_SKIP for the running case; catch_main.cpp's listener reads and clears it per case.
inline bool case_skipped = false;

}  // namespace mg::test

// Warns with the reason and leaves the case; checks made before it still count.
#define MG_SKIP(why)                        \
  do {                                      \
    WARN("skipped: " << why);               \
    ::mg::test::case_skipped = true;        \
    return;                                 \
  } while (false)
