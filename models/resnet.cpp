// ResNet as torchvision builds it (torchvision.models.resnet): v1.5, i.e. the stride of a downsampling
// bottleneck sits on its 3x3 conv rather than the first 1x1, convolutions carry no bias because batch-norm
// follows, BN eps 1e-5, and the projection shortcut is a strided 1x1 conv + BN.
#include <string>

#include "core/error.h"
#include "models/families.h"
#include "models/net_builder.h"

namespace mg {

namespace {

constexpr float kResNetBnEps = 1e-5f;

struct Spec {
  bool bottleneck;
  int blocks[4];
};

Spec spec_for(int depth) {
  switch (depth) {
    case 18: return {false, {2, 2, 2, 2}};
    case 34: return {false, {3, 4, 6, 3}};
    case 50: return {true, {3, 4, 6, 3}};
    case 101: return {true, {3, 4, 23, 3}};
    case 152: return {true, {3, 8, 36, 3}};
  }
  throw UsageError("resnet depth " + std::to_string(depth) + " is not offered (allowed: 18, 34, 50, 101, 152)");
}

int conv_bn(NetBuilder& b, int in, const std::string& p, const std::string& i, int64_t out, int64_t k,
            int64_t stride, int64_t pad) {
  const int c = b.conv(in, p + "conv" + i, out, k, stride, pad);
  return b.batch_norm(c, p + "bn" + i, kResNetBnEps);
}

// One residual block; returns its output. `in_channels` is what enters it, for deciding on a projection.
int block(NetBuilder& b, int in, const std::string& p, bool bottleneck, int64_t in_channels, int64_t planes,
          int64_t stride) {
  const int64_t expansion = bottleneck ? 4 : 1;
  int x;
  if (bottleneck) {
    x = b.relu(conv_bn(b, in, p, "1", planes, 1, 1, 0), p + "relu1");
    x = b.relu(conv_bn(b, x, p, "2", planes, 3, stride, 1), p + "relu2");
    x = conv_bn(b, x, p, "3", planes * expansion, 1, 1, 0);
  } else {
    x = b.relu(conv_bn(b, in, p, "1", planes, 3, stride, 1), p + "relu1");
    x = conv_bn(b, x, p, "2", planes, 3, 1, 1);
  }
  int shortcut = in;
  if (stride != 1 || in_channels != planes * expansion) {
    const int c = b.conv(in, p + "downsample.0", planes * expansion, 1, stride, 0);
    shortcut = b.batch_norm(c, p + "downsample.1", kResNetBnEps);
  }
  return b.relu(b.add(x, shortcut, p + "add"), p + "relu");
}

}  // namespace

ModelDesc build_resnet(int depth, int64_t num_classes) {
  const Spec s = spec_for(depth);
  NetBuilder b("resnet" + std::to_string(depth), num_classes);
  int x = b.conv(NetBuilder::kInput, "conv1", 64, 7, 2, 3);
  x = b.relu(b.batch_norm(x, "bn1", kResNetBnEps), "relu");
  x = b.max_pool(x, "maxpool", 3, 2, 1);
  int64_t channels = 64;
  const int64_t expansion = s.bottleneck ? 4 : 1;
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t planes = int64_t{64} << stage;
    for (int i = 0; i < s.blocks[stage]; ++i) {
      const int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
      const std::string p = "layer" + std::to_string(stage + 1) + "." + std::to_string(i) + ".";
      x = block(b, x, p, s.bottleneck, channels, planes, stride);
      channels = planes * expansion;
    }
  }
  x = b.global_avg_pool(x, "avgpool");
  b.linear(x, "fc", num_classes);
  return b.finish(224);
}

}  // namespace mg
