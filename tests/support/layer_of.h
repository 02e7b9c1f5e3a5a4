// A bare layer description of one kind, for tests that fill in only the parameters they exercise.
#pragma once
#include <string>

#include "models/layer_desc.h"

namespace mg::test {

inline LayerDesc layer_of(LayerKind k, const std::string& name = "l") {
  LayerDesc d;
  d.kind = k;
  d.name = name;
  return d;
}

}  // namespace mg::test
