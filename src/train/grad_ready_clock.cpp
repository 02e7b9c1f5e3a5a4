#include "train/grad_ready_clock.h"

#include <algorithm>

namespace mg {

GradReadyClock::GradReadyClock(Backend& be, const ParamStore& store) : be_(be) {
  for (const ParamEntry& e : store.entries()) {
    if (layers_.empty() || layers_.back().layer != e.layer) layers_.push_back({e.layer, 0, 0.0});
    layers_.back().elements += e.count;
  }
  for (size_t i = 0; i < layers_.size(); ++i) {
    const int l = layers_[i].layer;
    if (l >= static_cast<int>(slot_of_layer_.size())) slot_of_layer_.resize(l + 1, -1);
    slot_of_layer_[l] = static_cast<int>(i);
    done_.push_back(be.create_event());
  }
}

void GradReadyClock::on_layer_done(int layer) {
  if (layer < 0 || layer >= static_cast<int>(slot_of_layer_.size()) || slot_of_layer_[layer] < 0) return;
  be_.record(*done_[slot_of_layer_[layer]], StreamKind::Compute);
}

std::vector<double> GradReadyClock::ready_times(Event& backward_start) {
  std::vector<double> t(done_.size());
  for (size_t i = 0; i < done_.size(); ++i) t[i] = std::max(0.0, be_.elapsed_seconds(backward_start, *done_[i]));
  return t;
}

}  // namespace mg
