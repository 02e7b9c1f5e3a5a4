#!/bin/bash
# Alternating A/B, run in the output folder: the current binary as is (cuBLAS opened on first use) vs the same binary with libcublas.so.13
# preloaded, which maps cuBLAS and cuBLASLt at start as the previous link did.
M=/work/main/build/mgbench
PRE=/usr/local/cuda/lib64/libcublas.so.13
for i in $(seq 1 ${N:-8}); do
  for side in lazy linked; do
    env=(); [[ $side == linked ]] && env=(LD_PRELOAD=$PRE)
    /usr/bin/time -f "$side help %e %M" env "${env[@]}" $M --help >/dev/null 2>>times.txt
    env "${env[@]}" /usr/bin/time -f "$side run %e %M" $M --config /work/main/configs/ci-smoke.json --no-progress --steps 4 --warmup 1 --batch-size 128 --json run-$side-$i.json >/dev/null 2>>times.txt
  done
done
