// Test networks, not benchmarks: small enough to train in seconds on a CPU and to check gradients exactly.
// "tiny" exercises conv, batch-norm, relu, max pool, global average pool and linear; "tiny_nobn" drops
// batch-norm (its convs then carry a bias), so its backward is a pure function of the batch elements and
// data-parallel gradients must equal single-device ones exactly.
#include "models/families.h"
#include "models/net_builder.h"

namespace mg {

ModelDesc build_tiny(bool batch_norm, int64_t num_classes) {
  NetBuilder b(batch_norm ? "tiny" : "tiny_nobn", num_classes);
  auto conv_block = [&](int in, const std::string& p, int64_t out) {
    int x = b.conv(in, p + ".conv", out, 3, 1, 1, /*bias=*/!batch_norm);
    if (batch_norm) x = b.batch_norm(x, p + ".bn", 1e-5f);
    return b.relu(x, p + ".relu");
  };
  int x = conv_block(NetBuilder::kInput, "block1", 8);
  x = b.max_pool(x, "pool", 2, 2);
  x = conv_block(x, "block2", 16);
  x = b.global_avg_pool(x, "avgpool");
  b.linear(x, "fc", num_classes);
  return b.finish(32);
}

}  // namespace mg
