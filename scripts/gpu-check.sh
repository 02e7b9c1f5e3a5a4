#!/usr/bin/env bash
# The first run of mgbench's CUDA path on your own GPU machine, in one command (see docs/gpu-check.md):
#   1. configure and build with CUDA (targets mgbench and test_gpu)
#   2. mgbench check: every layer kind at every precision the GPU supports against the CPU backend,
#      all-reduce/broadcast over every visible GPU with a #wrong count, copy/compute overlap, training steps
#   3. the GPU test set (tests/gpu)
#   4. compute-sanitizer memcheck on a short training run
#   5. ResNet-50 fp32 and bf16 benchmarks (data on the device, and staged from the host) beside the project's
#      PyTorch reference loop (scripts/measure/torch_reference.py) at the same model, batch and precision
# Everything goes to one folder, ${OUT:-./gpu-check-<date>-<host>}: log.txt (all output), check.txt and
# check.json, test_gpu.txt, memcheck.txt, mgbench-resnet50-<prec>-<src>.json, torch-resnet50-<prec>.json and
# summary.json. Every step runs even when an earlier one failed; the failures are listed at the end.
#
#   scripts/gpu-check.sh                 # exit 0 when every step passed, 1 when one failed, 77 without a GPU
#   scripts/gpu-check.sh --build-only    # find the toolchain and libraries, configure and build; no GPU needed
#
# Environment: CUDNN_ROOT, NCCL_ROOT, CUDA_HOME / CUDACXX   where cuDNN, NCCL and nvcc are, when not found
#              MG_GPU_BATCH (128), MG_GPU_STEPS (30), MG_GPU_WARMUP (10), MG_GPU_BUILD_DIR (./build-gpu)
#              PYTHON (python3): an interpreter with PyTorch and torchvision, for the reference
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
out=${OUT:-$root/gpu-check-$(date +%Y%m%d-%H%M%S)-$(hostname -s)}
build=${MG_GPU_BUILD_DIR:-$root/build-gpu}
batch=${MG_GPU_BATCH:-128}
steps=${MG_GPU_STEPS:-30}
warmup=${MG_GPU_WARMUP:-10}
python=${PYTHON:-python3}
build_only=0
[[ "${1:-}" == "--build-only" ]] && build_only=1

say() { printf '== %s %s\n' "$(date +%H:%M:%S)" "$*"; }

# ---- a GPU?
have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then have_gpu=1; fi
if ((!have_gpu && !build_only)); then
  echo "gpu-check: no NVIDIA GPU on this machine (nvidia-smi is missing or lists no device): nothing to check, skipped."
  exit 77
fi

mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
exec > >(tee -a "$out/log.txt") 2>&1
die() { say "gpu-check: $*"; exit 1; }
failures=()
# step NAME CMD...: runs CMD, records a failure instead of stopping.
step() {
  local name=$1 rc t0=$SECONDS
  shift
  say "$name: $*"
  "$@"
  rc=$?
  say "$name: exit $rc after $((SECONDS - t0)) s"
  ((rc == 0)) || failures+=("$name (exit $rc)")
  return $rc
}

say "gpu-check in $root on $(hostname), results in $out"
arch=${CMAKE_CUDA_ARCHITECTURES:-native}
if ((have_gpu)); then
  nvidia-smi
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
  [[ "$cc" =~ ^[0-9]+$ ]] && arch=${CMAKE_CUDA_ARCHITECTURES:-$cc}
  say "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) (sm_$arch), driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
fi

# ---- the CUDA toolkit, cuDNN and NCCL
nvcc=""
for c in "${CUDACXX:-}" "${CUDA_HOME:+$CUDA_HOME/bin/nvcc}" /usr/local/cuda/bin/nvcc "$(command -v nvcc 2>/dev/null)"; do
  if [[ -n "$c" && -x "$c" ]]; then nvcc=$c; break; fi
done
[[ -n "$nvcc" ]] || die "no nvcc found: set CUDACXX or CUDA_HOME"
cuda_root=$(cd "$(dirname "$(readlink -f "$nvcc")")/.." && pwd)
say "CUDA toolkit: $cuda_root ($("$nvcc" --version | tail -1))"
# An explicit root, PyTorch's pip wheels (nvidia.cudnn / nvidia.nccl), the toolkit, /usr.
pip_root() {
  "$python" -c "import importlib; m = importlib.import_module('$1'); print(list(m.__path__)[0])" 2>/dev/null
}
# locate HEADER LIB ROOTS...: prints "<include dir> <library file>"; the library may be only the versioned file
# (wheels ship libcudnn.so.9 without the libcudnn.so link), so that file is passed to CMake directly.
locate() {
  local header=$1 lib=$2
  shift 2
  local r d f inc="" so=""
  for r in "$@"; do
    [[ -n "$r" && -d "$r" ]] || continue
    for d in "$r/include" "$r/include/x86_64-linux-gnu" "$r"; do
      [[ -z "$inc" && -f "$d/$header" ]] && inc=$d
    done
    for d in "$r/lib" "$r/lib64" "$r/lib/x86_64-linux-gnu" "$r/targets/x86_64-linux/lib"; do
      [[ -z "$so" && -e "$d/lib$lib.so" ]] && so="$d/lib$lib.so"
      if [[ -z "$so" ]]; then
        for f in "$d"/lib"$lib".so.[0-9]*; do [[ -e "$f" ]] && { so=$f; break; }; done
      fi
    done
    [[ -n "$inc" && -n "$so" ]] && break
    inc="" so=""
  done
  [[ -n "$inc" && -n "$so" ]] && echo "$inc $so"
}
read -r cudnn_inc cudnn_lib < <(locate cudnn_version.h cudnn "${CUDNN_ROOT:-}" "$(pip_root nvidia.cudnn)" \
  "$cuda_root" /usr/local/cuda /usr)
read -r nccl_inc nccl_lib < <(locate nccl.h nccl "${NCCL_ROOT:-}" "$(pip_root nvidia.nccl)" "$cuda_root" \
  /usr/local/cuda /usr)
[[ -n "${cudnn_lib:-}" ]] || die "cuDNN not found (set CUDNN_ROOT to a directory with include/cudnn_version.h and lib/)"
[[ -n "${nccl_lib:-}" ]] || die "NCCL not found (set NCCL_ROOT to a directory with include/nccl.h and lib/)"
say "cuDNN: $cudnn_lib (headers $cudnn_inc)"
say "NCCL: $nccl_lib (headers $nccl_inc)"
export LD_LIBRARY_PATH="$(dirname "$cudnn_lib"):$(dirname "$nccl_lib"):$cuda_root/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# ---- 1. configure and build
command -v cmake >/dev/null || die "cmake (>= 3.25) is not installed; scripts/setup.sh installs the dependencies"
step configure cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMGBENCH_CUDA=ON \
  "-DCMAKE_CUDA_COMPILER=$nvcc" "-DCUDAToolkit_ROOT=$cuda_root" "-DCMAKE_CUDA_ARCHITECTURES=$arch" \
  "-DCUDNN_INCLUDE_DIR=$cudnn_inc" "-DCUDNN_LIBRARY=$cudnn_lib" "-DNCCL_INCLUDE_DIR=$nccl_inc" \
  "-DNCCL_LIBRARY=$nccl_lib" || die "configure failed"
step build cmake --build "$build" -j "$(nproc)" --target mgbench test_gpu || die "build failed"
mgbench="$build/mgbench"
if ((build_only)); then
  say "built $mgbench and $build/tests/test_gpu (--build-only: nothing run on a GPU)"
  exit 0
fi
"$mgbench" --version

# ---- 2. mgbench check
step check bash -c '"$1" check --device cuda --json "$2/check.json" | tee "$2/check.txt"; exit "${PIPESTATUS[0]}"' \
  _ "$mgbench" "$out"

# ---- 3. the GPU test set
step gpu-tests bash -c '"$1" --durations yes 2>&1 | tee "$2/test_gpu.txt"; exit "${PIPESTATUS[0]}"' \
  _ "$build/tests/test_gpu" "$out"

# ---- 4. memcheck on a short training run (staged input, so the copy path runs too)
sanitizer=""
for c in "$cuda_root/bin/compute-sanitizer" "$cuda_root/compute-sanitizer/compute-sanitizer" \
  "$(command -v compute-sanitizer 2>/dev/null)"; do
  if [[ -n "$c" && -x "$c" ]]; then sanitizer=$c; break; fi
done
if [[ -n "$sanitizer" ]]; then
  step memcheck bash -c '"$1" --tool memcheck --error-exitcode 3 --leak-check no "$2" --device cuda --gpus 1 \
    --model tiny --batch-size 8 --steps 3 --warmup 1 --synthetic-source host --no-progress --no-check \
    --json "$3/memcheck-tiny.json" 2>&1 | tee "$3/memcheck.txt"; exit "${PIPESTATUS[0]}"' _ "$sanitizer" "$mgbench" "$out"
else
  failures+=("memcheck (compute-sanitizer not found in $cuda_root or on PATH)")
fi

# ---- 5. ResNet-50 beside PyTorch's reference, same model, batch and precision
for prec in fp32 bf16; do
  for src in device host; do
    step "resnet50-$prec-$src" "$mgbench" --device cuda --gpus 1 --model resnet50 --precision "$prec" \
      --batch-size "$batch" --steps "$steps" --warmup "$warmup" --synthetic-source "$src" --no-progress \
      --json "$out/mgbench-resnet50-$prec-$src.json"
  done
  if "$python" -c 'import torch, torchvision' 2>/dev/null; then
    # The reference prints one JSON line.
    step "torch-resnet50-$prec" bash -c '"$1" "$2" --device cuda --model resnet50 --batch "$3" --precision "$4" \
      --channels-last --steps "$5" --warmup "$6" >"$7"' _ "$python" "$root/scripts/measure/torch_reference.py" \
      "$batch" "$prec" "$steps" "$warmup" "$out/torch-resnet50-$prec.json"
  else
    failures+=("torch-resnet50-$prec ($python has no torch/torchvision: set PYTHON)")
  fi
done

# ---- summary: mgbench vs PyTorch, input-wait share with host staging, memory
"$python" - "$out" <<'PY' || failures+=("summary")
import json, os, sys
out = sys.argv[1]
def load(name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
summary = {}
check = load("check.json")
if check:
    summary["check"] = {"passed": check["passed"], "rows": len(check["rows"]),
                        "failed": [r["name"] + " " + r["precision"] for r in check["rows"] if not r["passed"]]}
for prec in ("fp32", "bf16"):
    ref = load(f"torch-resnet50-{prec}.json")
    for src in ("device", "host"):
        r = load(f"mgbench-resnet50-{prec}-{src}.json")
        if not r or not r.get("runs"):
            continue
        run = r["runs"][0]
        e = {"images_per_sec": run["images_per_sec"],
             "images_per_sec_from_steps": run.get("images_per_sec_from_steps"),
             "median_step_s": run["step_time"]["median_s"],
             "input_wait_s": run["breakdown"]["input_wait_s"],
             "peak_memory_bytes": run["peak_memory_bytes"],
             "device_memory_in_use_bytes": run.get("device_memory_in_use_bytes")}
        if ref:
            e["torch_images_per_sec"] = ref["images_per_sec"]
            e["ratio_vs_torch"] = run["images_per_sec"] / ref["images_per_sec"]
        summary[f"{prec}-{src}"] = e
        print(f"resnet50 {prec} {src:6s}: {e['images_per_sec']:8.1f} img/s"
              + (f"  torch {e['torch_images_per_sec']:8.1f} img/s  ratio {e['ratio_vs_torch']:.3f}" if ref else "")
              + f"  peak {e['peak_memory_bytes'] / 2**30:.2f} GiB")
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump(summary, f, indent=2)
sys.exit(0 if summary else 1)
PY

if ((${#failures[@]})); then
  say "gpu-check: FAILED steps:"
  printf '  - %s\n' "${failures[@]}"
  say "results in $out"
  exit 1
fi
say "gpu-check: all steps passed; results in $out"
