// AlexNet as torchvision builds it (the one-GPU variant of Krizhevsky 2014, no LRN): five convs with bias,
// three 3x3/2 max pools, a 6x6 adaptive average pool, and a classifier whose dropouts precede the linears.
// The adaptive pool is the identity where the features end at 6x6 (image sizes 223..254) and only those
// sizes are accepted, as for VGG (see vgg.cpp): the classifier pins its input width.
#include "models/families.h"
#include "models/net_builder.h"

namespace mg {

ModelDesc build_alexnet(int64_t num_classes) {
  NetBuilder b("alexnet", num_classes);
  int x = b.relu(b.conv(NetBuilder::kInput, "features.0", 64, 11, 4, 2, true), "features.1");
  x = b.max_pool(x, "features.2", 3, 2);
  x = b.relu(b.conv(x, "features.3", 192, 5, 1, 2, true), "features.4");
  x = b.max_pool(x, "features.5", 3, 2);
  x = b.relu(b.conv(x, "features.6", 384, 3, 1, 1, true), "features.7");
  x = b.relu(b.conv(x, "features.8", 256, 3, 1, 1, true), "features.9");
  x = b.relu(b.conv(x, "features.10", 256, 3, 1, 1, true), "features.11");
  x = b.max_pool(x, "features.12", 3, 2);
  x = b.flatten(x, "flatten");
  x = b.dropout(x, "classifier.0", 0.5f);
  x = b.relu(b.linear(x, "classifier.1", 4096, 256 * 6 * 6), "classifier.2");
  x = b.dropout(x, "classifier.3", 0.5f);
  x = b.relu(b.linear(x, "classifier.4", 4096), "classifier.5");
  b.linear(x, "classifier.6", num_classes);
  return b.finish(224);
}

}  // namespace mg
