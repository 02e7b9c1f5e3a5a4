// Helpers shared by the trainer tests: small deterministic batches (replica worlds: support/cpu_world.h).
#pragma once
#include <memory>
#include <vector>

#include "core/counter_rng.h"
#include "core/run_on_threads.h"
#include "support/cpu_world.h"
#include "support/graph_pass.h"

namespace mgtest {

// Deterministic host data (support/graph_pass.h).
using mg::test::make_images;
using mg::test::make_labels;

}  // namespace mgtest
