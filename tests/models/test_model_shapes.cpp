#include <catch2/catch.hpp>

#include "core/error.h"
#include "models/registry.h"

using namespace mg;

namespace {
std::string usage_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("logits have shape {batch, classes} at the default size, {batch * tokens, vocabulary} for language models") {
  for (const std::string& name : model_names()) {
    INFO(name);
    const ModelDesc m = build_model(name, 17);
    const int64_t size = m.default_image_size;
    const auto s = infer_shapes(m, 3, size);
    REQUIRE(s.size() == m.layers.size());
    if (m.tokens) {  // a language model's classes are its vocabulary, whatever is asked
      CHECK(s[0] == Shape{3, size});
      CHECK(s.back() == Shape{3 * size, m.num_classes});
    } else {
      CHECK(s[0] == Shape{3, 3, size, size});
      CHECK(s.back() == Shape{3, 17});
    }
  }
}

TEST_CASE("intermediate shapes match torchvision") {
  const ModelDesc r = build_model("resnet50");
  const auto rs = infer_shapes(r, 2, 224);
  auto shape_of = [](const ModelDesc& m, const std::vector<Shape>& s, const std::string& n) {
    for (size_t i = 0; i < m.layers.size(); ++i)
      if (m.layers[i].name == n) return s[i];
    FAIL("no layer " << n);
    return Shape{};
  };
  CHECK(shape_of(r, rs, "maxpool") == Shape{2, 64, 56, 56});
  CHECK(shape_of(r, rs, "layer1.2.relu") == Shape{2, 256, 56, 56});
  CHECK(shape_of(r, rs, "layer4.2.relu") == Shape{2, 2048, 7, 7});
  CHECK(shape_of(r, rs, "avgpool") == Shape{2, 2048});
  const ModelDesc inc = build_model("inception3");
  const auto is = infer_shapes(inc, 1, 299);
  CHECK(shape_of(inc, is, "maxpool2") == Shape{1, 192, 35, 35});
  CHECK(shape_of(inc, is, "Mixed_5d.concat") == Shape{1, 288, 35, 35});
  CHECK(shape_of(inc, is, "Mixed_6e.concat") == Shape{1, 768, 17, 17});
  CHECK(shape_of(inc, is, "Mixed_7c.concat") == Shape{1, 2048, 8, 8});
  const ModelDesc t = build_model("tiny");
  const auto ts = infer_shapes(t, 4, 32);
  CHECK(shape_of(t, ts, "pool") == Shape{4, 8, 16, 16});
  CHECK(shape_of(t, ts, "avgpool") == Shape{4, 16});
  // other sizes work where the network has no fixed-width classifier
  CHECK(infer_shapes(r, 1, 160).back() == Shape{1, 1000});
  CHECK(infer_shapes(inc, 1, 75).back() == Shape{1, 1000});
}

TEST_CASE("min_image_size is the smallest size that builds") {
  struct Ref {
    const char* name;
    int64_t min;
  };
  // inception_v3: torchvision documents 75x75 as the minimum. VGG/AlexNet: the sizes where the adaptive
  // pool is an identity. ResNet's padded convs and pools never shrink a map below 1.
  const Ref refs[] = {{"resnet18", 1}, {"resnet50", 1},  {"vgg16", 224},
                      {"alexnet", 223}, {"inception3", 75}, {"tiny", 2}};
  for (const Ref& r : refs) {
    INFO(r.name);
    const ModelDesc m = build_model(r.name);
    CHECK(m.min_image_size == r.min);
    CHECK_NOTHROW(infer_shapes(m, 1, r.min));
    if (r.min > 1) CHECK_THROWS_AS(infer_shapes(m, 1, r.min - 1), UsageError);
  }
}

TEST_CASE("image sizes a model cannot take are usage errors") {
  const ModelDesc inc = build_model("inception3");
  CHECK(usage_message([&] { infer_shapes(inc, 1, 74); }) == "--image-size 74 is too small for inception3 (minimum 75)");
  const ModelDesc vgg = build_model("vgg16");
  CHECK(usage_message([&] { infer_shapes(vgg, 1, 16); }) == "--image-size 16 is too small for vgg16 (minimum 224)");
  CHECK_NOTHROW(infer_shapes(vgg, 1, 255));
  const std::string big = usage_message([&] { infer_shapes(vgg, 1, 256); });
  CHECK(big ==
        "--image-size 256 does not fit vgg16: its classifier takes 25088 features but this size gives 32768 "
        "(a 8x8 map); image sizes 224 to 255 fit");
  const ModelDesc alex = build_model("alexnet");
  CHECK_NOTHROW(infer_shapes(alex, 1, 254));
  CHECK(usage_message([&] { infer_shapes(alex, 1, 255); }).find("image sizes 223 to 254 fit") != std::string::npos);
  CHECK(usage_message([&] { infer_shapes(inc, 1, 0); }).find("--image-size 0") == 0);
  CHECK(usage_message([&] { infer_shapes(inc, 0, 299); }).find("--batch-size 0") == 0);
}

TEST_CASE("unknown models and bad class counts are usage errors") {
  CHECK(canonical_model_name("resnet") == "resnet50");
  CHECK(canonical_model_name("inception_v3") == "inception3");
  CHECK(build_model("resnet").name == "resnet50");
  const std::string msg = usage_message([] { canonical_model_name("resnet51"); });
  CHECK(msg.find("unknown model 'resnet51' (allowed: resnet18, resnet34, resnet50, resnet") == 0);
  CHECK(msg.find("tiny_nobn") != std::string::npos);
  CHECK_THROWS_AS(build_model("lenet"), UsageError);
  CHECK(usage_message([] { build_model("resnet18", 0); }) == "--num-classes 0 must be at least 1");
  CHECK_THROWS_AS(build_model("tiny", -3), UsageError);
}

TEST_CASE("the listing marks test networks and aliases") {
  CHECK(model_info("tiny").test_network);
  CHECK(model_info("tiny_nobn").test_network);
  CHECK_FALSE(model_info("resnet50").test_network);
  CHECK(model_info("resnet").aliases == std::vector<std::string>{"resnet"});
  CHECK(model_info("inception3").note.find("aux_logits=False") != std::string::npos);
  const auto names = model_names();
  CHECK(names.size() == 17);
  CHECK(model_info("gpt2-tiny").test_network);
  CHECK(model_info("vit-tiny").test_network);
  CHECK_FALSE(model_info("vit-b16").test_network);
  CHECK_FALSE(model_info("gpt2").test_network);
  CHECK(names.front() == "resnet18");
}

TEST_CASE("malformed descriptions are errors, not usage errors") {
  ModelDesc m = build_model("tiny");
  m.layers[1].conv.groups = 5;  // 3 input channels do not split into 5 groups
  CHECK_THROWS_AS(infer_shapes(m, 1, 32), Error);
  try {
    infer_shapes(m, 1, 32);
  } catch (const UsageError&) {
    FAIL("a broken description must not read as bad user input");
  } catch (const Error&) {
  }
}
