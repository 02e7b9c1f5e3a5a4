// Fully populated RunResults for the report tests: every field set to a distinct, non-default value so a
// writer or reader that drops a field is caught, and step samples drawn from a seeded RNG.
#pragma once
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "result/run_result.h"
#include "stats/summary.h"

namespace mg::test {

// A step as the trainer measures it: overlapped communication ran under backward, so it is not in the total.
inline StepBreakdown make_step(double input, double fwd, double bwd, double exposed, double overlapped, double opt) {
  return {input, fwd, bwd, exposed, overlapped, opt, input + fwd + bwd + exposed + opt};
}

// n steps whose totals are median_s * lognormal(0, rel_noise), split into the five additive parts in fixed
// proportions so they add up to the total exactly, as the trainer measures them; comm_overlapped is a share of the
// same step that ran under backward (inside it), not a sixth part.
inline std::vector<StepBreakdown> make_samples(int n, double median_s, double rel_noise, uint64_t seed,
                                               double comm_exposed_share = 0.05) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<StepBreakdown> v;
  for (int i = 0; i < n; ++i) {
    const double t = median_s * std::exp(rel_noise * normal(rng));
    StepBreakdown b;
    b.input_wait = 0.02 * t;
    b.forward = 0.30 * t;
    b.backward = (0.58 - comm_exposed_share) * t;
    b.comm_exposed = comm_exposed_share * t;
    b.comm_overlapped = 0.08 * t;  // inside backward
    b.optimizer = 0.10 * t;
    b.total = t;
    v.push_back(b);
  }
  return v;
}

inline DeviceCountResult make_run(int devices, const std::string& transport, std::vector<StepBreakdown> samples) {
  DeviceCountResult r;
  r.devices = devices;
  r.transport = transport;
  if (transport != "default") r.transport_env = {{"NCCL_P2P_DISABLE", "1"}};
  r.batch_per_device = 32;
  r.global_batch = 32 * devices;
  r.threads_per_replica = 4;
  r.wall_s = 12.5 + devices;
  r.allreduce.library = devices > 1 ? "gloo" : "none";
  r.allreduce.dtype = "fp32";
  r.allreduce.bytes_per_step = devices > 1 ? 102228128 : 0;
  r.allreduce.buckets = devices > 1 ? 2 : 0;
  if (devices > 1) r.allreduce.per_bucket = {{52428800, 0.004}, {49799328, 0.0035}};
  r.peak_memory_bytes = 3000000000ull + static_cast<size_t>(devices);
  r.conv_algorithms = {{"direct", 42}, {"winograd", 11}};
  r.device_memory_in_use_bytes = r.peak_memory_bytes + 500000000ull;
  r.final_loss = 6.75;
  r.overflow_steps = 1;
  r.skipped_images = 2;
  r.replica_checksums.assign(static_cast<size_t>(devices), 0xcbf29ce484222325ull + 17);
  r.samples = std::move(samples);
  double steps = 0;
  for (const StepBreakdown& s : r.samples) steps += s.total;
  r.timed_wall_s = steps;  // steps back to back: both rates agree, as the report tests' figures assume
  r.trace = {{0, "compute", "forward", 0.0, 0.03}, {0, "comm", "allreduce bucket 0", 0.05, 0.004}};
  return r;
}

// A complete result: a sweep over the given device counts with the given per-count median step times.
inline RunResult make_result(const std::vector<int>& counts, const std::vector<double>& medians, int steps,
                             double rel_noise, uint64_t seed, const std::string& transport = "default") {
  RunResult r;
  r.env.mgbench_version = "0.1.0";
  r.env.git_commit = "0123456789ab";
  r.env.command_line = "mgbench --device cpu --model resnet50 --gpus 1,2";
  r.env.host = "bench-host";
  r.env.cpu = "Intel(R) Xeon(R) Platinum 8480+";
  r.env.devices = {{"cpu0", 68719476736ull, "", 0}, {"cpu1", 68719476736ull, "", 1}};
  r.env.versions = {{"onednn", "3.0.0"}, {"gloo", "0.0~git20230519"}, {"driver", "535.104"}};
  r.env.env_vars = {{"OMP_NUM_THREADS", "8"}};
  r.env.launcher = "none";
  r.env.world_size = 1;
  r.env.topology = {{"numa_nodes", 2}, {"links", nlohmann::json::array({"SYS"})}};
  r.config.model = "resnet50";
  r.config.device = DeviceKind::Cpu;
  r.config.device_counts = counts;
  r.config.gpu_ids = {0, 1};
  r.config.steps = steps;
  // A run without --transport records no transports and labels its entries "default".
  if (transport != "default") r.config.transports = {kTransportNames.parse(transport, "fixture transport")};
  r.config.allreduce_dtype = DType::F32;
  r.config.nccl_algo = NcclAlgo::Ring;
  r.config.gloo_iface = "lo";
  r.config.json_path = "out.json";
  r.config.trace_path = "trace.json";
  r.config.config_file = "configs/ci-smoke.json";
  r.config.command_line = r.env.command_line;
  for (size_t i = 0; i < counts.size(); ++i) {
    r.runs.push_back(make_run(counts[i], transport, make_samples(steps, medians[i], rel_noise, seed + 7919 * i)));
    summarize(r.runs.back());
  }
  compute_scaling(r.runs);
  r.process_runs = {{1795000000.25, 1795000012.75}};
  return r;
}

// make_result as a language model's (GPT-2): its samples are sequences of tokens_per_sample tokens.
inline RunResult make_language_model_result(const std::vector<int>& counts, const std::vector<double>& medians,
                                            int steps, double rel_noise, uint64_t seed,
                                            int64_t tokens_per_sample = 256) {
  RunResult r = make_result(counts, medians, steps, rel_noise, seed);
  r.config.model = "gpt2";
  r.config.seq_len = tokens_per_sample;
  r.config.image_size = 0;
  r.config.num_classes = 50257;
  r.env.command_line = "mgbench --device cpu --model gpt2 --gpus 1,2";
  for (DeviceCountResult& d : r.runs) {
    d.tokens_per_sample = tokens_per_sample;
    summarize(d);
  }
  compute_scaling(r.runs);
  return r;
}

// A scratch folder under the build tree, emptied first.
inline std::string scratch_dir(const std::string& name) {
  const std::string dir = std::string(MG_BINARY_DIR) + "/tests/report-scratch/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace mg::test
