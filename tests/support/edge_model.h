// A small network with the connections the shipped ResNets never have, for the graph-plan tests.
#pragma once
#include "models/layer_desc.h"
#include "models/net_builder.h"

namespace mg::test {

// Batch norm and a residual add straight on the images; a batch norm read by its ReLU and by an add; an add whose
// inputs may share one gradient and one whose may not (a later reader of its first input adds to that gradient
// before the second input's producer reads its own); a batch norm computing an add without a ReLU; an add in
// place over an add in place over a convolution.
inline ModelDesc edge_model() {
  NetBuilder b("edge", 10);
  const int b1 = b.batch_norm(NetBuilder::kInput, "b1", 1e-5f);
  const int r1 = b.relu(b1, "r1");
  const int c1 = b.conv(r1, "c1", 3, 3, 1, 1);
  const int r2 = b.relu(b.add(NetBuilder::kInput, c1, "a1"), "r2");
  const int b2 = b.batch_norm(b.conv(r2, "c2", 8, 3, 1, 1), "b2", 1e-5f);
  const int r3 = b.relu(b2, "r3");
  const int c3 = b.conv(r3, "c3", 8, 3, 1, 1);
  const int r4 = b.relu(b.add(b2, c3, "a2"), "r4");
  const int b5 = b.batch_norm(b.conv(r4, "c5", 8, 3, 1, 1), "b5", 1e-5f);
  const int c4 = b.conv(r4, "c4", 8, 3, 1, 1);
  const int r5 = b.relu(b.add(r4, b5, "a3"), "r5");
  const int r6 = b.relu(b.add(r5, c4, "a4"), "r6");
  const int b7 = b.batch_norm(b.conv(r6, "c7", 8, 3, 1, 1), "b7", 1e-5f);
  const int a5 = b.add(r6, b7, "a5");
  const int c8 = b.conv(a5, "c8", 8, 3, 1, 1);
  const int a6 = b.add(c8, a5, "a6");
  const int r7 = b.relu(b.add(a6, r6, "a7"), "r7");
  b.linear(b.global_avg_pool(r7, "gap"), "fc", 10);
  return b.finish(32);
}

}  // namespace mg::test
