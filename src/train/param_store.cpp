#include "train/param_store.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/counter_rng.h"
#include "core/error.h"

namespace mg {

ParamStore::ParamStore(Backend& be, const std::vector<std::vector<ParamShape>>& per_layer, bool second_moment)
    : be_(be), layer_entries_(per_layer.size()) {
  for (size_t l = 0; l < per_layer.size(); ++l) {
    for (const auto& p : per_layer[l]) {
      if (p.tied_layer >= 0) {  // the owner's entry, which an earlier layer created
        size_t k = 0;
        while (k < entries_.size() && !(entries_[k].layer == p.tied_layer && entries_[k].name == p.name)) ++k;
        MG_ENSURE(k < entries_.size() && entries_[k].shape == p.shape,
                  "layer " + std::to_string(l) + "'s " + p.name + " " + p.shape.str() + " is tied to layer " +
                      std::to_string(p.tied_layer) + ", which owns no " + p.name + " of that shape");
        layer_entries_[l].push_back(k);
        continue;
      }
      layer_entries_[l].push_back(entries_.size());
      ParamEntry e;
      e.layer = static_cast<int>(l);
      e.name = p.name;
      e.shape = p.shape;
      e.init_std = p.init_std;
      e.offset = total_;
      e.count = static_cast<size_t>(p.shape.numel());
      total_ += e.count;
      entries_.push_back(e);
    }
  }
  const size_t bytes = std::max<size_t>(total_, 1) * sizeof(float);
  params_ = DeviceBuffer(be, bytes);
  grads_ = DeviceBuffer(be, bytes);
  momentum_ = DeviceBuffer(be, bytes);
  if (second_moment) second_moment_ = DeviceBuffer(be, bytes);
}

std::vector<float*> ParamStore::layer_params(int layer) const {
  std::vector<float*> v;
  if (layer >= 0 && static_cast<size_t>(layer) < layer_entries_.size())
    for (size_t k : layer_entries_[static_cast<size_t>(layer)]) v.push_back(params() + entries_[k].offset);
  return v;
}

std::vector<float*> ParamStore::layer_grads(int layer) const {
  std::vector<float*> v;
  if (layer >= 0 && static_cast<size_t>(layer) < layer_entries_.size())
    for (size_t k : layer_entries_[static_cast<size_t>(layer)]) v.push_back(grads() + entries_[k].offset);
  return v;
}

std::vector<int> ParamStore::sharing_layers() const {
  std::vector<bool> shares(layer_entries_.size(), false);
  for (size_t l = 0; l < layer_entries_.size(); ++l) {
    for (size_t k : layer_entries_[l]) {
      const auto owner = static_cast<size_t>(entries_[k].layer);
      if (owner != l) shares[l] = shares[owner] = true;
    }
  }
  std::vector<int> v;
  for (size_t l = 0; l < shares.size(); ++l)
    if (shares[l]) v.push_back(static_cast<int>(l));
  return v;
}

int ParamStore::layer_of(size_t index) const {
  for (const auto& e : entries_)
    if (index >= e.offset && index < e.offset + e.count) return e.layer;
  MG_ENSURE(false, "parameter index " + std::to_string(index) + " out of range");
  return -1;
}

void ParamStore::initialize(uint64_t seed) {
  std::vector<float> host(total_);
  uint64_t stream = 0;
  for (const auto& e : entries_) {
    float* p = host.data() + e.offset;
    if (e.name == "gamma") {
      std::fill(p, p + e.count, 1.0f);
    } else if (e.init_std > 0) {  // weights and position tables N(0, std): Box-Muller over counter draws
      const uint64_t s = splitmix64(seed ^ (0x5EEDull + stream++));
      for (size_t i = 0; i < e.count; ++i) {
        const double u1 = 1.0 - static_cast<double>(counter_uniform(s, 2 * i));  // (0, 1]: log is finite
        const double u2 = counter_uniform(s, 2 * i + 1);
        p[i] = static_cast<float>(e.init_std * std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * M_PI * u2));
      }
    } else if (e.name == "weight") {
      // fan_in: all dims but the first (conv {O,KH,KW,I/g} and linear {out,in} alike).
      const double fan_in = static_cast<double>(e.count) / static_cast<double>(e.shape[0]);
      const float bound = static_cast<float>(std::sqrt(6.0 / fan_in));
      const uint64_t s = splitmix64(seed ^ (0x5EEDull + stream++));
      for (size_t i = 0; i < e.count; ++i) p[i] = (2.0f * counter_uniform(s, i) - 1.0f) * bound;
    } else {  // bias, beta
      std::fill(p, p + e.count, 0.0f);
    }
  }
  be_.copy_h2d(params(), host.data(), total_ * sizeof(float), StreamKind::Compute);
  std::vector<float> zeros(total_, 0.0f);
  be_.copy_h2d(momentum(), zeros.data(), total_ * sizeof(float), StreamKind::Compute);
  if (second_moment()) be_.copy_h2d(second_moment(), zeros.data(), total_ * sizeof(float), StreamKind::Compute);
  be_.copy_h2d(grads(), zeros.data(), total_ * sizeof(float), StreamKind::Compute);
  be_.synchronize(StreamKind::Compute);
}

std::vector<float> ParamStore::download_params() const {
  std::vector<float> host(total_);
  be_.copy_d2h(host.data(), params(), total_ * sizeof(float), StreamKind::Compute);
  be_.synchronize(StreamKind::Compute);
  return host;
}

std::vector<float> ParamStore::download_grads() const {
  std::vector<float> host(total_);
  be_.copy_d2h(host.data(), grads(), total_ * sizeof(float), StreamKind::Compute);
  be_.synchronize(StreamKind::Compute);
  return host;
}

uint64_t ParamStore::checksum() const {
  // A slice at a time: a whole host copy would add the model's size to the process's peak memory after the run.
  constexpr size_t kSlice = size_t{1} << 20;
  std::vector<float> host(std::min(kSlice, total_));
  uint64_t h = 1469598103934665603ull;
  for (size_t at = 0; at < total_; at += kSlice) {
    const size_t n = std::min(kSlice, total_ - at);
    be_.copy_d2h(host.data(), params() + at, n * sizeof(float), StreamKind::Compute);
    be_.synchronize(StreamKind::Compute);
    const auto* b = reinterpret_cast<const unsigned char*>(host.data());
    for (size_t i = 0; i < n * sizeof(float); ++i) {
      h ^= b[i];
      h *= 1099511628211ull;
    }
  }
  return h;
}

}  // namespace mg
