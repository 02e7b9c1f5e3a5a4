#!/usr/bin/env bash
# On a GPU machine: two or more mgbench bundles (scripts/package.sh archives of different commits) side by side.
# `mgbench check --device cuda` at four precisions for each, then one training command run by each bundle in
# alternating rounds (A B C, C B A, ...), then the bundle GPU check of the last bundle that passed its check
# within what is left of BUDGET_S. Everything under OUT; pack OUT as one archive to bring it back.
#   BUDGET_S=300 ROUNDS=2 dev/gpu/ab-bundles.sh OUT a.tar.xz b.tar.xz [...] -- --model vit-b16 --precision bf16 ...
# The training arguments follow `--`; each run adds --device cuda --gpus 1 --no-progress --json.
set -u
out=$1
shift
bundles=()
while (($#)) && [[ $1 != -- ]]; do bundles+=("$(realpath "$1")"); shift; done
(($#)) && shift
((${#bundles[@]} >= 2 && $# > 0)) || { echo "usage: $0 OUT BUNDLE.tar.xz BUNDLE.tar.xz... -- TRAINING-ARGS" >&2; exit 2; }
budget=${BUDGET_S:-300} rounds=${ROUNDS:-2} t0=$SECONDS
mkdir -p "$out" && out=$(cd "$out" && pwd)
trap 'rm -rf "$out"/bundle-* "$out/gpu-check.tar.xz"' EXIT
exec > >(tee -a "$out/console.txt") 2>&1
# Both sides on PyTorch's CUDA wheels where PyTorch is there, as the bundle's own check does.
libs=$(python3 -c 'import glob, os, nvidia
print(":".join(sorted(d for p in nvidia.__path__ for d in glob.glob(os.path.join(p, "*", "lib")))))' 2>/dev/null) &&
  [[ -n $libs ]] && export MGBENCH_CUDA_LIBS=$libs
n=${#bundles[@]} last_ok=""
for ((i = 0; i < n; i++)); do
  d=$out/bundle-$i
  mkdir -p "$d" && tar -xJf "${bundles[$i]}" -C "$d" --strip-components=1 || exit 1
  echo "bundle $i: $(basename "${bundles[$i]}"): $(head -1 "$d/MANIFEST")"
  timeout 120 "$d/bin/mgbench" check --device cuda --precision fp32,tf32,fp16,bf16 --json "$out/check-$i.json" \
    >"$out/check-$i.txt" 2>&1
  rc=$?
  echo "check $i: exit $rc: $(tail -1 "$out/check-$i.txt")"
  ((rc == 0)) && last_ok=$i
done
k=0
for ((r = 0; r < rounds; r++)); do
  for ((j = 0; j < n; j++)); do
    i=$(((r % 2) ? n - 1 - j : j))
    k=$((k + 1))
    timeout 120 "$out/bundle-$i/bin/mgbench" --device cuda --gpus 1 --no-progress --json "$out/run-$k-bundle-$i.json" \
      "$@" >"$out/run-$k-bundle-$i.txt" 2>&1
    echo "run $k bundle $i: exit $?: $(grep -A1 '^devices' "$out/run-$k-bundle-$i.txt" | tail -1)"
  done
done
[[ -n $last_ok ]] || { echo "no bundle passed its check: no GPU check"; exit 1; }
left=$((budget - (SECONDS - t0) - 15))
((left >= 60)) || echo "warning: $left s of BUDGET_S left for the GPU check: most of its steps will be skipped"
echo "GPU check of bundle $last_ok within $left s"
MG_GPU_BUDGET_S=$left "$out/bundle-$last_ok/bin/mgbench-gpu-check" "$out/gpu-check" >/dev/null 2>&1
echo "GPU check: exit $?"
cat "$out/gpu-check/summary.md" 2>/dev/null
