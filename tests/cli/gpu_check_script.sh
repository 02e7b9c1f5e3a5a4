#!/usr/bin/env bash
# scripts/gpu-check.sh's plumbing, without a GPU: where there is none it says so, exits 77 and writes nothing;
# with a stand-in nvidia-smi it finds the toolchain, configures with CUDA for the GPU's architecture and, when a
# step fails, stops with exit 1, the failure named and everything in one results folder.
source "$(dirname "$0")/lib.bash"
: "${MG_SOURCE_DIR:?}"
script="$MG_SOURCE_DIR/scripts/gpu-check.sh"

if ! command -v nvidia-smi >/dev/null; then
  OUT="$TMP/none" expect_status 77 bash "$script"
  grep -q "no NVIDIA GPU" "$TMP/out" || { cat "$TMP/out"; fail "no-GPU message"; }
  [[ ! -e "$TMP/none" ]] || fail "a skipped check must not leave a results folder"
fi

nvcc_found=""
for c in "${CUDACXX:-}" /usr/local/cuda/bin/nvcc "$(command -v nvcc 2>/dev/null)"; do
  [[ -n "$c" && -x "$c" ]] && nvcc_found=$c && break
done
if [[ -z $nvcc_found ]]; then
  echo "no CUDA toolkit: the configure part needs one to get past the toolchain search"
  exit 0
fi
mkdir -p "$TMP/bin"
cat >"$TMP/bin/nvidia-smi" <<'SH'
#!/usr/bin/env bash
case "$*" in
  -L) echo "GPU 0: Stand-in GPU (UUID: GPU-0)" ;;
  *compute_cap*) echo "9.0" ;;
  *name*) echo "Stand-in GPU" ;;
  *driver_version*) echo "0.0" ;;
  *) echo "stand-in nvidia-smi" ;;
esac
SH
# A cmake that records how it was called and fails, so nothing is built (a CUDA build takes many minutes).
cat >"$TMP/bin/cmake" <<SH
#!/usr/bin/env bash
echo "\$*" >>"$TMP/cmake-args"
echo "stand-in cmake: failing on purpose" >&2
exit 1
SH
chmod +x "$TMP/bin/nvidia-smi" "$TMP/bin/cmake"
PATH="$TMP/bin:$PATH" OUT="$TMP/results" MG_GPU_BUILD_DIR="$TMP/build" expect_status 1 bash "$script"
grep -q "GPU: Stand-in GPU (sm_90)" "$TMP/out" || { cat "$TMP/out"; fail "GPU not described"; }
grep -q "configure failed" "$TMP/out" || { cat "$TMP/out"; fail "the failing configure is not named"; }
grep -q -- "-DMGBENCH_CUDA=ON" "$TMP/cmake-args" || fail "not configured with CUDA"
grep -q -- "-DCMAKE_CUDA_ARCHITECTURES=90" "$TMP/cmake-args" || fail "not configured for the GPU's architecture"
[[ -s "$TMP/results/log.txt" ]] || fail "no log in the results folder"
grep -q "stand-in cmake: failing on purpose" "$TMP/results/log.txt" || fail "the log lacks the step's output"
[[ $(find "$TMP" -maxdepth 1 -mindepth 1 -type d -name 'results*' | wc -l) -eq 1 ]] || fail "more than one folder"
echo "ok"
