#include "train/layer_clock.h"

#include <algorithm>

#include "core/error.h"

namespace mg {

LayerClock::LayerClock(Backend& be, const ModelDesc& model)
    : be_(be), model_(model), start_(be.create_event()), loss_(be.create_event()) {
  for (size_t i = 0; i < model.layers.size(); ++i) {
    fwd_.push_back(be.create_event());
    bwd_.push_back(be.create_event());
  }
  fwd_hit_.assign(model.layers.size(), false);
  bwd_hit_.assign(model.layers.size(), false);
}

void LayerClock::start() {
  std::fill(fwd_hit_.begin(), fwd_hit_.end(), false);
  std::fill(bwd_hit_.begin(), bwd_hit_.end(), false);
  loss_hit_ = false;
  be_.record(*start_, StreamKind::Compute);
}

void LayerClock::forward_done(int layer) {
  MG_ENSURE(layer >= 0 && layer < static_cast<int>(fwd_.size()), "LayerClock: no layer " + std::to_string(layer));
  be_.record(*fwd_[layer], StreamKind::Compute);
  fwd_hit_[layer] = true;
}

void LayerClock::loss_done() {
  be_.record(*loss_, StreamKind::Compute);
  loss_hit_ = true;
}

void LayerClock::backward_done(int layer) {
  MG_ENSURE(layer >= 0 && layer < static_cast<int>(bwd_.size()), "LayerClock: no layer " + std::to_string(layer));
  be_.record(*bwd_[layer], StreamKind::Compute);
  bwd_hit_[layer] = true;
}

std::vector<LayerTime> LayerClock::read() {
  const int n = static_cast<int>(fwd_.size());
  std::vector<LayerTime> t(n);
  // Forward in layer order, backward in reverse: each interval belongs to the layer whose event closes it.
  Event* prev = start_.get();
  for (int i = 0; i < n; ++i) {
    if (!fwd_hit_[i]) continue;
    t[i].forward_s = std::max(0.0, be_.elapsed_seconds(*prev, *fwd_[i]));
    prev = fwd_[i].get();
  }
  LayerTime loss{-1, "loss", "loss", 0, 0};
  if (loss_hit_) {
    loss.forward_s = std::max(0.0, be_.elapsed_seconds(*prev, *loss_));
    prev = loss_.get();
  }
  for (int i = n - 1; i >= 0; --i) {
    if (!bwd_hit_[i]) continue;
    t[i].backward_s = std::max(0.0, be_.elapsed_seconds(*prev, *bwd_[i]));
    prev = bwd_[i].get();
  }
  std::vector<LayerTime> out;
  for (int i = 0; i < n; ++i) {
    if (!fwd_hit_[i] && !bwd_hit_[i]) continue;
    t[i].layer = i;
    t[i].name = model_.layers[i].name;
    t[i].kind = layer_kind_name(model_.layers[i].kind);
    out.push_back(t[i]);
  }
  if (loss_hit_) out.push_back(loss);
  return out;
}

}  // namespace mg
