// VGG as torchvision builds it (vgg16 / vgg19, configurations D and E, without batch-norm): 3x3 convs with
// bias, 2x2 max pools, then a 7x7 adaptive average pool and a classifier with dropout.
// The adaptive pool is the identity at the sizes where the features end at 7x7 (224..255), and only those sizes
// are accepted: elsewhere torchvision would resample the map, which no fixed pool layer reproduces, so the
// classifier pins its input width and infer_shapes rejects the size with a UsageError naming the range.
#include <string>
#include <vector>

#include "core/error.h"
#include "models/families.h"
#include "models/net_builder.h"

namespace mg {

ModelDesc build_vgg(int depth, int64_t num_classes) {
  constexpr int M = 0;  // a max pool in the configuration
  std::vector<int> cfg;
  if (depth == 16)
    cfg = {64, 64, M, 128, 128, M, 256, 256, 256, M, 512, 512, 512, M, 512, 512, 512, M};
  else if (depth == 19)
    cfg = {64, 64, M, 128, 128, M, 256, 256, 256, 256, M, 512, 512, 512, 512, M, 512, 512, 512, 512, M};
  else
    throw UsageError("vgg depth " + std::to_string(depth) + " is not offered (allowed: 16, 19)");

  NetBuilder b("vgg" + std::to_string(depth), num_classes);
  int x = NetBuilder::kInput;
  int index = 0;  // torchvision's position in `features`, so layer names match its state_dict
  auto name = [&](const char* seq) { return std::string(seq) + "." + std::to_string(index++); };
  for (int v : cfg) {
    if (v == M) {
      x = b.max_pool(x, name("features"), 2, 2);
    } else {
      x = b.conv(x, name("features"), v, 3, 1, 1, /*bias=*/true);
      x = b.relu(x, name("features"));
    }
  }
  x = b.flatten(x, "flatten");
  index = 0;
  x = b.linear(x, name("classifier"), 4096, 512 * 7 * 7);
  x = b.relu(x, name("classifier"));
  x = b.dropout(x, name("classifier"), 0.5f);
  x = b.linear(x, name("classifier"), 4096);
  x = b.relu(x, name("classifier"));
  x = b.dropout(x, name("classifier"), 0.5f);
  b.linear(x, name("classifier"), num_classes);
  return b.finish(224);
}

}  // namespace mg
