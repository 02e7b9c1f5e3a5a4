// Every shipped model's layers build on the CPU backend, with output shapes and parameter shapes equal to
// what the model descriptions infer (infer_shapes / layer_params), so the trainer can size buffers from either.
#include "layer_test_util.h"
#include "models/registry.h"

using namespace mgtest;

TEST_CASE("cpu layers agree with infer_shapes and layer_params for every model") {
  for (const std::string& name : model_names()) {
    const ModelDesc m = build_model(name, 10);
    // Small images keep the workspaces small; the shapes logic is the same at any size the model accepts.
    const int64_t image = m.min_image_size;
    const std::vector<Shape> shapes = infer_shapes(m, 2, image);
    for (size_t i = 1; i < m.layers.size(); ++i) {
      const LayerDesc& l = m.layers[i];
      std::vector<Shape> in;
      for (int j : l.inputs) in.push_back(shapes[static_cast<size_t>(j)]);
      INFO(name << " layer " << i << " '" << l.name << "' (" << layer_kind_name(l.kind) << ")");
      std::unique_ptr<LayerOp> op;
      REQUIRE_NOTHROW(op = backend().create_layer(l, in, {}));
      CHECK(op->output_shape() == shapes[i]);
      const std::vector<ParamShape> want = layer_params(l, in), got = op->params();
      REQUIRE(got.size() == want.size());
      for (size_t k = 0; k < want.size(); ++k) {
        CHECK(got[k].name == want[k].name);
        CHECK(got[k].shape == want[k].shape);
      }
    }
  }
}
