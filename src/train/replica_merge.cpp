#include "train/replica_merge.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backend/device_buffer.h"
#include "core/error.h"

namespace mg {

namespace {

// The fixed part of ReplicaTotals as it travels: raw bytes, so 64-bit checksums and byte counts arrive whole.
struct PackedTotals {
  double loss;
  int64_t overflow_steps;
  uint64_t peak_memory_bytes;
  uint64_t device_memory_in_use_bytes;
  double window_s;
  uint64_t checksum;
  uint64_t steps;    // samples that follow
  uint64_t buckets;  // bucket times that follow
};
static_assert(std::is_trivially_copyable_v<PackedTotals> && sizeof(PackedTotals) == 8 * sizeof(uint64_t),
              "PackedTotals travels as raw bytes: no padding, no pointers");
static_assert(std::is_trivially_copyable_v<StepBreakdown> && sizeof(StepBreakdown) % sizeof(int32_t) == 0,
              "StepBreakdown samples travel as raw 32-bit words");

size_t packed_bytes(size_t steps, size_t buckets) {
  return sizeof(PackedTotals) + steps * sizeof(StepBreakdown) + buckets * sizeof(double);
}

}  // namespace

std::vector<ReplicaTotals> gather_world_totals(Communicator& comm, const ReplicaTotals& mine) {
  Backend& be = comm.backend();
  const size_t steps = mine.samples.size(), buckets = mine.bucket_time_s.size();
  const size_t bytes = packed_bytes(steps, buckets);
  std::vector<char> send(bytes);
  const PackedTotals head{mine.loss,     mine.overflow_steps, mine.peak_memory_bytes, mine.device_memory_in_use_bytes,
                          mine.window_s, mine.checksum,       steps,                  buckets};
  std::memcpy(send.data(), &head, sizeof head);
  std::memcpy(send.data() + sizeof head, mine.samples.data(), steps * sizeof(StepBreakdown));
  std::memcpy(send.data() + sizeof head + steps * sizeof(StepBreakdown), mine.bucket_time_s.data(),
              buckets * sizeof(double));

  // I32: an all-gather moves 32-bit words untouched (no arithmetic), whatever they encode.
  const int n = comm.size();
  std::vector<char> recv(bytes * static_cast<size_t>(n));
  DeviceBuffer dsend(be, bytes), drecv(be, recv.size());
  be.copy_h2d(dsend.get(), send.data(), bytes, StreamKind::Comm);
  comm.collective(CollectiveOp::AllGather, dsend.get(), drecv.get(), bytes / sizeof(int32_t), DType::I32, 0,
                  StreamKind::Comm);
  be.copy_d2h(recv.data(), drecv.get(), recv.size(), StreamKind::Comm);
  be.synchronize(StreamKind::Comm);

  std::vector<ReplicaTotals> all(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    const char* p = recv.data() + bytes * static_cast<size_t>(r);
    PackedTotals h;
    std::memcpy(&h, p, sizeof h);
    MG_ENSURE(h.steps == steps && h.buckets == buckets,
              "replica " + std::to_string(r) + " timed " + std::to_string(h.steps) + " steps and " +
                  std::to_string(h.buckets) + " buckets, this one " + std::to_string(steps) + " and " +
                  std::to_string(buckets));
    ReplicaTotals& t = all[static_cast<size_t>(r)];
    t.loss = h.loss;
    t.overflow_steps = h.overflow_steps;
    t.peak_memory_bytes = h.peak_memory_bytes;
    t.device_memory_in_use_bytes = h.device_memory_in_use_bytes;
    t.window_s = h.window_s;
    t.checksum = h.checksum;
    t.samples.resize(steps);
    t.bucket_time_s.resize(buckets);
    std::memcpy(t.samples.data(), p + sizeof h, steps * sizeof(StepBreakdown));
    std::memcpy(t.bucket_time_s.data(), p + sizeof h + steps * sizeof(StepBreakdown), buckets * sizeof(double));
  }
  return all;
}

DeviceCountResult merge_replicas(DeviceCountResult r, const std::vector<ReplicaTotals>& world,
                                 const std::vector<ReplicaOutput>& local) {
  MG_ENSURE(!world.empty() && !local.empty(), "a merge needs at least one replica");
  const double replicas = static_cast<double>(world.size());
  const size_t steps = world[0].samples.size();

  // Per timed step, the mean over every replica of each part and of the step time.
  r.samples.assign(steps, StepBreakdown{});
  for (size_t s = 0; s < steps; ++s) {
    StepBreakdown& m = r.samples[s];
    for (const ReplicaTotals& t : world) {
      for (const BreakdownPart& part : kBreakdownParts) m.*part.field += t.samples[s].*part.field;
      m.total += t.samples[s].total;
    }
    for (const BreakdownPart& part : kBreakdownParts) m.*part.field /= replicas;
    m.total /= replicas;
  }
  double loss = 0, overflow = 0;
  for (const ReplicaTotals& t : world) {
    loss += t.loss;
    overflow += static_cast<double>(t.overflow_steps);
    r.peak_memory_bytes = std::max(r.peak_memory_bytes, t.peak_memory_bytes);
    r.device_memory_in_use_bytes = std::max(r.device_memory_in_use_bytes, t.device_memory_in_use_bytes);
    r.timed_wall_s = std::max(r.timed_wall_s, t.window_s);
    r.replica_checksums.push_back(t.checksum);
  }
  r.final_loss = loss / replicas;
  r.overflow_steps = static_cast<int64_t>(overflow / replicas);
  r.wall_s = 0;
  for (const StepBreakdown& s : r.samples) r.wall_s += s.total;

  // The profile: this process's replicas, mean over timed steps (each replica timed the same layers).
  r.gradient_layers = local[0].layers;
  for (size_t l = 0; l < r.gradient_layers.size(); ++l) {
    double sum = 0;
    for (const ReplicaOutput& o : local) sum += l < o.layers.size() ? o.layers[l].ready_s : 0.0;
    r.gradient_layers[l].ready_s = steps > 0 ? sum / (static_cast<double>(steps) * local.size()) : 0.0;
  }

  r.wire_casts = local[0].wire_casts;
  r.layer_times = local[0].layer_times;

  // Buckets: the layout is the same on every replica; the time is the mean over replicas (none when no
  // collective ran).
  const ReplicaOutput& first = local[0];
  r.allreduce.dtype = first.wire_dtype;
  r.allreduce.bytes_per_step = first.wire_bytes;
  r.allreduce.buckets = static_cast<int>(first.bucket_bytes.size());
  r.allreduce.per_bucket.clear();
  for (size_t k = 0; k < first.bucket_bytes.size(); ++k) {
    BucketTiming bt;
    bt.bytes = first.bucket_bytes[k];
    if (r.allreduce.library != "none") {
      for (const ReplicaTotals& t : world) bt.time_s += k < t.bucket_time_s.size() ? t.bucket_time_s[k] : 0.0;
      bt.time_s /= replicas;
    }
    for (const GradientLayer& g : r.gradient_layers)
      if (g.layer == first.bucket_ready_layer[k]) bt.ready_s = g.ready_s;
    r.allreduce.per_bucket.push_back(bt);
  }

  r.skipped_images = 0;
  r.trace.clear();
  for (const ReplicaOutput& o : local) {
    r.skipped_images += o.skipped_images;
    r.trace.insert(r.trace.end(), o.trace.begin(), o.trace.end());
  }
  return r;
}

}  // namespace mg
