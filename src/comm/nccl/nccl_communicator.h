// NcclCommunicator: the Communicator seam on NCCL, collectives enqueued on the backend's CUDA streams.
//
// Communicators are non-blocking (ncclConfig_t.blocking = 0) and each one has a watchdog thread: every
// collective records an event after it, and when one has not completed within timeout_s, or NCCL reports an
// asynchronous error (a peer's connection broke), the watchdog aborts the communicator. Aborting makes the
// stuck NCCL kernels return, so no stream waits forever on a lost peer; the stored error is thrown by the next
// collective() or barrier() on that rank.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "comm/communicator.h"
#include "comm/rendezvous/store.h"

namespace mg {

// One communicator per local backend (CUDA), global ranks first_rank .. first_rank + local.size() - 1 of a
// world of world_size ranks. The process holding rank 0 creates the NCCL unique id and publishes it in the
// store under `key`; the others read it from there (waiting up to timeout_s). The local communicators are
// initialised together (ncclGroupStart/End) and must be destroyed by the same process; they are finalised when
// the last of them is destroyed. NCCL_* environment variables (NCCL_ALGO, ...) must be set before the call.
std::vector<std::unique_ptr<Communicator>> create_nccl_communicators(int world_size, int first_rank,
                                                                     const std::vector<Backend*>& local,
                                                                     Store& store, const std::string& key,
                                                                     double timeout_s);

}  // namespace mg
