// Inception v3 as torchvision builds it (torchvision.models.inception_v3) with aux_logits=False: the auxiliary
// classifier only adds a training-time loss branch on Mixed_6e, and benchmarks conventionally time the main
// network alone (torchvision's own pretrained weights are evaluated without it). transform_input is off, as it
// is for a model trained from scratch. Every conv is BasicConv2d: conv without bias, BN (eps 1e-3), ReLU.
// Branch pools are 3x3 stride-1 pad-1 average pools with torch's default count_include_pad=True; reducing
// pools are 3x3 stride-2 max pools. Default image size 299.
#include <string>
#include <vector>

#include "models/families.h"
#include "models/net_builder.h"

namespace mg {

namespace {

constexpr float kInceptionBnEps = 1e-3f;

class Inception {
 public:
  explicit Inception(NetBuilder& b) : b_(b) {}

  int basic(int in, const std::string& name, int64_t out, int64_t k, int64_t stride = 1, int64_t pad = 0) {
    return finish(b_.conv(in, name + ".conv", out, k, stride, pad), name);
  }
  int basic2(int in, const std::string& name, int64_t out, int64_t kh, int64_t kw, int64_t ph, int64_t pw) {
    return finish(b_.conv2(in, name + ".conv", out, kh, kw, ph, pw), name);
  }

  int block_a(int x, const std::string& p, int64_t pool_features) {
    const int b1 = basic(x, p + ".branch1x1", 64, 1);
    int b5 = basic(x, p + ".branch5x5_1", 48, 1);
    b5 = basic(b5, p + ".branch5x5_2", 64, 5, 1, 2);
    int b3 = basic(x, p + ".branch3x3dbl_1", 64, 1);
    b3 = basic(b3, p + ".branch3x3dbl_2", 96, 3, 1, 1);
    b3 = basic(b3, p + ".branch3x3dbl_3", 96, 3, 1, 1);
    const int bp = basic(b_.avg_pool(x, p + ".avg_pool", 3, 1, 1), p + ".branch_pool", pool_features, 1);
    return b_.concat({b1, b5, b3, bp}, p + ".concat");
  }

  int block_b(int x, const std::string& p) {
    const int b3 = basic(x, p + ".branch3x3", 384, 3, 2);
    int bd = basic(x, p + ".branch3x3dbl_1", 64, 1);
    bd = basic(bd, p + ".branch3x3dbl_2", 96, 3, 1, 1);
    bd = basic(bd, p + ".branch3x3dbl_3", 96, 3, 2);
    const int bp = b_.max_pool(x, p + ".max_pool", 3, 2);
    return b_.concat({b3, bd, bp}, p + ".concat");
  }

  int block_c(int x, const std::string& p, int64_t c7) {
    const int b1 = basic(x, p + ".branch1x1", 192, 1);
    int b7 = basic(x, p + ".branch7x7_1", c7, 1);
    b7 = basic2(b7, p + ".branch7x7_2", c7, 1, 7, 0, 3);
    b7 = basic2(b7, p + ".branch7x7_3", 192, 7, 1, 3, 0);
    int bd = basic(x, p + ".branch7x7dbl_1", c7, 1);
    bd = basic2(bd, p + ".branch7x7dbl_2", c7, 7, 1, 3, 0);
    bd = basic2(bd, p + ".branch7x7dbl_3", c7, 1, 7, 0, 3);
    bd = basic2(bd, p + ".branch7x7dbl_4", c7, 7, 1, 3, 0);
    bd = basic2(bd, p + ".branch7x7dbl_5", 192, 1, 7, 0, 3);
    const int bp = basic(b_.avg_pool(x, p + ".avg_pool", 3, 1, 1), p + ".branch_pool", 192, 1);
    return b_.concat({b1, b7, bd, bp}, p + ".concat");
  }

  int block_d(int x, const std::string& p) {
    int b3 = basic(x, p + ".branch3x3_1", 192, 1);
    b3 = basic(b3, p + ".branch3x3_2", 320, 3, 2);
    int b7 = basic(x, p + ".branch7x7x3_1", 192, 1);
    b7 = basic2(b7, p + ".branch7x7x3_2", 192, 1, 7, 0, 3);
    b7 = basic2(b7, p + ".branch7x7x3_3", 192, 7, 1, 3, 0);
    b7 = basic(b7, p + ".branch7x7x3_4", 192, 3, 2);
    const int bp = b_.max_pool(x, p + ".max_pool", 3, 2);
    return b_.concat({b3, b7, bp}, p + ".concat");
  }

  // torchvision concatenates the split 1x3/3x1 pairs first and then the four branches; one flat concat of
  // the six tensors in the same order gives the same channel order with one copy instead of three.
  int block_e(int x, const std::string& p) {
    const int b1 = basic(x, p + ".branch1x1", 320, 1);
    const int b3 = basic(x, p + ".branch3x3_1", 384, 1);
    const int b3a = basic2(b3, p + ".branch3x3_2a", 384, 1, 3, 0, 1);
    const int b3b = basic2(b3, p + ".branch3x3_2b", 384, 3, 1, 1, 0);
    int bd = basic(x, p + ".branch3x3dbl_1", 448, 1);
    bd = basic(bd, p + ".branch3x3dbl_2", 384, 3, 1, 1);
    const int bda = basic2(bd, p + ".branch3x3dbl_3a", 384, 1, 3, 0, 1);
    const int bdb = basic2(bd, p + ".branch3x3dbl_3b", 384, 3, 1, 1, 0);
    const int bp = basic(b_.avg_pool(x, p + ".avg_pool", 3, 1, 1), p + ".branch_pool", 192, 1);
    return b_.concat({b1, b3a, b3b, bda, bdb, bp}, p + ".concat");
  }

 private:
  int finish(int conv, const std::string& name) {
    return b_.relu(b_.batch_norm(conv, name + ".bn", kInceptionBnEps), name + ".relu");
  }
  NetBuilder& b_;
};

}  // namespace

ModelDesc build_inception3(int64_t num_classes) {
  NetBuilder b("inception3", num_classes);
  Inception n(b);
  int x = n.basic(NetBuilder::kInput, "Conv2d_1a_3x3", 32, 3, 2);
  x = n.basic(x, "Conv2d_2a_3x3", 32, 3);
  x = n.basic(x, "Conv2d_2b_3x3", 64, 3, 1, 1);
  x = b.max_pool(x, "maxpool1", 3, 2);
  x = n.basic(x, "Conv2d_3b_1x1", 80, 1);
  x = n.basic(x, "Conv2d_4a_3x3", 192, 3);
  x = b.max_pool(x, "maxpool2", 3, 2);
  x = n.block_a(x, "Mixed_5b", 32);
  x = n.block_a(x, "Mixed_5c", 64);
  x = n.block_a(x, "Mixed_5d", 64);
  x = n.block_b(x, "Mixed_6a");
  x = n.block_c(x, "Mixed_6b", 128);
  x = n.block_c(x, "Mixed_6c", 160);
  x = n.block_c(x, "Mixed_6d", 160);
  x = n.block_c(x, "Mixed_6e", 192);
  x = n.block_d(x, "Mixed_7a");
  x = n.block_e(x, "Mixed_7b");
  x = n.block_e(x, "Mixed_7c");
  x = b.global_avg_pool(x, "avgpool");
  x = b.dropout(x, "dropout", 0.5f);
  b.linear(x, "fc", num_classes);
  return b.finish(299);
}

}  // namespace mg
