#include "check/system_check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

#include "backend/device_buffer.h"
#include "check/failed_row.h"
#include "comm/world.h"
#include "core/error.h"
#include "core/half.h"
#include "models/registry.h"
#include "train/device_plan.h"
#include "train/fixed_batch_training.h"
#include "train/model_graph.h"
#include "train/param_store.h"

namespace mg::check {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kTrainingSteps = 40;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

float from_wire(const uint8_t* p, DType dt) {
  if (dt == DType::F32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return dt == DType::BF16 ? bf16_to_float(h) : fp16_to_float(h);
}

void to_wire(uint8_t* p, float v, DType dt) {
  if (dt == DType::F32) {
    std::memcpy(p, &v, 4);
    return;
  }
  const uint16_t h = dt == DType::BF16 ? float_to_bf16(v) : float_to_fp16(v);
  std::memcpy(p, &h, 2);
}

}  // namespace

std::vector<CheckRow> check_collectives(DeviceKind kind, int devices) {
  std::vector<CheckRow> rows;
  const std::string where = std::to_string(devices) + " " + device_kind_name(kind) + " device" +
                            (devices == 1 ? "" : "s");
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<std::unique_ptr<Communicator>> comms;
  try {
    BackendOptions bopt;
    bopt.threads = 1;
    std::vector<Backend*> raw;
    for (int i = 0; i < devices; ++i) {
      backends.push_back(make_backend(kind, i, bopt));
      raw.push_back(backends.back().get());
    }
    if (devices > 1 || kind == DeviceKind::Cuda) {
      CommOptions copt;
      copt.library = comm_library(kind);
      copt.timeout_s = 60;
      copt.job_key = "mgbench-check";
      comms = create_communicators(LaunchInfo{}, raw, copt);
    }
  } catch (const std::exception& e) {
    CheckRow r;
    r.group = "collectives";
    r.name = "communicators over " + where;
    r.metric = "wrong";
    r.error = INFINITY;
    r.detail = std::string("could not create them: ") + e.what();
    rows.push_back(r);
    return rows;
  }
  if (comms.empty()) return rows;  // one CPU device: nothing to exchange

  for (CollectiveOp op : {CollectiveOp::AllReduce, CollectiveOp::Broadcast}) {
    for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
      const size_t count = 262147;  // odd: no size that only a vectorised path handles
      std::vector<int64_t> wrong(devices, 0);
      std::vector<std::string> errors(devices);
      std::vector<std::thread> threads;
      for (int r = 0; r < devices; ++r) {
        threads.emplace_back([&, r] {
          try {
            Backend& be = *backends[r];
            be.attach_thread();
            // Small integers: exact in bf16 (up to 256) for the sum over up to 85 ranks.
            std::vector<uint8_t> host(count * dtype_size(dt));
            for (size_t i = 0; i < count; ++i) {
              const float v = op == CollectiveOp::AllReduce ? static_cast<float>(i % 3 + 1)
                                                            : (r == 0 ? static_cast<float>(i % 251 + 1) : -1.0f);
              to_wire(host.data() + i * dtype_size(dt), v, dt);
            }
            DeviceBuffer buf(be, host.size());
            be.copy_h2d(buf.get(), host.data(), host.size(), StreamKind::Comm);
            comms[r]->collective(op, buf.get(), buf.get(), count, dt, 0, StreamKind::Comm);
            be.copy_d2h(host.data(), buf.get(), host.size(), StreamKind::Comm);
            be.synchronize(StreamKind::Comm);
            for (size_t i = 0; i < count; ++i) {
              const float want = op == CollectiveOp::AllReduce ? static_cast<float>((i % 3 + 1) * devices)
                                                               : static_cast<float>(i % 251 + 1);
              if (from_wire(host.data() + i * dtype_size(dt), dt) != want) ++wrong[r];
            }
          } catch (const std::exception& e) {
            errors[r] = e.what();
            for (auto& c : comms) c->abort();
          }
        });
      }
      for (auto& t : threads) t.join();
      CheckRow row;
      row.group = op == CollectiveOp::AllReduce ? "allreduce" : "broadcast";
      row.name = std::string(collective_name(op)) + " of " + std::to_string(count) + " elements over " + where;
      row.precision = dtype_name(dt);
      row.metric = "wrong";
      row.tolerance = 0;
      for (int r = 0; r < devices; ++r) row.error += static_cast<double>(wrong[r]);
      row.detail = std::string("library ") + comms[0]->library();
      for (int r = 0; r < devices; ++r) {
        if (!errors[r].empty()) {
          row.error = INFINITY;
          row.detail = "rank " + std::to_string(r) + " failed: " + errors[r];
          break;
        }
      }
      row.passed = row.error == 0;
      rows.push_back(row);
      if (std::isinf(row.error)) return rows;  // the communicators are aborted
    }
  }
  return rows;
}

CheckRow check_staging_overlap(Backend& be) {
  CheckRow row;
  row.group = "staging";
  row.name = "host->device copy overlaps compute";
  row.metric = "overlap";
  row.tolerance = 0.5;
  // A GPU's copy engine runs beside its SMs, so the copy must save time: overlap = (copy + compute - together)
  // / min(copy, compute). CPU "streams" are threads sharing the cores with everything else on the machine, so
  // saved time depends on the load; there the check is that the two really run at the same time: the part of
  // the shorter one during which the other was running too (from the streams' events).
  const bool gpu = be.kind() == DeviceKind::Cuda;
  try {
    be.attach_thread();
    const size_t bytes = size_t{64} << 20;
    const int64_t n = 1 << 22;  // compute buffer: 16 MiB of fp32
    void* host = be.host_alloc_pinned(bytes);
    struct Pinned {
      Backend& be;
      void* p;
      ~Pinned() { be.host_free_pinned(p); }
    } pinned{be, host};
    std::memset(host, 1, bytes);
    DeviceBuffer dst(be, bytes), work(be, static_cast<size_t>(n) * sizeof(float));
    const Tensor t = work.tensor(Shape{n}, DType::F32);
    be.fill(t, 1.0f);
    auto base = be.create_event(), c0 = be.create_event(), c1 = be.create_event(), k0 = be.create_event(),
         k1 = be.create_event();
    auto copy = [&] {
      be.record(*c0, StreamKind::Copy);
      be.copy_h2d(dst.get(), host, bytes, StreamKind::Copy);
      be.record(*c1, StreamKind::Copy);
    };
    copy();  // first touch of the destination pages
    be.synchronize(StreamKind::Copy);
    be.synchronize(StreamKind::Compute);
    auto time_copy = [&] {
      const auto t0 = Clock::now();
      copy();
      be.synchronize(StreamKind::Copy);
      return seconds_since(t0);
    };
    int reps = 1;
    auto compute = [&] {
      be.record(*k0, StreamKind::Compute);
      for (int i = 0; i < reps; ++i) be.scale(t, 1.0f);
      be.record(*k1, StreamKind::Compute);
    };
    auto time_compute = [&] {
      const auto t0 = Clock::now();
      compute();
      be.synchronize(StreamKind::Compute);
      return seconds_since(t0);
    };
    time_compute();  // module load and first launch
    // Grow the compute until it lasts about as long as the copy: one timed launch is mostly launch and synchronise
    // overhead on a fast GPU (calibrated from one launch, an H100 got 0.2 ms of compute against a 1.3 ms copy).
    const double copy_s = time_copy();
    constexpr int kMaxReps = 1 << 14;
    for (double k = time_compute(); k < 0.9 * copy_s && reps < kMaxReps; k = time_compute())
      reps = std::min(kMaxReps, std::max(2 * reps, static_cast<int>(reps * copy_s / std::max(k, 1e-9))));
    double best = -INFINITY, tc = 0, tk = 0, tb = 0;
    for (int trial = 0; trial < 3; ++trial) {
      const double c = time_copy();
      const double k = time_compute();
      be.record(*base, StreamKind::Compute);
      const auto t0 = Clock::now();
      copy();
      compute();
      be.synchronize(StreamKind::Compute);
      be.synchronize(StreamKind::Copy);
      const double b = seconds_since(t0);
      double overlap = (c + k - b) / std::max(1e-9, std::min(c, k));
      if (!gpu) {
        const double cb = be.elapsed_seconds(*base, *c0), ce = be.elapsed_seconds(*base, *c1);
        const double kb = be.elapsed_seconds(*base, *k0), ke = be.elapsed_seconds(*base, *k1);
        overlap = std::max(0.0, std::min(ce, ke) - std::max(cb, kb)) / std::max(1e-9, std::min(ce - cb, ke - kb));
      }
      if (overlap > best) {
        best = overlap;
        tc = c;
        tk = k;
        tb = b;
      }
    }
    row.error = best;
    row.passed = best >= row.tolerance;
    char buf[200];
    std::snprintf(buf, sizeof(buf), "copy %.1f ms, compute %.1f ms, together %.1f ms (64 MiB from pinned memory); ",
                  tc * 1e3, tk * 1e3, tb * 1e3);
    row.detail = std::string(buf) + (gpu ? "overlap = time saved / min(copy, compute)"
                                         : "overlap = time both ran at once / min(copy, compute)");
  } catch (const std::exception& e) {
    mark_failed(row, 0, "failed to run: ", e);
  }
  return row;
}

std::vector<float> train_tiny(Backend& be, Precision p, int steps) {
  be.attach_thread();
  const int classes = 4;
  const ModelDesc m = build_model("tiny", classes);
  const int64_t batch = 8, image = m.default_image_size;
  ModelGraph net(be, m, batch, image, p, 1, true);
  ParamStore store(be, net.param_shapes());
  store.initialize(3);
  net.bind(store);
  const UniformImageBatch b = uniform_image_batch(be, batch, image, classes);
  return fixed_batch_sgd_losses(be, net, store, b.x, b.y, steps, 0.1f);
}

CheckRow check_training(Backend& be, Precision p) {
  CheckRow row;
  row.group = "training";
  row.name = "tiny network, " + std::to_string(kTrainingSteps) + " steps on one batch";
  row.precision = precision_name(p);
  row.metric = "loss last/first";
  row.tolerance = 0.6;
  try {
    const std::vector<float> losses = train_tiny(be, p, kTrainingSteps);
    for (size_t s = 0; s < losses.size(); ++s)
      if (!std::isfinite(losses[s])) throw Error("loss became non-finite at step " + std::to_string(s + 1));
    const float first = losses.front(), last = losses.back();
    row.error = first > 0 ? last / first : INFINITY;
    row.passed = row.error <= row.tolerance;
    char buf[120];
    std::snprintf(buf, sizeof(buf), "loss %.4f -> %.4f", first, last);
    row.detail = buf;
  } catch (const std::exception& e) {
    mark_failed(row, INFINITY, "failed: ", e);
  }
  return row;
}

}  // namespace mg::check
