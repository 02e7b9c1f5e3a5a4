// The run description: everything one mgbench invocation was asked to do, resolved from the command line and
// --config presets.
// Built by src/cli, consumed by the trainer and recorded verbatim in the JSON result.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_algo.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/name_table.h"
#include "core/transport_kind.h"

namespace mg {

// Each enum's one name table: its command-line spelling is also its JSON value (result/run_config_fields.h).
enum class Scaling { Weak, Strong };
inline constexpr NameTable<Scaling, 2> kScalingNames{{{{"weak", Scaling::Weak}, {"strong", Scaling::Strong}}}};

// The update rule (--optimizer): SGD with momentum, or AdamW (decoupled weight decay); Backend states both.
enum class Optimizer { Sgd, AdamW };
inline constexpr NameTable<Optimizer, 2> kOptimizerNames{{{{"sgd", Optimizer::Sgd}, {"adamw", Optimizer::AdamW}}}};

// Ring: the library's all-reduce; Ps: reduce to rank 0, then broadcast from it (a parameter server); None: none.
enum class AllreduceMode { Ring, None, Ps };
inline constexpr NameTable<AllreduceMode, 3> kAllreduceModeNames{
    {{{"ring", AllreduceMode::Ring}, {"none", AllreduceMode::None}, {"ps", AllreduceMode::Ps}}}};

// Synthetic data: Device keeps one batch on the device; Host stages a fresh batch every step like real data.
enum class SyntheticSource { Device, Host };
inline constexpr NameTable<SyntheticSource, 2> kSyntheticSourceNames{
    {{{"device", SyntheticSource::Device}, {"host", SyntheticSource::Host}}}};

// --nccl-algo: the NCCL_ALGO value set before NCCL starts.
enum class NcclAlgo { Ring, Tree, Auto };
inline constexpr NameTable<NcclAlgo, 3> kNcclAlgoNames{
    {{{"ring", NcclAlgo::Ring}, {"tree", NcclAlgo::Tree}, {"auto", NcclAlgo::Auto}}}};

// The element types gradients can travel in (--allreduce-dtype); spelled as dtype_name spells them.
inline constexpr NameTable<DType, 3> kAllreduceDTypeNames{
    {{{"fp32", DType::F32}, {"fp16", DType::F16}, {"bf16", DType::BF16}}}};

struct RunConfig {
  // what to train
  std::string model = "resnet50";
  int64_t image_size = 0;  // 0 = the model's default
  int64_t seq_len = 0;     // a language model's tokens per sequence; 0 = the model's default
  int64_t num_classes = 1000;
  Precision precision = Precision::FP32;

  // where
  DeviceKind device = DeviceKind::Cpu;
  std::vector<int> device_counts = {1};  // the sweep (--gpus / --devices)
  bool device_counts_defaulted = false;   // not given: under a launcher the world size replaces them
  std::vector<int> gpu_ids;              // ordinals to use, in order (default 0..N-1)
  bool no_baseline = false;              // do not add a 1-device run when the list lacks one
  int threads = 0;                       // CPU threads per process (0 = all cores)
  int threads_per_replica = 0;           // 0 = threads / replicas
  CpuConvAlgo cpu_conv_algo = CpuConvAlgo::Fastest;  // --cpu-conv-algo (core/conv_algo.h)

  // how long
  int64_t batch_size = 32;  // per device (weak) or global (strong)
  Scaling scaling = Scaling::Weak;
  int steps = 20;
  int warmup = 5;
  int repeat = 1;
  int runs = 1;  // whole benchmark repeated in this many fresh processes and pooled (comm/rendezvous/child_runs.h)
  bool forward_only = false;
  bool input_only = false;
  bool layer_times = false;  // time each layer in the last warm-up step (DeviceCountResult::layer_times)
  // Calibration only (scripts/ci-regression.sh --calibrate): each timed step busy-waits this fraction of its own
  // measured time, so the run is slower by a known amount. 0 = off; recorded in the result when used.
  double inject_slowdown = 0;

  // optimizer (the CLI's defaults for lr and weight decay are SGD's here, torch.optim.AdamW's for AdamW)
  Optimizer optimizer = Optimizer::Sgd;
  float lr = 0.01f;
  float momentum = 0.9f;  // SGD only
  float weight_decay = 1e-4f;
  float adam_beta1 = 0.9f, adam_beta2 = 0.999f, adam_eps = 1e-8f;  // AdamW only
  float loss_scale = 65536.0f;  // fp16 initial dynamic loss scale

  // data
  std::string data = "synthetic";          // synthetic | DIR | FILE.mgrec
  SyntheticSource synthetic_source = SyntheticSource::Device;
  int data_threads = 2;
  int staging_depth = 2;
  uint64_t seed = 1;
  bool skip_bad_images = false;

  // gradients and communication
  double bucket_mb = 25;
  bool overlap = true;
  std::optional<DType> allreduce_dtype;  // none = the gradients' dtype (fp32); JSON ""
  int accum_steps = 1;
  AllreduceMode allreduce = AllreduceMode::Ring;
  std::optional<NcclAlgo> nccl_algo;  // none = leave NCCL_ALGO as the user set it; JSON ""
  double comm_timeout_s = 300;
  std::vector<Transport> transports;  // parse_transports at the CLI; empty = as the environment is
  std::string gloo_iface;

  // output
  std::string json_path;
  std::string trace_path;
  std::string config_file;
  std::string command_line;
  bool progress = true;  // only shown on a TTY
  bool check = true;     // correctness check of the model's layers and training before timing (--no-check)
};

}  // namespace mg
