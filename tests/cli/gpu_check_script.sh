#!/usr/bin/env bash
# scripts/gpu-check.sh's plumbing, without a GPU: it skips (77) where there is none; with a stand-in
# nvidia-smi and a time budget too small for any step it refuses to start the configure step, says why, fails,
# and leaves no more files than the device tool brings back (8).
source "$(dirname "$0")/lib.bash"
: "${MG_SOURCE_DIR:?}"
script="$MG_SOURCE_DIR/scripts/gpu-check.sh"

if ! command -v nvidia-smi >/dev/null; then
  OUT="$TMP/none" expect_status 77 bash "$script"
  grep -q "no NVIDIA GPU" "$TMP/out" || { cat "$TMP/out"; fail "no-GPU message"; }
fi

nvcc_found=""
for c in "${CUDACXX:-}" /usr/local/cuda/bin/nvcc "$(command -v nvcc 2>/dev/null)"; do
  [[ -n "$c" && -x "$c" ]] && nvcc_found=$c && break
done
if [[ -z $nvcc_found ]]; then
  echo "no CUDA toolkit: the budget part needs one to get past the toolchain search"
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
chmod +x "$TMP/bin/nvidia-smi"
PATH="$TMP/bin:$PATH" OUT="$TMP/out1" MG_GPU_BUDGET_S=5 MG_GPU_BUILD_DIR="$TMP/build" expect_status 1 bash "$script"
grep -q "configure: skipped, the 5 s budget is spent" "$TMP/out" || { cat "$TMP/out"; fail "budget not applied"; }
[[ ! -d "$TMP/build" ]] || fail "a skipped configure must not have run cmake"
[[ $(find "$TMP/out1" -type f | wc -l) -le 8 ]] || { ls -la "$TMP/out1"; fail "more files than the device tool returns"; }
[[ -s "$TMP/out1/gpu-check.log" ]] || fail "no log"
echo "ok"
