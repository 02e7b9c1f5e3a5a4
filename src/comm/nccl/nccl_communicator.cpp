#include "comm/nccl/nccl_communicator.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "backend/cuda/cuda_check.h"
#include "comm/nccl/nccl_check.h"
#include "core/error.h"

namespace mg {

namespace {

using Clock = std::chrono::steady_clock;

ncclDataType_t nccl_dtype(DType dt) {
  switch (dt) {
    case DType::F32: return ncclFloat32;
    case DType::F16: return ncclFloat16;
    case DType::BF16: return ncclBfloat16;
    case DType::I32: return ncclInt32;
  }
  throw Error("NCCL: unknown element type");
}

// Polls a non-blocking communicator until its pending operation (init, connect, finalize) leaves
// ncclInProgress. Returns the final state, or ncclInProgress when the deadline passed first.
ncclResult_t wait_state(ncclComm_t comm, Clock::time_point deadline) {
  ncclResult_t state = ncclInProgress;
  while (true) {
    const ncclResult_t r = ncclCommGetAsyncError(comm, &state);
    if (r != ncclSuccess) return r;
    if (state != ncclInProgress) return state;
    if (Clock::now() > deadline) return ncclInProgress;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

Clock::time_point deadline_after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// The communicators one process created together. NCCL's finalize/destroy are collective among the local
// ranks, so they are torn down together when the last local communicator goes, not one by one (which would
// wait for peers that are not being destroyed yet).
struct LocalGroup {
  std::vector<ncclComm_t> comms;
  std::vector<int> devices;
  std::vector<std::unique_ptr<std::mutex>> mu;  // per comm: enqueue vs abort
  std::vector<char> aborted;
  double timeout_s = 300;

  // Caller holds mu[i].
  void abort_locked(size_t i) {
    if (aborted[i]) return;
    aborted[i] = 1;
    (void)cudaSetDevice(devices[i]);
    (void)ncclCommAbort(comms[i]);  // tearing down after a failure: its own error adds nothing
  }

  ~LocalGroup() {
    const auto deadline = deadline_after(timeout_s);
    std::vector<char> finalizing(comms.size(), 0);
    for (size_t i = 0; i < comms.size(); ++i) {
      if (aborted[i]) continue;
      (void)cudaSetDevice(devices[i]);
      const ncclResult_t r = ncclCommFinalize(comms[i]);
      finalizing[i] = (r == ncclSuccess || r == ncclInProgress) ? 1 : 0;
    }
    for (size_t i = 0; i < comms.size(); ++i) {
      if (aborted[i]) continue;
      (void)cudaSetDevice(devices[i]);
      if (finalizing[i] && wait_state(comms[i], deadline) == ncclSuccess) {
        (void)ncclCommDestroy(comms[i]);
      } else {
        (void)ncclCommAbort(comms[i]);  // a peer never finalised: free what we can without it
      }
    }
  }
};

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(std::shared_ptr<LocalGroup> group, size_t index, int rank, int size, Backend* be)
      : Communicator(*be), group_(std::move(group)), index_(index), comm_(group_->comms[index]),
        device_(group_->devices[index]), rank_(rank), size_(size), timeout_s_(group_->timeout_s) {
    backend().attach_thread();
    barrier_buf_ = backend().device_alloc(sizeof(float));
    watchdog_ = std::thread([this] { watch(); });
  }

  ~NcclCommunicator() override {
    {
      std::lock_guard<std::mutex> lk(wd_mu_);
      stop_ = true;
    }
    wd_cv_.notify_all();
    watchdog_.join();
    (void)cudaSetDevice(device_);
    // Nothing may still use the events destroyed below; a collective stuck past the timeout is aborted first.
    const auto deadline = deadline_after(timeout_s_);
    for (auto& p : pending_) {
      while (cudaEventQuery(p.ev) == cudaErrorNotReady && Clock::now() < deadline && !failed_.load()) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      if (cudaEventQuery(p.ev) == cudaErrorNotReady) {
        std::lock_guard<std::mutex> g(*group_->mu[index_]);
        fail_locked("NCCL communicator of rank " + std::to_string(rank_) + " destroyed with a stuck collective");
      }
      (void)cudaEventSynchronize(p.ev);
    }
    for (auto& p : pending_) (void)cudaEventDestroy(p.ev);
    for (cudaEvent_t e : free_events_) (void)cudaEventDestroy(e);
    try {
      backend().device_free(barrier_buf_);
    } catch (const std::exception&) {
      // the backend frees what is left when it goes
    }
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string library() const override { return "nccl"; }

  void collective(CollectiveOp op, const void* send, void* recv, size_t count, DType dt, int root,
                  StreamKind s) override {
    if (op == CollectiveOp::Broadcast && (root < 0 || root >= size_)) {
      throw UsageError("broadcast root " + std::to_string(root) + " outside [0, " + std::to_string(size_) + ")");
    }
    throw_if_failed();
    auto st = static_cast<cudaStream_t>(backend().native_stream(s));
    const ncclDataType_t t = nccl_dtype(dt);
    MG_CHECK_CUDA(cudaSetDevice(device_));  // NCCL enqueues on the current device's context
    ncclResult_t r = ncclSuccess;
    {
      // The lock orders this call against an abort from another thread; it is not held while waiting below,
      // so an abort (watchdog, failing peer replica) is never delayed by a slow enqueue.
      std::lock_guard<std::mutex> lk(*group_->mu[index_]);
      throw_if_failed();
      switch (op) {
        case CollectiveOp::AllReduce: r = ncclAllReduce(send, recv, count, t, ncclSum, comm_, st); break;
        case CollectiveOp::ReduceScatter: r = ncclReduceScatter(send, recv, count, t, ncclSum, comm_, st); break;
        case CollectiveOp::AllGather: r = ncclAllGather(send, recv, count, t, comm_, st); break;
        case CollectiveOp::Broadcast: r = ncclBroadcast(send, recv, count, t, root, comm_, st); break;
        case CollectiveOp::Reduce: r = ncclReduce(send, recv, count, t, ncclSum, root, comm_, st); break;
      }
    }
    // Non-blocking communicators may still be connecting (NCCL connects lazily on first use).
    if (r == ncclInProgress) r = poll_state(deadline_after(timeout_s_));
    if (r == ncclInProgress) {
      fail(std::string("NCCL ") + collective_name(op) + " on rank " + std::to_string(rank_) +
           " could not be enqueued within " + std::to_string(static_cast<int>(timeout_s_)) +
           " s (--comm-timeout): a peer rank is missing");
    }
    if (r != ncclSuccess) {
      fail(std::string("NCCL ") + collective_name(op) + " on rank " + std::to_string(rank_) + " failed: " +
           nccl_error_detail(r));
    }
    track(st, collective_name(op));
  }

  void barrier() override {
    throw_if_failed();
    auto st = static_cast<cudaStream_t>(backend().native_stream(StreamKind::Comm));
    collective(CollectiveOp::AllReduce, barrier_buf_, barrier_buf_, 1, DType::F32, 0, StreamKind::Comm);
    cudaEvent_t ev = nullptr;
    MG_CHECK_CUDA(cudaSetDevice(device_));
    MG_CHECK_CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    MG_CHECK_CUDA(cudaEventRecord(ev, st));
    // The watchdog aborts a stuck barrier like any collective; poll so this thread notices that too.
    while (true) {
      const cudaError_t q = cudaEventQuery(ev);
      if (q == cudaSuccess) break;
      if (q != cudaErrorNotReady || failed_.load()) {
        (void)cudaEventDestroy(ev);
        throw_if_failed();
        MG_CHECK_CUDA(q);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    MG_CHECK_CUDA(cudaEventDestroy(ev));
    throw_if_failed();
  }

  void abort() override {
    std::lock_guard<std::mutex> lk(*group_->mu[index_]);
    fail_locked("NCCL communicator of rank " + std::to_string(rank_) + " was aborted");
  }

 private:
  struct Pending {
    cudaEvent_t ev;
    Clock::time_point enqueued;
    const char* what;
  };

  void track(cudaStream_t st, const char* what) {
    MG_CHECK_CUDA(cudaSetDevice(device_));
    std::lock_guard<std::mutex> lk(wd_mu_);
    cudaEvent_t ev = nullptr;
    if (!free_events_.empty()) {
      ev = free_events_.back();
      free_events_.pop_back();
    } else {
      MG_CHECK_CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    }
    MG_CHECK_CUDA(cudaEventRecord(ev, st));
    pending_.push_back({ev, Clock::now(), what});
  }

  // Polls the communicator's state until it leaves ncclInProgress or the deadline passes, taking the lock only
  // around each query: an abort from another thread gets in between, and once aborted the communicator is
  // freed, so it is not queried again (the abort's error is thrown instead).
  ncclResult_t poll_state(Clock::time_point deadline) {
    while (true) {
      ncclResult_t state = ncclInProgress;
      {
        std::lock_guard<std::mutex> lk(*group_->mu[index_]);
        throw_if_failed();
        const ncclResult_t q = ncclCommGetAsyncError(comm_, &state);
        if (q != ncclSuccess) return q;
      }
      if (state != ncclInProgress) return state;
      if (Clock::now() > deadline) return ncclInProgress;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  // Records the error, aborts, and throws (the first error if another thread failed first).
  [[noreturn]] void fail(const std::string& msg) {
    {
      std::lock_guard<std::mutex> lk(*group_->mu[index_]);
      fail_locked(msg);
    }
    throw_if_failed();
    throw Error(msg);  // not reached: fail_locked set failed_
  }

  // Caller holds group_->mu[index_]. Keeps the first error; aborting unblocks every kernel of this comm.
  void fail_locked(const std::string& msg) {
    {
      std::lock_guard<std::mutex> lk(err_mu_);
      if (error_.empty()) error_ = msg;
    }
    failed_ = true;
    group_->abort_locked(index_);
  }

  void throw_if_failed() {
    if (!failed_.load()) return;
    std::lock_guard<std::mutex> lk(err_mu_);
    throw Error(error_);
  }

  void watch() {
    (void)cudaSetDevice(device_);  // else the runtime would create a context on device 0 for this thread
    std::unique_lock<std::mutex> lk(wd_mu_);
    while (!stop_) {
      wd_cv_.wait_for(lk, std::chrono::milliseconds(50));
      if (stop_ || failed_.load()) continue;
      std::string problem;
      ncclResult_t async = ncclSuccess;
      {
        // Under the communicator's lock: another thread may be aborting it, after which it is freed.
        std::lock_guard<std::mutex> g(*group_->mu[index_]);
        if (group_->aborted[index_]) continue;
        if (ncclCommGetAsyncError(comm_, &async) == ncclSuccess && async != ncclSuccess && async != ncclInProgress) {
          problem = "NCCL reported an asynchronous error on rank " + std::to_string(rank_) + ": " +
                    nccl_error_detail(async) + " (a peer rank was lost?)";
        }
      }
      while (problem.empty() && !pending_.empty()) {
        const Pending& p = pending_.front();
        const cudaError_t q = cudaEventQuery(p.ev);
        if (q == cudaSuccess) {
          free_events_.push_back(p.ev);
          pending_.pop_front();
          continue;
        }
        if (q != cudaErrorNotReady) {
          problem = std::string("CUDA error while waiting for NCCL ") + p.what + " on rank " +
                    std::to_string(rank_) + ": " + cudaGetErrorString(q);
        } else if (std::chrono::duration<double>(Clock::now() - p.enqueued).count() > timeout_s_) {
          problem = std::string("NCCL ") + p.what + " on rank " + std::to_string(rank_) + " did not complete within " +
                    std::to_string(static_cast<int>(timeout_s_)) + " s (--comm-timeout): a peer rank was lost or stalled";
        }
        break;
      }
      if (!problem.empty()) {
        lk.unlock();
        {
          std::lock_guard<std::mutex> g(*group_->mu[index_]);
          fail_locked(problem);
        }
        lk.lock();
      }
    }
  }

  std::shared_ptr<LocalGroup> group_;
  size_t index_;
  ncclComm_t comm_;
  int device_;
  int rank_, size_;
  double timeout_s_;
  void* barrier_buf_ = nullptr;

  std::mutex wd_mu_;
  std::condition_variable wd_cv_;
  bool stop_ = false;
  std::deque<Pending> pending_;
  std::vector<cudaEvent_t> free_events_;
  std::thread watchdog_;

  std::atomic<bool> failed_{false};
  std::mutex err_mu_;
  std::string error_;
};

}  // namespace

std::vector<std::unique_ptr<Communicator>> create_nccl_communicators(int world_size, int first_rank,
                                                                     const std::vector<Backend*>& local,
                                                                     Store& store, const std::string& key,
                                                                     double timeout_s) {
  if (local.empty()) throw UsageError("NCCL: no local devices");
  if (world_size < 1 || first_rank < 0 || first_rank + static_cast<int>(local.size()) > world_size) {
    throw UsageError("NCCL: ranks " + std::to_string(first_rank) + ".." +
                     std::to_string(first_rank + static_cast<int>(local.size()) - 1) + " do not fit a world of " +
                     std::to_string(world_size));
  }
  if (!(timeout_s > 0)) throw UsageError("--comm-timeout must be positive");
  for (Backend* be : local) {
    if (!be || be->kind() != DeviceKind::Cuda) throw UsageError("NCCL needs CUDA devices (use Gloo on the CPU)");
  }

  const std::string id_key = key + "/nccl_unique_id";
  ncclUniqueId id;
  if (first_rank == 0) {
    MG_CHECK_NCCL(ncclGetUniqueId(&id));
    std::vector<uint8_t> bytes(sizeof(id));
    std::memcpy(bytes.data(), &id, sizeof(id));
    store.set(id_key, bytes);
  } else {
    const auto ms = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000.0));
    std::vector<uint8_t> bytes = store.get(id_key, ms);
    if (bytes.size() != sizeof(id)) {
      throw Error("NCCL: the unique id under '" + id_key + "' has " + std::to_string(bytes.size()) +
                  " bytes, expected " + std::to_string(sizeof(id)) + " (different NCCL versions across ranks?)");
    }
    std::memcpy(&id, bytes.data(), sizeof(id));
  }

  auto group = std::make_shared<LocalGroup>();
  group->timeout_s = timeout_s;
  const size_t n = local.size();
  group->comms.assign(n, nullptr);
  group->aborted.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    group->devices.push_back(local[i]->info().ordinal);
    group->mu.push_back(std::make_unique<std::mutex>());
  }

  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  MG_CHECK_NCCL(ncclGroupStart());
  ncclResult_t init_error = ncclSuccess;
  for (size_t i = 0; i < n && init_error == ncclSuccess; ++i) {
    local[i]->attach_thread();
    const ncclResult_t r =
        ncclCommInitRankConfig(&group->comms[i], world_size, id, first_rank + static_cast<int>(i), &config);
    if (r != ncclSuccess && r != ncclInProgress) init_error = r;
  }
  const ncclResult_t ge = ncclGroupEnd();
  if (init_error == ncclSuccess && ge != ncclSuccess && ge != ncclInProgress) init_error = ge;

  const auto deadline = deadline_after(timeout_s);
  std::string problem;
  if (init_error != ncclSuccess) {
    problem = "NCCL communicator initialisation failed: " + nccl_error_detail(init_error);
  } else {
    for (size_t i = 0; i < n && problem.empty(); ++i) {
      const ncclResult_t st = wait_state(group->comms[i], deadline);
      if (st == ncclInProgress) {
        problem = "NCCL communicator initialisation of rank " + std::to_string(first_rank + static_cast<int>(i)) +
                  " did not finish within " + std::to_string(static_cast<int>(timeout_s)) +
                  " s (--comm-timeout): not every rank of the world of " + std::to_string(world_size) + " joined";
      } else if (st != ncclSuccess) {
        problem = "NCCL communicator initialisation of rank " + std::to_string(first_rank + static_cast<int>(i)) +
                  " failed: " + nccl_error_detail(st);
      }
    }
  }
  if (!problem.empty()) {
    for (size_t i = 0; i < n; ++i) {
      if (group->comms[i]) {
        group->abort_locked(i);
      } else {
        group->aborted[i] = 1;  // never created: nothing to finalise
      }
    }
    throw Error(problem);
  }

  std::vector<std::unique_ptr<Communicator>> out;
  for (size_t i = 0; i < n; ++i) {
    out.push_back(std::make_unique<NcclCommunicator>(group, i, first_rank + static_cast<int>(i), world_size, local[i]));
  }
  return out;
}

}  // namespace mg
