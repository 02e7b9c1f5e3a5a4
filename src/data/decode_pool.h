// The real-data DataSource: a pool of decode workers (--data-threads) that read encoded samples from a
// SampleStore, decode them with TurboJPEG and augment them into batches, `prefetch` batches ahead of the
// consumer. Work is handed out per sample, not per batch, so all workers help finish the oldest batch first
// and the head of the queue is never stuck behind one slow thread.
#pragma once
#include <memory>

#include "data/data_source.h"
#include "data/sample_store.h"

namespace mg {

// Validates spec against the store (class count, enough samples for one global batch) and starts the workers.
// With spec.skip_bad_images a sample that fails to read or decode is replaced, within the same batch slot, by
// the next decodable sample of the epoch's order (so batches stay full), remembered so it is not tried again,
// and counted once in skipped_images(); without it the batch's next() throws the Error naming the file.
std::unique_ptr<DataSource> make_decode_pool_source(std::unique_ptr<SampleStore> store, const DataSpec& spec,
                                                    int prefetch_batches = 2);

}  // namespace mg
