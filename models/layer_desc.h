// Network descriptions: what a model is, as layers and their connections, with no device code.
// A model is a DAG in topological order; layer 0 is the input (images, NHWC in memory, logical {N,3,H,W}; or,
// for a language model, int32 token ids {N,T}). The last layer produces the logits {rows, num_classes} (rows: N
// images, or N*T tokens); the trainer appends softmax cross-entropy.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace mg {

enum class LayerKind {
  Input,
  Conv,           // conv2d, optional bias, groups
  BatchNorm,      // training-mode batch statistics, running statistics updated
  Relu,
  MaxPool,
  AvgPool,        // count_include_pad as torch's default (true)
  GlobalAvgPool,  // {N,C,H,W} -> {N,C}
  Flatten,        // {N,C,H,W} -> {N,C*H*W} (NHWC order in memory, so weights of the next Linear follow it)
  Linear,         // fully connected, optional bias
  Add,            // residual add of two inputs of one shape
  Concat,         // channel concat of 2+ inputs
  Dropout,
  LRN,            // unused by the shipped models; kept out of scope
  Embedding,      // int32 ids {N,T} -> token table row + position table row {N,T,C} (GPT-2's wte + wpe)
  LayerNorm,      // over the last dimension, gamma/beta
  Gelu,           // tanh form as GPT-2 uses, or exact (erf) as ViT does (GeluParams)
  Attention,      // multi-head self-attention core: fused qkv {N,T,3C} -> softmax(QK^T/sqrt(d))V {N,T,C}
  TokenFlatten,   // {N,T,V} -> {N*T,V}: one row per token for the loss (same memory)
  PatchTokens,    // patch grid {N,C,h,w} -> class token + patches + position table {N,1+h*w,C} (ViT)
  ClassToken,     // {N,T,C} -> {N,C}: each sequence's first token, the class token a ViT classifies from
};

const char* layer_kind_name(LayerKind k);

struct ConvParams {
  int64_t out_channels = 0;
  int64_t kh = 1, kw = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  int64_t groups = 1;
  bool bias = false;
};

struct PoolParams {
  int64_t kh = 1, kw = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  bool ceil_mode = false;
};

struct LinearParams {
  int64_t out_features = 0;
  bool bias = true;
  // When > 0, the input must have exactly this many features: torchvision's fixed classifiers (VGG, AlexNet)
  // sit behind an adaptive pool that is modelled only where it is the identity, so other image sizes are
  // rejected by infer_shapes instead of silently growing the layer.
  int64_t in_features = 0;
};

struct BatchNormParams {
  float eps = 1e-5f;
  float momentum = 0.1f;  // torch convention: running = (1-m)*running + m*batch
};

struct DropoutParams {
  float p = 0.5f;
};

struct EmbeddingParams {
  int64_t vocab = 0;          // token table rows
  int64_t dim = 0;            // C
  int64_t max_positions = 0;  // position table rows: the longest sequence
};

struct LayerNormParams {
  float eps = 1e-5f;
};

struct GeluParams {
  bool tanh = true;  // GPT-2's tanh approximation; false: the exact erf form (torch's nn.GELU(), ViT's)
};

struct PatchTokensParams {
  int64_t patches = 0;  // h*w the position table was made for (its rows: 1 + patches)
};

struct AttentionParams {
  int64_t heads = 1;
  bool causal = true;  // a token sees only itself and earlier ones (language models); false for ViT
};

struct LayerDesc {
  LayerKind kind = LayerKind::Input;
  std::string name;
  std::vector<int> inputs;  // indices of earlier layers
  ConvParams conv;
  PoolParams pool;
  LinearParams linear;
  BatchNormParams bn;
  DropoutParams dropout;
  EmbeddingParams embedding;
  LayerNormParams ln;
  GeluParams gelu;
  AttentionParams attention;
  PatchTokensParams patch_tokens;
  // > 0: the weight (and a position table) start N(0, init_std), as GPT-2 initialises; 0: He uniform.
  float init_std = 0;
  // >= 0: this layer's weight is that earlier layer's weight (weight tying, GPT-2's lm_head reading the token
  // table): one tensor, stored, counted and exchanged once, whose gradient is the sum of both layers' uses.
  int tied_weight = -1;
};

// Shapes of one parameter tensor, in the canonical layouts of backend.h (conv weight {O, KH, KW, I/groups}).
struct ParamShape {
  std::string name;  // "weight", "bias", "gamma", "beta", "position", "class"
  Shape shape;
  float init_std = 0;  // the layer's (weights and position tables only)
  int tied_layer = -1;  // >= 0: this tensor is that layer's tensor of the same name (LayerDesc::tied_weight)
};

struct ModelDesc {
  std::string name;
  int64_t default_image_size = 224;
  int64_t min_image_size = 32;
  int64_t num_classes = 1000;
  // A language model: the input is token ids {N,T} and the "image size" of infer_shapes and count_params is
  // the sequence length T (default_image_size the default, min_image_size the shortest).
  bool tokens = false;
  std::vector<LayerDesc> layers;
};

// Per layer, the layers that read its output, in order (a layer reading it twice is listed twice): the one
// reader index the graph's fusion, in-place and buffer-sharing decisions share.
std::vector<std::vector<int>> layer_readers(const ModelDesc& m);

// Output shape of every layer for a batch and image size; throws UsageError when the image size is too small
// for the network (a spatial dimension would reach zero), Error for a broken description (among others an input
// or a tied weight that is not an earlier layer's, or a tie between weights of different shapes).
std::vector<Shape> infer_shapes(const ModelDesc& m, int64_t batch, int64_t image_size);

// What one layer makes of its input shapes: the single definition of output and parameter shapes, which
// infer_shapes applies to every layer of a model and both backends build their layers from. A fault names
// the layer ("conv layer c1: ...") and each caller reports it in its own terms (a backend as UsageError,
// infer_shapes as a broken model description or an image size that does not fit). Inputs may be {N,C,H,W} or
// {N,F}, and {N,T,C} for the transformer kinds; a Linear reads a 4-D input as its flattened NHWC memory and
// applies to the last dimension of a 3-D one ({N,T,C} -> {N,T,O}).
enum class LayerFault {
  None,
  Invalid,   // parameters or inputs that make no layer
  TooSmall,  // a conv/pool window no longer fits the input
  Mismatch,  // a Linear with fixed in_features, or a position table, given another size
};
struct LayerShapes {
  Shape out;
  std::vector<ParamShape> params;  // canonical layouts, empty for parameter-free layers
  LayerFault fault = LayerFault::None;
  std::string why;
};
LayerShapes layer_shapes(const LayerDesc& l, const std::vector<Shape>& in_shapes);

// Parameter tensors of a layer given its input shapes: layer_shapes(...).params, UsageError on a fault; empty
// for parameter-free kinds.
std::vector<ParamShape> layer_params(const LayerDesc& l, const std::vector<Shape>& in_shapes);

// A square conv layer: out channels, k x k kernel, stride, padding, groups, optional bias.
LayerDesc conv_layer(const std::string& name, int64_t out_channels, int64_t k, int64_t stride, int64_t pad,
                     int64_t groups = 1, bool bias = false);

// torch's output size of a conv/pool window along one dimension (ceil_mode drops a last window that would
// start in the right padding); <= 0 means the window no longer fits. Backends size their outputs with it too.
int64_t window_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, bool ceil_mode);

// How many inputs a layer kind takes; throws UsageError for a wrong count and for kinds no backend computes
// (Input, LRN). Shared by the backends' layer factories.
void check_layer_inputs(const LayerDesc& l, size_t n_inputs);

// Distinct parameters: a tied weight counts once, at the layer that owns it.
int64_t count_params(const ModelDesc& m, int64_t image_size);
// Forward multiply-adds x2 per image, or per sequence of a language model (conv, linear, and attention's two
// batched products counted over the full T x T as nanoGPT's MFU does; other layers ignored, as fvcore counts).
double forward_gflops_per_image(const ModelDesc& m, int64_t image_size);

}  // namespace mg
