// Version and git commit of this binary (generated at build time by cmake/build_info.cmake).
#pragma once
namespace mg {
const char* mgbench_version();
const char* mgbench_git_commit();
}  // namespace mg
