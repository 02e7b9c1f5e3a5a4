// A test network on the CPU backend against the same network written plainly in PyTorch (a reference script
// under tests/train/, run on the parameters and batch mgbench wrote to a scratch directory; reference_harness.py
// is what the scripts share): one fp32 forward and backward, whose logits, loss and every parameter's gradient
// must agree, and short training runs, whose losses must agree with torch.optim's step for step. Used by
// test_gpt2_torch.cpp and test_vit_torch.cpp; torch_python() is "" where python3-torch is not installed, and
// check_one_step and check_eight_steps skip the case there.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "backend/device_buffer.h"
#include "core/counter_rng.h"
#include "data/data_source.h"
#include "data/input_pipeline.h"
#include "models/registry.h"
#include "support/skip.h"
#include "support/temp_dir.h"
#include "train/model_graph.h"
#include "train/param_store.h"
#include "train/replica.h"

namespace mg::test {

template <typename T>
void write_raw(const std::string& path, const std::vector<T>& v) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
}

template <typename T>
std::vector<T> read_raw(const std::string& path, size_t n) {
  std::vector<T> v(n);
  std::ifstream f(path, std::ios::binary);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * sizeof(T)));
  REQUIRE(f.gcount() == static_cast<std::streamsize>(n * sizeof(T)));
  return v;
}

// The first of these Python interpreters that has torch and numpy (a pyenv shim may hide Debian's), or "".
inline std::string torch_python() {
  for (const std::string py : {"python3", "/usr/bin/python3"}) {
    if (std::system((py + " -c 'import torch, numpy' >/dev/null 2>&1").c_str()) == 0) return py;
  }
  return "";
}

// max |a - b| over max |b|: the error relative to the reference's scale.
inline double relative_error(const float* a, const float* b, size_t n) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < n; ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(a[i]) - b[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(b[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

// The batch a replica of m draws with `size` its image size (a language model's sequence length), as
// replica.cpp's data_spec describes it.
inline DataSpec batch_spec(const ModelDesc& m, int64_t batch, int64_t size, uint64_t seed = 1) {
  DataSpec spec;
  spec.batch_size = batch;
  spec.image_size = size;
  spec.seq_len = m.tokens ? size : 0;
  spec.num_classes = m.num_classes;
  spec.seed = seed;
  return spec;
}

// A batch in host memory, laid out as data_source.h's batch_inputs and batch_labels: int32 token ids, or fp32
// images {N,3,H,W} NHWC in memory.
struct HostBatch {
  std::vector<uint8_t> inputs;
  std::vector<int32_t> labels;
};

inline size_t byte_size(const Tensor& t) { return static_cast<size_t>(t.shape.numel()) * dtype_size(t.dtype); }

// What a reference script needs to rebuild the model: its shape and where each parameter sits. "size" is the
// sequence length of a language model, else the image size; the scripts read the rest from the parameters.
inline nlohmann::json reference_manifest(const ModelDesc& m, const std::vector<ParamEntry>& entries, int64_t batch,
                                         int64_t size) {
  nlohmann::json manifest = {{"batch", batch}, {"size", size}, {"layers", 0}, {"params", nlohmann::json::array()}};
  for (const LayerDesc& l : m.layers) {
    if (l.kind == LayerKind::LayerNorm) manifest["eps"] = l.ln.eps;
    if (l.kind == LayerKind::Attention) {
      manifest["heads"] = l.attention.heads;
      manifest["layers"] = manifest["layers"].get<int>() + 1;
    }
  }
  for (const ParamEntry& e : entries) {
    manifest["params"].push_back({{"name", m.layers[static_cast<size_t>(e.layer)].name + "." + e.name},
                                  {"shape", e.shape.dims},
                                  {"offset", e.offset}});
  }
  return manifest;
}

// Runs `script` (under tests/train/) on the manifest, weights and batch in dir; its outputs are left there.
inline void run_reference(const std::string& python, const std::string& script, const TempDir& dir,
                          const nlohmann::json& manifest, const std::vector<float>& params, const HostBatch& b) {
  std::ofstream(dir / "manifest.json") << manifest.dump();
  write_raw(dir / "params.f32", params);
  write_raw(dir / "inputs.bin", b.inputs);
  write_raw(dir / "labels.i32", b.labels);
  const std::string cmd = python + " " MG_SOURCE_DIR "/tests/train/" + script + " " + dir.path();
  REQUIRE(std::system(cmd.c_str()) == 0);
}

// One fp32 forward and backward of `model_name` on the CPU backend from random parameters (gammas around 1: the
// default initialisation's zero positions and unit gammas would leave their use untested) and a random batch,
// and the same through `script`: the loss, the logits and every parameter's gradient agree within tolerance.
inline void check_one_step(const std::string& script, const std::string& model_name, int64_t batch, int64_t size,
                           double tolerance) {
  const std::string python = torch_python();
  if (python.empty()) MG_SKIP("python3-torch is not installed");
  auto be = make_backend(DeviceKind::Cpu, 0, BackendOptions{});
  be->attach_thread();
  const ModelDesc m = build_model(model_name);
  ModelGraph net(*be, m, batch, size, Precision::FP32, 1, true);
  ParamStore store(*be, net.param_shapes());
  std::vector<float> params(store.size());
  for (const ParamEntry& e : store.entries()) {
    for (size_t i = 0; i < e.count; ++i) {
      const float u = 2 * counter_uniform(11, e.offset + i) - 1;
      params[e.offset + i] = e.name == "gamma" ? 1 + 0.3f * u : 0.15f * u;
    }
  }
  be->copy_h2d(store.params(), params.data(), params.size() * sizeof(float), StreamKind::Compute);
  net.bind(store);

  // Token ids or pixels in [-1, 1], and labels, all uniform.
  const DataSpec spec = batch_spec(m, batch, size);
  const Tensor in_t = batch_inputs(spec), labels_t = batch_labels(spec);
  HostBatch b{std::vector<uint8_t>(byte_size(in_t)), std::vector<int32_t>(static_cast<size_t>(labels_t.shape.numel()))};
  const auto classes = static_cast<int32_t>(m.num_classes);
  if (m.tokens) {
    auto* ids = reinterpret_cast<int32_t*>(b.inputs.data());
    for (size_t i = 0; i < b.inputs.size() / sizeof(int32_t); ++i)
      ids[i] = static_cast<int32_t>(counter_uniform(5, i) * static_cast<float>(classes)) % classes;
  } else {
    auto* px = reinterpret_cast<float*>(b.inputs.data());
    for (size_t i = 0; i < b.inputs.size() / sizeof(float); ++i) px[i] = 2 * counter_uniform(5, i) - 1;
  }
  for (size_t i = 0; i < b.labels.size(); ++i)
    b.labels[i] = static_cast<int32_t>(counter_uniform(6, i) * static_cast<float>(classes)) % classes;
  DeviceBuffer x(*be, b.inputs.size()), y(*be, b.labels.size() * sizeof(int32_t));
  be->copy_h2d(x.get(), b.inputs.data(), b.inputs.size(), StreamKind::Compute);
  be->copy_h2d(y.get(), b.labels.data(), b.labels.size() * sizeof(int32_t), StreamKind::Compute);
  net.forward(x.tensor(in_t.shape, in_t.dtype), true);
  net.loss(y.tensor(labels_t.shape, DType::I32), 1.0f);
  net.backward(false, {});
  const Tensor& logits_t = net.logits();
  std::vector<float> logits(static_cast<size_t>(logits_t.shape.numel()));
  float loss = 0;
  be->copy_d2h(logits.data(), logits_t.data, logits.size() * sizeof(float), StreamKind::Compute);
  be->copy_d2h(&loss, net.loss_tensor().data, sizeof(float), StreamKind::Compute);
  be->synchronize(StreamKind::Compute);
  const std::vector<float> grads = store.download_grads();

  TempDir dir;
  run_reference(python, script, dir, reference_manifest(m, store.entries(), batch, size), params, b);

  const auto ref_logits = read_raw<float>(dir / "logits.f32", logits.size());
  const double ref_loss = read_raw<double>(dir / "loss.f64", 1)[0];
  const auto ref_grads = read_raw<float>(dir / "grads.f32", grads.size());
  const double loss_err = std::fabs(loss - ref_loss) / std::fabs(ref_loss);
  const double logits_err = relative_error(logits.data(), ref_logits.data(), logits.size());
  INFO("loss " << loss << " vs PyTorch's " << ref_loss << " (relative error " << loss_err << "); logits' error "
                << logits_err << " relative to their largest element");
  CHECK(loss_err <= tolerance);
  CHECK(logits_err <= tolerance);
  for (const ParamEntry& e : store.entries()) {
    const std::string name = m.layers[static_cast<size_t>(e.layer)].name + "." + e.name;
    const double err = relative_error(grads.data() + e.offset, ref_grads.data() + e.offset, e.count);
    INFO(name << ": gradient error " << err << " relative to its largest element");
    CHECK(err <= tolerance);
  }
}

struct Trajectories {
  std::vector<float> mg;      // mgbench's loss at each step (before that step's update)
  std::vector<double> torch;  // PyTorch's, from the same weights and batch
};

// `steps` steps of `model_name` on one batch through a Replica, mgbench's own training step (so its update, bias
// correction and gradient zeroing are tested), and the same through `script` with torch.optim in reference_dtype.
inline Trajectories run_both(const std::string& python, const std::string& script, const std::string& model_name,
                             Optimizer optimizer, int steps, int64_t batch, int64_t size,
                             const std::string& reference_dtype = "float64") {
  RunConfig c;
  c.model = model_name;
  c.device = DeviceKind::Cpu;
  c.optimizer = optimizer;
  if (optimizer == Optimizer::AdamW) {  // the CLI's AdamW defaults (torch.optim.AdamW's)
    c.lr = 1e-3f;
    c.weight_decay = 0.01f;
  }
  const ModelDesc model = build_model(c.model);
  auto be = make_backend(DeviceKind::Cpu, 0, BackendOptions{});
  be->attach_thread();
  Replica rep(c, model, *be, nullptr, ReplicaPlacement{0, 1}, batch, size);
  const std::vector<float> params = rep.params()->download_params();

  // The replica's batch: the device-synthetic one its DataSpec draws, drawn again.
  auto input = make_device_synthetic_input(*be, batch_spec(model, batch, size, c.seed));
  const DeviceBatch db = input->next();
  HostBatch b{std::vector<uint8_t>(byte_size(db.inputs)),
              std::vector<int32_t>(static_cast<size_t>(db.labels.shape.numel()))};
  be->copy_d2h(b.inputs.data(), db.inputs.data, b.inputs.size(), StreamKind::Compute);
  be->copy_d2h(b.labels.data(), db.labels.data, b.labels.size() * sizeof(int32_t), StreamKind::Compute);
  be->synchronize(StreamKind::Compute);

  Trajectories t;
  for (int s = 0; s < steps; ++s) {
    rep.step(s);
    t.mg.push_back(rep.last_loss());
  }

  nlohmann::json manifest = reference_manifest(model, rep.params()->entries(), batch, size);
  manifest["dtype"] = reference_dtype;
  manifest["steps"] = steps;
  manifest["optimizer"] = {{"name", optimizer == Optimizer::AdamW ? "adamw" : "sgd"},
                           {"lr", c.lr},
                           {"weight_decay", c.weight_decay},
                           {"momentum", c.momentum},
                           {"betas", {c.adam_beta1, c.adam_beta2}},
                           {"eps", c.adam_eps}};
  TempDir dir;
  run_reference(python, script, dir, manifest, params, b);
  t.torch = read_raw<double>(dir / "losses.f64", static_cast<size_t>(steps));
  return t;
}

// Each step's losses agree within tolerance, relative to PyTorch's.
inline void check_agree(const Trajectories& t, double tolerance) {
  for (size_t s = 0; s < t.mg.size(); ++s) {
    const double err = std::fabs(t.mg[s] - t.torch[s]) / std::fabs(t.torch[s]);
    INFO("step " << s + 1 << ": mgbench's loss " << t.mg[s] << ", PyTorch's " << t.torch[s] << " (relative error "
                 << err << ")");
    CHECK(err <= tolerance);
  }
}

// Eight steps of the optimizer from the same weights and batch: the losses agree with torch.optim's to 1e-4, and
// PyTorch's falls by more than min_drop (the trajectory must move, or agreement says nothing about the update).
// One backward cannot show a fault in the optimizer or between steps; several steps from the same start can.
inline void check_eight_steps(const std::string& script, const std::string& model_name, Optimizer optimizer,
                              int64_t batch, int64_t size, double min_drop) {
  const std::string python = torch_python();
  if (python.empty()) MG_SKIP("python3-torch is not installed");
  const Trajectories t = run_both(python, script, model_name, optimizer, 8, batch, size);
  check_agree(t, 1e-4);
  INFO("PyTorch's loss " << t.torch.front() << " -> " << t.torch.back());
  CHECK(t.torch.back() < t.torch.front() - min_drop);
}

}  // namespace mg::test
