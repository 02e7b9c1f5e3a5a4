// A model graph's plan, as data: one record per layer saying where its output and its gradient live, whether it
// runs in place, which fusions apply, when its tensors die and where its backward writes its inputs' gradients.
// Computed from the model, batch, image size, precision and the fusions a backend offers (fusion_caps.h) with
// no backend at all; ModelGraph (model_graph.h) creates the layers and buffers it names.
//
// Memory (memory_plan.h): an activation gradient lives from the backward step of its first consumer to its own
// layer's step, the temporary for a second consumer's contribution for one step; they share buffers whenever
// those lifetimes do not overlap. Training keeps every activation for the backward pass; inference shares the
// activations themselves the same way, keeping only the logits to the end. A ReLU that alone reads a Conv,
// Linear, BatchNorm or Add output runs in place on it (backend.h states the rules that allow it). A ReLU that
// relu_fusion.h folds into its BatchNorm or Add has no op of its own: the pair shares one output and one gradient
// buffer. An Add runs in place over a Conv, Linear, BatchNorm or Add output it alone reads; where that is a
// BatchNorm right before it and the backend offers it, the BatchNorm computes the Add as it writes. An Add that is the first
// backward consumer of both inputs writes their common gradient once into one buffer, where no other consumer's
// contribution could land before both producers read it.
//
// Steps: the forward walk's step i is layer i (inference: the loss reads the logits at step n); the backward
// walk's step 0 is the loss and step n - i layer i's backward. Training activations live over both walks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/tensor.h"
#include "models/layer_desc.h"
#include "train/fusion_caps.h"
#include "train/memory_plan.h"

namespace mg {

struct GraphPlanOptions {
  int64_t batch = 1, image_size = 32;
  Precision precision = Precision::FP32;
  bool training = true;       // false: no gradients, and activations share buffers
  bool reuse_buffers = true;  // false: a buffer per tensor (the reference the sharing is tested against)
  bool fuse_layers = true;    // false: every ReLU and Add a layer of its own (the reference of the fusions)
  FusionCaps caps;
};

// Where layer i's backward writes the gradient of one of its inputs.
struct InputGradPlan {
  int buffer = -1;     // -1: none (the images, or an Add's second input, whose gradient is the first's)
  int temporary = -1;  // a tensor added into the producer's gradient after the step; -1: that gradient itself
};

struct LayerPlan {
  Shape shape;  // output
  // Fusions and in-place.
  bool has_op = false;   // false: the input, and a ReLU its producer computes
  int relu_by = -1;      // a folded ReLU: the layer computing it (whose output and gradient it shares)
  int relu = -1;         // the ReLU this layer computes (LayerOptions::relu)
  int add = -1;          // the Add this batch norm computes as it writes (LayerOptions::add_input)
  int add_by = -1;       // an Add the batch norm before it computes: its forward is skipped, its backward runs
  int in_place_of = -1;  // the layer whose output buffer this one overwrites (the first of its in-place chain)
  bool input_grad = false;  // some input is not the images (LayerOptions::input_grad)
  // Output.
  int last_reader = -1;  // highest-numbered layer reading the output
  int out_tensor = -1;   // its own placed tensor (-1: in place, or a folded ReLU)
  int out_buffer = -1;   // where the output lives
  // Gradient of the output (training).
  int grad_of = -1;      // the layer whose gradient tensor this one's is: its folded ReLU's, or the Add input's
  int grad_tensor = -1;  // its own placed tensor (-1: grad_of, or no gradient)
  int grad_buffer = -1;  // where the gradient lives (-1: the images, and inference)
  std::vector<InputGradPlan> input_grads;  // per input (training)
};

// One tensor the memory plan places.
struct PlannedTensor {
  enum class Kind { Output, Gradient, Temporary } kind;
  int layer = 0;   // Output, Gradient: whose; Temporary: the consumer writing it
  int input = -1;  // Temporary: which input of that consumer
  Shape shape;
  Lifetime life;
  int buffer = -1;
};

struct GraphPlan {
  DType act = DType::F32;
  DType input = DType::F32;  // layer 0's output: the images in act, or a language model's int32 token ids
  bool training = false;
  std::vector<LayerPlan> layers;
  std::vector<PlannedTensor> tensors;  // in the order the memory plan placed them
  std::vector<size_t> buffer_bytes;    // the memory plan's buffers, then the loss's
  int loss_buffer = -1;
  size_t total_bytes() const;  // what the graph allocates for them
};

// Throws UsageError when the image size is too small for the model (infer_shapes).
GraphPlan plan_graph(const ModelDesc& m, const GraphPlanOptions& o);

}  // namespace mg
