// A bare layer description of one kind, named "l", for tests that fill in only the parameters they exercise.
#pragma once
#include "models/layer_desc.h"

namespace mg::test {

inline LayerDesc layer_of(LayerKind k) {
  LayerDesc d;
  d.kind = k;
  d.name = "l";
  return d;
}

}  // namespace mg::test
