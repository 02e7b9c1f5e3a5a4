#!/usr/bin/env python3
"""The reference side of tests/train/test_gpt2_torch.cpp: scripts/measure/torch_gpt2.py's GPT-2 in float64 on the
parameters, token ids (int32 {batch, size}) and labels mgbench wrote to DIR; writes the logits, the mean
next-token cross-entropy and every parameter's gradient back for the C++ test to compare, or trains with
torch.optim where the manifest names "steps" (reference_harness.py says what DIR holds). The head reads the token
table (tied), so that table's gradient is the sum of its two uses, as mgbench's must be.

  gpt2_torch_reference.py DIR
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "measure"))
from reference_harness import run  # noqa: E402  (beside this script)
from torch_gpt2 import gpt2_forward  # noqa: E402


def read_tokens(m, path, _dtype):
    return torch.from_numpy(np.fromfile(path, dtype=np.int32).astype(np.int64)).reshape(m["batch"], m["size"])


if __name__ == "__main__":
    run(sys.argv[1], lambda p, tokens, m: gpt2_forward(p, tokens, m["layers"], m["heads"], m["eps"]), read_tokens)
