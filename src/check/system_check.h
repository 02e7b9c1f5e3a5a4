// The parts of `mgbench check` beyond single layers: collectives over every visible device with a #wrong
// count (as nccl-tests reports), whether the Copy stream really overlaps compute, and a few training steps
// whose loss must fall. Each returns rows of the check report.
#pragma once
#include <vector>

#include "backend/backend.h"
#include "result/check_report.h"

namespace mg::check {

// All-reduce (sum) and broadcast (root 0) in fp32, fp16 and bf16 over `devices` replicas of `kind` (NCCL on
// CUDA, Gloo on CPU), on values whose results are exact in every dtype; a row per (collective, dtype) with
// the number of wrong elements over all ranks.
std::vector<CheckRow> check_collectives(DeviceKind kind, int devices);

// Copy-stream work (a host->device copy from pinned memory) and Compute-stream work of about the same length,
// alone and together, best of three trials. CUDA: overlap = (copy + compute - together) / min(copy, compute),
// the time saved. CPU (threads sharing cores with the machine's other load): the fraction of the shorter one
// during which both ran at once, from the streams' events. Passes at 0.5.
CheckRow check_staging_overlap(Backend& be);

// The tiny network trained on one fixed batch (8 images, 4 classes, SGD lr 0.1 momentum 0.9) at precision p;
// the loss of every step.
std::vector<float> train_tiny(Backend& be, Precision p, int steps);
// train_tiny for 40 steps: every loss finite and the last below 0.6 of the first (error = last / first).
CheckRow check_training(Backend& be, Precision p);

}  // namespace mg::check
