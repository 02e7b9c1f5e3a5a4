// A model's pre-run check runs the model's own layers: every layer covered once, every convolution case with
// exactly the groups, bias, kernel, stride, padding and channel counts of a layer the model has, and the generic
// per-kind cases (a grouped conv, a biased 7x7 on 3 channels) reported beside them without failing the run.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "backend/backend.h"
#include "check/check.h"
#include "check/layer_check.h"
#include "check/model_cases.h"
#include "models/registry.h"
#include "support/cpu_backend_one_thread.h"

using namespace mg;
using namespace mg::check;

namespace {

using mg::test::cpu_one_thread;

bool same_conv(const ConvParams& a, const ConvParams& b) {
  return a.out_channels == b.out_channels && a.kh == b.kh && a.kw == b.kw && a.stride_h == b.stride_h &&
         a.stride_w == b.stride_w && a.pad_h == b.pad_h && a.pad_w == b.pad_w && a.groups == b.groups &&
         a.bias == b.bias;
}

// Checks every case of `m` against the layers it claims to stand for, and that each layer is claimed once.
void check_cases_cover(const ModelDesc& m) {
  auto be = cpu_one_thread();
  const std::vector<LayerCase> cases = model_layer_cases(m, *be);
  const std::vector<Shape> shapes = infer_shapes(m, 2, m.default_image_size);
  std::map<int, int> claimed;
  for (const LayerCase& c : cases) {
    INFO(m.name << ": case " << c.name);
    REQUIRE_FALSE(c.layers.empty());
    // The cut shapes must still make the layer (a patch grid that was cut with a position table that was not).
    const LayerShapes made = layer_shapes(c.desc, c.shapes);
    CHECK(made.why == "");
    CHECK(made.fault == LayerFault::None);
    for (int i : c.layers) {
      ++claimed[i];
      const LayerDesc& l = m.layers[static_cast<size_t>(i)];
      if (l.kind == LayerKind::Relu && c.desc.kind != LayerKind::Relu) {
        CHECK(c.relu);  // a ReLU folded into the case's BatchNorm or Add
        continue;
      }
      INFO("layer " << l.name);
      CHECK(c.desc.kind == l.kind);
      REQUIRE(c.shapes.size() == l.inputs.size());
      if (l.kind == LayerKind::Conv) {
        CHECK(same_conv(c.desc.conv, l.conv));
        const Shape& in = shapes[static_cast<size_t>(l.inputs[0])];
        CHECK(c.shapes[0].c() == in.c());  // input channels as the model has them, spatial size cut
        CHECK(c.shapes[0].h() <= in.h());
      }
      for (size_t k = 0; k < l.inputs.size(); ++k) {
        const Shape& in = shapes[static_cast<size_t>(l.inputs[k])];
        if (in.rank() == 3 || l.kind == LayerKind::Embedding) {
          // Token tensors: features as the model has them, the sequence cut to 32 (the naive reference is
          // quadratic in it).
          CHECK(c.shapes[k].dims.back() == (in.rank() == 3 ? in.dims.back() : std::min<int64_t>(in.dims[1], 32)));
          CHECK(c.shapes[k].dims[1] == std::min<int64_t>(in.dims[1], 32));
        } else if (l.kind == LayerKind::BatchNorm || l.kind == LayerKind::Add || l.kind == LayerKind::Concat) {
          CHECK(c.shapes[k].c() == in.c());
        }
      }
      if (l.kind == LayerKind::Linear) {
        CHECK(c.desc.linear.out_features == l.linear.out_features);
        CHECK(c.desc.linear.bias == l.linear.bias);
      }
    }
  }
  for (size_t i = 1; i < m.layers.size(); ++i) {
    INFO(m.name << ": layer " << m.layers[i].name);
    CHECK(claimed[static_cast<int>(i)] == 1);
  }
}

}  // namespace

TEST_CASE("model cases: resnet50's check runs its own convolutions and no grouped or biased 3-channel one",
          "[check][model]") {
  const ModelDesc m = build_model("resnet50", 10);
  auto be = cpu_one_thread();
  const std::vector<LayerCase> cases = model_layer_cases(m, *be);
  std::set<std::string> model_convs, case_convs;
  auto key = [](const ConvParams& c, int64_t in_c) {
    return std::to_string(in_c) + ">" + std::to_string(c.out_channels) + " k" + std::to_string(c.kh) + "x" +
           std::to_string(c.kw) + " s" + std::to_string(c.stride_h) + " p" + std::to_string(c.pad_h) + " g" +
           std::to_string(c.groups) + " b" + std::to_string(c.bias);
  };
  const std::vector<Shape> shapes = infer_shapes(m, 2, m.default_image_size);
  for (const LayerDesc& l : m.layers)
    if (l.kind == LayerKind::Conv) model_convs.insert(key(l.conv, shapes[static_cast<size_t>(l.inputs[0])].c()));
  for (const LayerCase& c : cases) {
    if (c.desc.kind != LayerKind::Conv) continue;
    INFO(c.name);
    CHECK(c.desc.conv.groups == 1);                                // resnet50 has no grouped convolution
    CHECK_FALSE((c.desc.conv.bias && c.shapes[0].c() == 3));       // nor a biased one on the 3 image channels
    case_convs.insert(key(c.desc.conv, c.shapes[0].c()));
  }
  CHECK(case_convs == model_convs);  // every convolution shape of the model, and only those
  CHECK(model_convs.size() >= 20);   // bottlenecks of four widths, their strided and downsampling variants, conv1
  // The generic per-kind cases have both shapes resnet50 lacks: they are the advisory rows, not the binding ones.
  bool grouped = false, biased_rgb = false;
  for (const LayerCase& c : kind_cases_for(m)) {
    grouped |= c.desc.kind == LayerKind::Conv && c.desc.conv.groups > 1;
    biased_rgb |= c.desc.kind == LayerKind::Conv && c.desc.conv.bias && c.shapes[0].c() == 3;
  }
  CHECK(grouped);
  CHECK(biased_rgb);
}

TEST_CASE("model cases: every layer of every shipped model is covered once by a case of its own shape",
          "[check][model]") {
  for (const std::string& name : model_names()) check_cases_cover(build_model(name, 1000));
}

TEST_CASE("model cases: the ReLUs resnet18 folds into batch norm and add are checked with them", "[check][model]") {
  auto be = cpu_one_thread();
  const ModelDesc m = build_model("resnet18", 10);
  std::set<LayerKind> fused;
  for (const LayerCase& c : model_layer_cases(m, *be))
    if (c.relu) fused.insert(c.desc.kind);
  CHECK(fused == std::set<LayerKind>{LayerKind::BatchNorm, LayerKind::Add});
}

TEST_CASE("model check: binding rows are the model's layers, and a failing generic row is advisory", "[check][model]") {
  const CheckReport rep = model_check(DeviceKind::Cpu, 0, "tiny", Precision::FP32);
  REQUIRE(rep.ran);
  INFO(format_check_table(rep));
  CHECK(rep.passed());
  std::set<std::string> layer_names;
  for (const LayerDesc& l : build_model("tiny", 10).layers) layer_names.insert(l.name);
  int model_rows = 0, advisory_rows = 0;
  for (const CheckRow& r : rep.rows) {
    if (r.group != "layer") continue;
    if (r.advisory) {
      ++advisory_rows;
    } else {
      ++model_rows;
      INFO(r.name);
      CHECK(layer_names.count(r.name.substr(0, r.name.find(' '))) == 1);  // named after a layer of tiny
    }
  }
  CHECK(model_rows >= 5);     // two convs with their batch norms and ReLUs, pools, linear
  CHECK(advisory_rows >= 5);  // tiny's kinds on generic shapes
  // An advisory failure is reported and leaves the check passed; a binding one fails it.
  CheckReport r = rep;
  CheckRow bad;
  bad.group = "layer";
  bad.name = "conv3x3_g4 (conv)";
  bad.passed = false;
  bad.advisory = true;
  r.rows.push_back(bad);
  CHECK(r.passed());
  const std::string table = format_check_table(r);
  CHECK(table.find("warn") != std::string::npos);
  CHECK(table.find("does not stop the run") != std::string::npos);
  r.rows.back().advisory = false;
  CHECK_FALSE(r.passed());
}
