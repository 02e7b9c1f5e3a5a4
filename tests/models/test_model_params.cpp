// Parameter counts and FLOPs against torchvision (figures from torchvision 0.14 with 1000 classes, counted by
// summing p.numel() and by forward hooks on Conv2d/Linear: 2 x output elements x (in/groups) x kh x kw).
#include <catch2/catch.hpp>

#include <set>

#include "models/registry.h"

using namespace mg;

namespace {

// Layer i's parameters, from the input shapes inference gives it at batch 2 and 224x224; it must be a `kind` layer.
std::vector<ParamShape> params_of(const ModelDesc& m, size_t i, LayerKind kind) {
  const std::vector<Shape> shapes = infer_shapes(m, 2, 224);
  const LayerDesc& l = m.layers[i];
  REQUIRE(l.kind == kind);
  std::vector<Shape> in;
  for (int k : l.inputs) in.push_back(shapes[static_cast<size_t>(k)]);
  return layer_params(l, in);
}

}  // namespace

TEST_CASE("parameter counts equal torchvision's") {
  struct Ref {
    const char* name;
    int64_t params;
  };
  const Ref refs[] = {
      {"resnet18", 11689512},   {"resnet34", 21797672}, {"resnet50", 25557032}, {"resnet101", 44549160},
      {"resnet152", 60192808},  {"vgg16", 138357544},   {"vgg19", 143667240},   {"alexnet", 61100840},
      {"inception3", 23834568},
  };
  for (const Ref& r : refs) {
    INFO(r.name);
    const ModelDesc m = build_model(r.name);
    CHECK(count_params(m, m.default_image_size) == r.params);
  }
}

TEST_CASE("forward GFLOPs per image equal torchvision's conv+linear multiply-adds x2") {
  struct Ref {
    const char* name;
    int64_t flops;
  };
  const Ref refs[] = {
      {"resnet18", 3628146688},  {"resnet34", 7327522816}, {"resnet50", 8178368512},
      {"resnet101", 15602810880}, {"resnet152", 23027253248}, {"vgg16", 30940528640},
      {"vgg19", 39264124928},    {"alexnet", 1428376960},  {"inception3", 11426432192},
  };
  for (const Ref& r : refs) {
    INFO(r.name);
    const ModelDesc m = build_model(r.name);
    CHECK(forward_gflops_per_image(m, m.default_image_size) == Approx(r.flops / 1e9).epsilon(1e-12));
  }
}

TEST_CASE("class count changes only the last linear layer") {
  const ModelDesc a = build_model("resnet50", 1000);
  const ModelDesc b = build_model("resnet50", 10);
  CHECK(count_params(a, 224) - count_params(b, 224) == 990 * (2048 + 1));
}

TEST_CASE("flops of a hand-computed tiny net") {
  // tiny at 32x32, 1000 classes:
  //   conv 3->8 3x3 at 32x32: 8*32*32*3*9 = 221184 MACs; pool -> 16x16
  //   conv 8->16 3x3 at 16x16: 16*16*16*8*9 = 294912 MACs; linear 16->1000: 16000 MACs
  const double macs = 221184 + 294912 + 16000;
  CHECK(forward_gflops_per_image(build_model("tiny"), 32) == Approx(2 * macs / 1e9).epsilon(1e-12));
  // params: conv 8*3*9 + bn 2*8 + conv 16*8*9 + bn 2*16 + fc 16*1000+1000
  CHECK(count_params(build_model("tiny"), 32) == 216 + 16 + 1152 + 32 + 17000);
  // tiny_nobn: convs carry a bias instead of BN's gamma and beta
  CHECK(count_params(build_model("tiny_nobn"), 32) == 216 + 8 + 1152 + 16 + 17000);
}

TEST_CASE("layer_params uses the canonical layouts") {
  const ModelDesc m = build_model("alexnet");
  // features.0: conv 3->64 11x11 with bias: weight {O, KH, KW, I/groups}
  const auto p = params_of(m, 1, LayerKind::Conv);
  REQUIRE(p.size() == 2);
  CHECK(p[0].name == "weight");
  CHECK(p[0].shape == Shape{64, 11, 11, 3});
  CHECK(p[1].name == "bias");
  CHECK(p[1].shape == Shape{64});
  const auto q = params_of(m, m.layers.size() - 1, LayerKind::Linear);
  CHECK(q[0].shape == Shape{1000, 4096});
  const auto g = params_of(build_model("resnet18"), 2, LayerKind::BatchNorm);
  REQUIRE(g.size() == 2);
  CHECK(g[0].name == "gamma");
  CHECK(g[0].shape == Shape{64});
  CHECK(g[1].name == "beta");
}

TEST_CASE("descriptions are DAGs in topological order with unique layer names") {
  for (const std::string& name : model_names()) {
    INFO(name);
    const ModelDesc m = build_model(name);
    CHECK(m.name == name);
    REQUIRE(!m.layers.empty());
    CHECK(m.layers[0].kind == LayerKind::Input);
    std::set<std::string> names;
    for (size_t i = 0; i < m.layers.size(); ++i) {
      CHECK(names.insert(m.layers[i].name).second);
      for (int in : m.layers[i].inputs) CHECK((in >= 0 && static_cast<size_t>(in) < i));
      if (i > 0) CHECK(!m.layers[i].inputs.empty());
    }
    CHECK(m.layers.back().kind == LayerKind::Linear);
  }
}

TEST_CASE("architecture details follow torchvision") {
  // ResNet v1.5: a downsampling bottleneck strides its 3x3 conv, not the first 1x1.
  const ModelDesc r = build_model("resnet50");
  int convs_checked = 0;
  for (const LayerDesc& l : r.layers) {
    if (l.kind == LayerKind::Conv) CHECK_FALSE(l.conv.bias);
    if (l.kind == LayerKind::BatchNorm) CHECK(l.bn.eps == 1e-5f);
    if (l.name == "layer2.0.conv1") {
      CHECK(l.conv.stride_h == 1);
      ++convs_checked;
    }
    if (l.name == "layer2.0.conv2") {
      CHECK(l.conv.stride_h == 2);
      ++convs_checked;
    }
  }
  CHECK(convs_checked == 2);
  const ModelDesc inc = build_model("inception3");
  int avg = 0;
  for (const LayerDesc& l : inc.layers) {
    if (l.kind == LayerKind::BatchNorm) CHECK(l.bn.eps == 1e-3f);
    if (l.kind == LayerKind::AvgPool) {
      CHECK((l.pool.kh == 3 && l.pool.stride_h == 1 && l.pool.pad_h == 1));
      ++avg;
    }
    if (l.kind == LayerKind::MaxPool) CHECK((l.pool.kh == 3 && l.pool.stride_h == 2 && l.pool.pad_h == 0));
  }
  CHECK(avg == 9);  // Mixed_5b..5d, 6b..6e, 7b, 7c
  int dropouts = 0;
  for (const LayerDesc& l : build_model("vgg16").layers) {
    if (l.kind == LayerKind::Dropout) ++dropouts;
    CHECK(l.kind != LayerKind::BatchNorm);
  }
  CHECK(dropouts == 2);
}
