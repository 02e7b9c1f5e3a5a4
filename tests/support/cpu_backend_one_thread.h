// A CPU backend on one thread: what the check tests compare against the reference layers.
#pragma once
#include <memory>

#include "backend/backend.h"

namespace mg::test {

inline std::unique_ptr<Backend> cpu_one_thread() {
  BackendOptions o;
  o.threads = 1;
  return make_backend(DeviceKind::Cpu, 0, o);
}

}  // namespace mg::test
