#!/usr/bin/env bash
# Proves the CUDA path on a GPU machine in one command (see docs/gpu-check.md):
#   configure + build with CUDA, the GPU test set, compute-sanitizer memcheck on a short training run,
#   ResNet-50 fp32 and bf16 benchmarks (synthetic data on the device and staged from the host), and PyTorch's
#   reference loop (../shared/anchors/torch_gpu_train.py) at the same model, batch and precision.
# ${OUT:-./gpu-check-out} gets three files, so the device tool (8 files at most) brings all of them back:
# gpu-check.log (everything printed), summary.json, and gpu-check-files.tar.gz (every result and reference JSON),
# refreshed after each step so a run cut short still returns what it measured.
#
#   scripts/gpu-check.sh                   # the whole check; exit 0 when every step passed, 77 without a GPU
#   scripts/gpu-check.sh --build-only      # locate the toolchain and libraries, configure and build; no GPU needed
#
# Environment: MG_DEPS_PREFIX   prefix of unpacked Debian packages from scripts/gpu-deps.sh
#                               (default ./.gpu-deps/root when present)
#              CUDNN_ROOT, NCCL_ROOT, CUDA_HOME / CUDACXX   where cuDNN, NCCL and nvcc are, when not found
#              MG_GPU_BATCH (128), MG_GPU_STEPS (30), MG_GPU_WARMUP (10)
#              MG_GPU_BUDGET_S (570)   wall-clock budget: a step gets at most what is left, and steps that no
#                                      longer fit are recorded as skipped (one device command may run 600 s)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
out=${OUT:-$root/gpu-check-out}
build=${MG_GPU_BUILD_DIR:-$root/build-gpu}
batch=${MG_GPU_BATCH:-128}
steps=${MG_GPU_STEPS:-30}
warmup=${MG_GPU_WARMUP:-10}
budget=${MG_GPU_BUDGET_S:-570}
build_only=0
[[ "${1:-}" == "--build-only" ]] && build_only=1
mkdir -p "$out"
out=$(cd "$out" && pwd)
log="$out/gpu-check.log"
: >"$log"
exec > >(tee -a "$log") 2>&1
files=$(mktemp -d "${TMPDIR:-/tmp}/mgbench-gpu-check.XXXXXX")
trap 'rm -rf "$files"' EXIT
# pack: the per-step files as one archive in $out (written aside, then renamed: never half an archive).
pack() {
  tar -czf "$out/.gpu-check-files.tar.gz" -C "$files" . && mv "$out/.gpu-check-files.tar.gz" "$out/gpu-check-files.tar.gz"
}

say() { printf '== %s %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { say "gpu-check: $*"; exit 1; }
failures=()
# fit LIMIT: prints the time limit a step may have, at most LIMIT and what is left of the budget (less a margin
# for the summary); prints 0 when too little is left to start it.
fit() {
  local left=$((budget - SECONDS - 20))
  ((left < 15)) && { echo 0; return; }
  echo $(($1 < left ? $1 : left))
}
# run_step NAME SECONDS CMD...: runs CMD under a time limit, records a failure instead of stopping.
run_step() {
  local name=$1 limit
  limit=$(fit "$2")
  shift 2
  if ((limit == 0)); then
    say "$name: skipped, the ${budget} s budget is spent"
    failures+=("$name (skipped: out of time)")
    return 1
  fi
  say "$name: $*"
  local t0=$SECONDS rc
  timeout --kill-after=10 "$limit" "$@"
  rc=$?
  say "$name: exit $rc after $((SECONDS - t0)) s"
  ((rc == 0)) || failures+=("$name (exit $rc$( ((rc == 124)) && echo ", timed out after $limit s"))")
  pack
  return $rc
}

say "gpu-check in $root on $(hostname), output in $out"

# ---- 1. a GPU?
have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then have_gpu=1; fi
if ((!have_gpu && !build_only)); then
  echo "gpu-check: no NVIDIA GPU on this machine (nvidia-smi is missing or lists no device): nothing to check, skipped."
  exit 77
fi
arch=${CMAKE_CUDA_ARCHITECTURES:-90}
if ((have_gpu)); then
  nvidia-smi
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
  [[ "$cc" =~ ^[0-9]+$ ]] && arch=${CMAKE_CUDA_ARCHITECTURES:-$cc}
  say "GPU: $gpu_name (sm_$arch), driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
fi

# ---- 2. CUDA toolkit
nvcc=""
for c in "${CUDACXX:-}" "${CUDA_HOME:+$CUDA_HOME/bin/nvcc}" /usr/local/cuda/bin/nvcc "$(command -v nvcc 2>/dev/null)"; do
  if [[ -n "$c" && -x "$c" ]]; then nvcc=$c; break; fi
done
[[ -n "$nvcc" ]] || die "no nvcc found: set CUDACXX or CUDA_HOME"
cuda_root=$(cd "$(dirname "$(readlink -f "$nvcc")")/.." && pwd)
say "CUDA toolkit: $cuda_root ($("$nvcc" --version | tail -1))"

# ---- 3. cuDNN and NCCL: an explicit root, PyTorch's pip wheels (nvidia.cudnn / nvidia.nccl), the toolkit, /usr
pip_root() {
  python3 -c "import importlib; m = importlib.import_module('$1'); print(list(m.__path__)[0])" 2>/dev/null
}
# locate NAME HEADER LIB ROOTS...: prints "<include dir> <library file>"; the library may be only the versioned
# file (wheels ship libcudnn.so.9 without the libcudnn.so link), so that file is passed to CMake directly.
locate() {
  local header=$2 lib=$3
  shift 3
  local r inc="" so=""
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
read -r cudnn_inc cudnn_lib < <(locate cuDNN cudnn_version.h cudnn "${CUDNN_ROOT:-}" "$(pip_root nvidia.cudnn)" \
  "$cuda_root" /usr/local/cuda /usr)
read -r nccl_inc nccl_lib < <(locate NCCL nccl.h nccl "${NCCL_ROOT:-}" "$(pip_root nvidia.nccl)" \
  "$cuda_root" /usr/local/cuda /usr)
[[ -n "${cudnn_lib:-}" ]] || die "cuDNN not found (set CUDNN_ROOT to a directory with include/cudnn_version.h and lib/)"
[[ -n "${nccl_lib:-}" ]] || die "NCCL not found (set NCCL_ROOT to a directory with include/nccl.h and lib/)"
say "cuDNN: $cudnn_lib (headers $cudnn_inc)"
say "NCCL: $nccl_lib (headers $nccl_inc)"
libpath="$(dirname "$cudnn_lib"):$(dirname "$nccl_lib"):$cuda_root/lib64"

# ---- 4. Debian libraries: the system's, or a carried prefix from scripts/gpu-deps.sh
cmake_args=()
prefix=${MG_DEPS_PREFIX:-$root/.gpu-deps/root}
if [[ -d "$prefix/usr" ]]; then
  prefix=$(cd "$prefix" && pwd)
  say "Debian libraries from $prefix"
  # Debian's files name /usr; point them at the prefix (idempotent: rewritten lines no longer start with /usr).
  sed -i "s|\"/usr/lib/libgloo|\"$prefix/usr/lib/libgloo|g" "$prefix"/usr/share/cmake/Gloo/GlooTargets-*.cmake
  find "$prefix" -name '*.pc' -exec sed -i -E "s|^([A-Za-z_]+)=/usr|\\1=$prefix/usr|" {} +
  lib="$prefix/usr/lib/x86_64-linux-gnu"
  mpi="$lib/openmpi"
  export PKG_CONFIG_PATH="$lib/pkgconfig:$mpi/lib/pkgconfig:$prefix/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  cmake_args+=("-DCMAKE_PREFIX_PATH=$prefix/usr;$lib/cmake;$prefix/usr/share/cmake;$prefix/usr/lib/cmake"
    -DMPI_SKIP_COMPILER_WRAPPER=ON -DMPI_CXX_SKIP_MPICXX=ON "-DMPI_CXX_HEADER_DIR=$mpi/include"
    "-DMPI_CXX_ADDITIONAL_INCLUDE_DIRS=$mpi/include/openmpi" -DMPI_CXX_LIB_NAMES=mpi
    "-DMPI_mpi_LIBRARY=$mpi/lib/libmpi.so")
  libpath="$libpath:$lib:$prefix/usr/lib"
fi
export LD_LIBRARY_PATH="$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# ---- 5. configure and build
command -v cmake >/dev/null || die "cmake (>= 3.25) is not installed"
jobs=$(nproc)
run_step configure 300 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMGBENCH_CUDA=ON \
  "-DCMAKE_CUDA_COMPILER=$nvcc" "-DCUDAToolkit_ROOT=$cuda_root" "-DCMAKE_CUDA_ARCHITECTURES=$arch" \
  "-DCUDNN_INCLUDE_DIR=$cudnn_inc" "-DCUDNN_LIBRARY=$cudnn_lib" "-DNCCL_INCLUDE_DIR=$nccl_inc" \
  "-DNCCL_LIBRARY=$nccl_lib" "${cmake_args[@]}" || die "configure failed"
run_step build 420 cmake --build "$build" -j "$jobs" --target mgbench test_gpu || die "build failed"
mgbench="$build/mgbench"
if ((build_only)); then
  say "built $mgbench and $build/tests/test_gpu (--build-only: no GPU steps)"
  exit 0
fi
"$mgbench" --version

# ---- 6. GPU test set
run_step gpu-tests 300 "$build/tests/test_gpu" --durations yes

# ---- 7. ResNet-50 benchmarks beside PyTorch's reference, most important first (a run cut short by the budget
#         still has a comparison): per precision, mgbench with device-side data, then PyTorch; then host staging.
anchor=""
# ../shared does not travel to a device machine: scripts/gpu-deps.sh copies the anchor into .gpu-deps/anchors.
for c in "${MG_TORCH_ANCHOR:-}" "$root/../shared/anchors/torch_gpu_train.py" "$root/shared/anchors/torch_gpu_train.py" \
  "$root/.gpu-deps/anchors/torch_gpu_train.py"; do
  if [[ -n "$c" && -f "$c" ]]; then anchor=$c; break; fi
done
[[ -n "$anchor" ]] || failures+=("torch reference (torch_gpu_train.py not found; set MG_TORCH_ANCHOR)")
bench() {  # bench PREC SRC
  run_step "resnet50-$1-$2" 200 "$mgbench" --device cuda --gpus 1 --model resnet50 --precision "$1" \
    --batch-size "$batch" --steps "$steps" --warmup "$warmup" --synthetic-source "$2" --no-progress \
    --json "$files/mgbench-resnet50-$1-$2.json"
}
reference() {  # reference PREC
  [[ -n "$anchor" ]] || return 0
  local limit rc
  limit=$(fit 240)
  if ((limit == 0)); then
    say "torch-resnet50-$1: skipped, the ${budget} s budget is spent"
    failures+=("torch-resnet50-$1 (skipped: out of time)")
    return 0
  fi
  say "torch-resnet50-$1: python3 $anchor --model resnet50 --batch $batch --precision $1 --channels-last"
  timeout --kill-after=10 "$limit" python3 "$anchor" --model resnet50 --batch "$batch" --precision "$1" \
    --channels-last --steps "$steps" --warmup "$warmup" | tee "$files/torch-resnet50-$1.out"
  rc=${PIPESTATUS[0]}
  # The reference prints one JSON line last; keep just that.
  tail -1 "$files/torch-resnet50-$1.out" >"$files/torch-resnet50-$1.json" && rm -f "$files/torch-resnet50-$1.out"
  ((rc == 0)) || failures+=("torch-resnet50-$1 (exit $rc)")
  pack
}
for prec in fp32 bf16; do
  bench "$prec" device
  reference "$prec"
done
for prec in fp32 bf16; do bench "$prec" host; done

# ---- 8. memcheck on a short training run
sanitizer=""
for c in "$cuda_root/bin/compute-sanitizer" "$cuda_root/compute-sanitizer/compute-sanitizer" \
  "$(command -v compute-sanitizer 2>/dev/null)"; do
  if [[ -n "$c" && -x "$c" ]]; then sanitizer=$c; break; fi
done
if [[ -n "$sanitizer" ]]; then
  run_step memcheck 240 "$sanitizer" --tool memcheck --error-exitcode 3 --leak-check no \
    "$mgbench" --device cuda --gpus 1 --model tiny --batch-size 8 --steps 3 --warmup 1 --synthetic-source host \
    --no-progress --json "$files/memcheck-tiny.json"
else
  failures+=("memcheck (compute-sanitizer not found)")
fi

# ---- 9. summary: mgbench vs PyTorch, input-wait share with host staging, peak memory
python3 - "$files" "$out" <<'PY' || failures+=("summary")
import json, os, sys
files, out = sys.argv[1], sys.argv[2]
def load(name):
    p = os.path.join(files, name)
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
summary = {}
for prec in ("fp32", "bf16"):
    ref = load(f"torch-resnet50-{prec}.json")
    for src in ("device", "host"):
        r = load(f"mgbench-resnet50-{prec}-{src}.json")
        if not r or not r.get("runs"):
            continue
        run = r["runs"][0]
        e = {"images_per_sec": run["images_per_sec"],
             "input_wait_share": run["breakdown"]["shares"]["input_wait"],
             "peak_memory_bytes": run["peak_memory_bytes"],
             "median_step_s": run["step_time"]["median_s"]}
        if ref:
            e["torch_images_per_sec"] = ref["images_per_sec"]
            e["ratio_vs_torch"] = run["images_per_sec"] / ref["images_per_sec"]
        summary[f"{prec}-{src}"] = e
        print(f"resnet50 {prec} {src:6s}: {e['images_per_sec']:8.1f} img/s"
              + (f"  torch {e['torch_images_per_sec']:8.1f} img/s  ratio {e['ratio_vs_torch']:.3f}" if ref else "")
              + f"  input wait {100 * e['input_wait_share']:.1f}%  peak {e['peak_memory_bytes'] / 2**30:.2f} GiB")
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump(summary, f, indent=2)
sys.exit(0 if summary else 1)
PY

if ((${#failures[@]})); then
  say "gpu-check: FAILED steps:"
  printf '  - %s\n' "${failures[@]}"
  exit 1
fi
say "gpu-check: all steps passed"
