// Host-generated synthetic batches (--synthetic-source host): fresh random images and labels every batch, so
// the staging path (pinned buffer, copy stream) is exercised and measured exactly as real data would be,
// without any decode cost.
#pragma once
#include <memory>

#include "data/data_source.h"

namespace mg {

// samples_per_epoch() is 0: synthetic data has no epochs.
std::unique_ptr<DataSource> make_host_synthetic_source(const DataSpec& spec);

}  // namespace mg
