#!/usr/bin/env bash
# The bundle's first run on a GPU machine, nothing to build (docs/bundle.md): bin/mgbench-gpu-check [OUT]
# Within a time budget (MG_GPU_BUDGET_S, default 480 s) it runs, most important first: nvidia-smi, the libraries
# loaded, mgbench topo, mgbench check at every precision, the GPU test set, ResNet-50's cuDNN choices at fp32,
# GPT-2 at bf16 (sequence 1024, device-synthetic tokens) beside PyTorch with bf16 autocast, plain and with fused
# attention, ViT-B/16 at bf16 (batch 64, device-synthetic images) beside torchvision's vit_b_16, compute-sanitizer
# memcheck and racecheck on 3-step GPT-2-tiny and ViT-tiny runs, ResNet-50 training at batch 256 at bf16, fp16,
# tf32 and fp32 (device-synthetic data) each beside PyTorch channels-last (AMP for 16-bit), memcheck and racecheck
# on ResNet-18, ResNet-50 on JPEGs made on the spot and staged from the host, mgbench comm, mgbench predict to 8
# GPUs beside a published 8-GPU figure, then PyTorch eager NCHW and torch.compile while time remains. A failing or
# missing step (no torchvision, no compute-sanitizer) is recorded and the rest still runs; a
# step the budget cannot fit is recorded as skipped. Every mgbench training run also times its last warm-up step
# layer by layer (--layer-times, outside the timed window); the summary gives each model's time by layer kind.
# Everything goes to OUT (default ./mgbench-gpu-check-<date>-<host>) and OUT.tar.xz: log.txt, steps.tsv (step,
# status, seconds), one file per step, summary.json and summary.md.
# Exit 0 when every step passed, 1 when a step failed or was skipped, 77 without a GPU.
# Knobs: MG_GPU_BATCH (256), MG_GPU_LM_BATCH (8, GPT-2's sequences), MG_GPU_VIT_BATCH (64), MG_GPU_STEPS (20),
# MG_GPU_WARMUP (5), MG_GPU_BUDGET_S (480), PYTHON (python3), MG_GPU_HOST_LIBS=1 (mgbench takes CUDA's libraries
# from the host, not from PyTorch's wheels).
set -uo pipefail
bundle=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
mgbench=$bundle/bin/mgbench
share=$bundle/share/mgbench
batch=${MG_GPU_BATCH:-256}
lm_batch=${MG_GPU_LM_BATCH:-8}
vit_batch=${MG_GPU_VIT_BATCH:-64}
steps=${MG_GPU_STEPS:-20}
warmup=${MG_GPU_WARMUP:-5}
budget=${MG_GPU_BUDGET_S:-480}
python=${PYTHON:-python3}
layer_times=(--layer-times)  # times the last warm-up step, so none without one
((warmup >= 1)) || layer_times=()
out=${1:-$PWD/mgbench-gpu-check-$(date +%Y%m%d-%H%M%S)-$(hostname -s)}
t_start=$SECONDS

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "mgbench-gpu-check: no NVIDIA GPU on this machine (nvidia-smi is missing or lists no device): skipped."
  exit 77
fi
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
exec > >(tee -a "$out/log.txt") 2>&1
say() { printf '== %s %s\n' "$(date +%H:%M:%S)" "$*"; }
printf 'step\tstatus\tseconds\n' >"$out/steps.tsv"
failed=0
# step NAME MAX_S CMD...: runs CMD with stdout and stderr in NAME.txt (and the log), within MAX_S seconds and
# what is left of the budget; records passed / failed (exit N) / timed out / skipped (budget).
step() {
  local name=$1 max=$2 left rc t0=$SECONDS status
  shift 2
  left=$((budget - (SECONDS - t_start)))
  if ((left < 15)); then
    say "$name: skipped, the budget is spent"
    printf '%s\tskipped (budget)\t0\n' "$name" >>"$out/steps.tsv"
    failed=1
    return 1
  fi
  ((max > left)) && max=$left
  say "$name (at most $max s): $*"
  timeout -k 5 "$max" "$@" > >(tee "$out/$name.txt") 2>&1
  rc=$?
  if ((rc == 0)); then status=passed; elif ((rc == 124 || rc == 137)); then status="timed out after $max s"; else status="failed (exit $rc)"; fi
  ((rc == 0)) || failed=1
  say "$name: $status after $((SECONDS - t0)) s"
  printf '%s\t%s\t%d\n' "$name" "$status" $((SECONDS - t0)) >>"$out/steps.tsv"
  return $rc
}
have_torch=0 have_torch_cuda=0
"$python" -c 'import torch, torchvision; assert torch.cuda.is_available()' 2>/dev/null && have_torch=1
"$python" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null && have_torch_cuda=1
torch_run() {  # NAME PRECISION ARGS...: PyTorch's reference loop, one JSON line into NAME.json
  local name=$1 prec=$2
  shift 2
  if ((!have_torch)); then
    printf '%s\tfailed (%s has no torch/torchvision with CUDA)\t0\n' "$name" "$python" >>"$out/steps.tsv"
    failed=1
    return 1
  fi
  step "$name" 150 bash -c '"$1" "$2" --device cuda --model resnet50 --batch "$3" --precision "$4" --steps "$5" \
    --warmup "$6" "${@:8}" >"$7"' _ "$python" "$share/torch_reference.py" "$batch" "$prec" "$steps" "$warmup" \
    "$out/$name.json" "$@"
}
train() {  # NAME MAX_S ARGS...: mgbench training, JSON into NAME.json
  local name=$1 max=$2
  shift 2
  step "$name" "$max" "$mgbench" --device cuda --gpus 1 --batch-size "$batch" --steps "$steps" --warmup "$warmup" \
    --no-progress "${layer_times[@]}" --json "$out/$name.json" "$@"
}

# mgbench uses PyTorch's own cuDNN, NCCL and cuBLAS wheels when PyTorch is there, so both sides of each comparison
# run the same libraries (MG_GPU_HOST_LIBS=1 keeps the launcher's search: the host's first).
if ((have_torch_cuda)) && [[ ${MG_GPU_HOST_LIBS:-0} != 1 && -z ${MGBENCH_CUDA_LIBS:-} ]]; then
  MGBENCH_CUDA_LIBS=$("$python" -c 'import glob, os, nvidia
print(":".join(sorted(d for p in nvidia.__path__ for d in glob.glob(os.path.join(p, "*", "lib")))))' 2>/dev/null) &&
    [[ -n $MGBENCH_CUDA_LIBS ]] && export MGBENCH_CUDA_LIBS
fi
say "mgbench-gpu-check: bundle $bundle, results in $out, budget $budget s"
say "CUDA libraries for mgbench: ${MGBENCH_CUDA_LIBS:-wherever the launcher finds them}"
step nvidia-smi 20 nvidia-smi
step environment 20 bash -c 'cat "$1/MANIFEST"; MGBENCH_BUNDLE_VERBOSE=1 "$2" --version; uname -a; nproc; free -g;
  "$3" -c "import torch; print(torch.__version__, torch.version.cuda, torch.backends.cudnn.version()); print(torch.__config__.show())"' \
  _ "$bundle" "$mgbench" "$python"
step topo 30 "$mgbench" topo
step check 120 "$mgbench" check --device cuda --precision fp32,tf32,fp16,bf16 --json "$out/check.json"
step gpu-tests 120 "$bundle/bin/test_gpu" --durations yes
# Each convolution's cuDNN choice at fp32 and every result cuDNN's search returned (docs/measurement.md).
step conv-algos-fp32 90 env MGBENCH_CONV_ALGOS=1 "$mgbench" --device cuda --gpus 1 --model resnet50 --precision fp32 \
  --batch-size "$batch" --steps 5 --warmup 2 --synthetic-source device --no-progress --json "$out/conv-algos-fp32.json"

# GPT-2 (124 M) at bf16 on one fixed batch of device-synthetic tokens, beside torch_gpt2.py at the same settings.
step gpt2-bf16 120 "$mgbench" --device cuda --gpus 1 --model gpt2 --precision bf16 --seq-len 1024 \
  --batch-size "$lm_batch" --optimizer adamw --steps "$steps" --warmup "$warmup" --synthetic-source device \
  --no-progress "${layer_times[@]}" --json "$out/gpt2-bf16.json"
if ((have_torch_cuda)); then
  step torch-gpt2-bf16 120 bash -c '"$1" "$2" --device cuda --precision bf16 --model gpt2 --seq-len 1024 \
    --batch "$3" --steps "$4" --warmup "$5" >"$6"' _ "$python" "$share/torch_gpt2.py" "$lm_batch" "$steps" "$warmup" \
    "$out/torch-gpt2-bf16.json"
  # The same with PyTorch's fused attention (scaled_dot_product_attention), as PyTorch users train GPT-2.
  step torch-gpt2-bf16-sdpa 120 bash -c '"$1" "$2" --device cuda --precision bf16 --model gpt2 --seq-len 1024 \
    --batch "$3" --steps "$4" --warmup "$5" --attention sdpa >"$6"' _ "$python" "$share/torch_gpt2.py" "$lm_batch" \
    "$steps" "$warmup" "$out/torch-gpt2-bf16-sdpa.json"
else
  printf 'torch-gpt2-bf16\tfailed (%s has no torch with CUDA)\t0\n' "$python" >>"$out/steps.tsv"
  failed=1
fi
# ViT-B/16 at bf16 on one fixed batch of device-synthetic images (the class-token layers, exact GELU and full
# attention at the real model's size) beside torchvision's vit_b_16 under bf16 autocast, both with SGD-momentum.
step vit-b16-bf16 90 "$mgbench" --device cuda --gpus 1 --model vit-b16 --precision bf16 --image-size 224 \
  --batch-size "$vit_batch" --steps "$steps" --warmup "$warmup" --synthetic-source device --no-progress \
  "${layer_times[@]}" --json "$out/vit-b16-bf16.json"
if ((have_torch)); then
  step torch-vit-b16-bf16 120 bash -c '"$1" "$2" --device cuda --model vit_b_16 --image 224 --batch "$3" \
    --precision bf16 --steps "$4" --warmup "$5" >"$6"' _ "$python" "$share/torch_reference.py" "$vit_batch" \
    "$steps" "$warmup" "$out/torch-vit-b16-bf16.json"
else
  printf 'torch-vit-b16-bf16\tfailed (%s has no torch/torchvision with CUDA)\t0\n' "$python" >>"$out/steps.tsv"
  failed=1
fi
sanitizer=""
for c in "$(command -v compute-sanitizer 2>/dev/null)" "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
  /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  if [[ -n "$c" && -x "$c" ]]; then sanitizer=$c; break; fi
done
# Host-staged input so the copy stream runs too; small batches and images keep the sanitizer's slowdown in budget
# (racecheck did not finish 4 steps of ResNet-18 at batch 8, 64x64 in 90 s on an H100). The transformer runs come
# first: their kernels (embedding, layer norm, softmax, GELU, the token loss) are the newer code.
sanitize() {  # TOOL NAME MAX_S MODEL-ARGS...
  local tool=$1 name=$2 max=$3
  shift 3
  if [[ -z "$sanitizer" ]]; then
    printf '%s\tfailed (compute-sanitizer not found)\t0\n' "$tool-$name" >>"$out/steps.tsv"
    failed=1
    return 1
  fi
  # The sanitizer starts the binary itself, so it gets the library path the launcher would have set.
  step "$tool-$name" "$max" env LD_LIBRARY_PATH="$(MGBENCH_BUNDLE_PRINT_LIBRARY_PATH=1 "$mgbench")" \
    "$sanitizer" --tool "$tool" --error-exitcode 3 "$bundle/libexec/mgbench" --device cuda --gpus 1 \
    --batch-size 2 --steps 2 --warmup 1 --synthetic-source host --no-progress --no-check \
    --json "$out/$tool-$name.json" "$@"
}
for tool in memcheck racecheck; do
  sanitize "$tool" gpt2-tiny 90 --model gpt2-tiny --seq-len 64 --optimizer adamw
  sanitize "$tool" vit-tiny 90 --model vit-tiny --image-size 32
done

# ResNet-50 at batch 256, each precision beside PyTorch channels-last (AMP for the 16-bit ones).
for prec in bf16 fp16 tf32 fp32; do
  train "resnet50-$prec" 120 --model resnet50 --precision "$prec" --synthetic-source device
  torch_run "torch-resnet50-$prec-cl" "$prec" --channels-last
done

sanitize memcheck resnet18 150 --model resnet18 --image-size 32
sanitize racecheck resnet18 150 --model resnet18 --image-size 32

# Real JPEGs, decoded by the machine's cores and staged from the host.
jpegs=$out/jpegs
step make-jpegs 60 "$mgbench" prepare-data --generate-test-images "$jpegs" --count 4096 --size 256 --classes 16 &&
  train resnet50-bf16-jpeg 120 --model resnet50 --precision bf16 --data "$jpegs" --num-classes 16 \
    --data-threads "$(nproc)"
step comm 60 "$mgbench" comm --op allreduce -b 1M -e 256M -f 4 --gpus 1 --json "$out/comm.json"
# Predict from the measured profile: this GPU x 8 over NVLink 4, and A100's published 1-GPU rate over NVLink 3
# beside NVIDIA's published 8x A100 figure (share/mgbench/published_resnet50.json cites it).
for prec in bf16 tf32; do
  [[ -f $out/resnet50-$prec.json ]] || continue
  step "predict-$prec" 30 "$mgbench" predict --profile "$out/resnet50-$prec.json" --gpus 1,8 --link nvlink4 \
    --json "$out/predict-$prec-nvlink4.json"
  rate=$("$python" -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['a100_1gpu_images_per_sec']['$prec'])" \
    "$share/published_resnet50.json" 2>/dev/null) &&
    step "predict-$prec-a100" 30 "$mgbench" predict --profile "$out/resnet50-$prec.json" --profile-rate "$rate" \
      --gpus 1,8 --link nvlink3 --json "$out/predict-$prec-a100-nvlink3.json"
done
# While time remains: PyTorch eager NCHW, the other JPEG precisions, torch.compile.
for prec in bf16 fp32; do torch_run "torch-resnet50-$prec-nchw" "$prec"; done
train resnet50-fp32-jpeg 120 --model resnet50 --precision fp32 --data "$jpegs" --num-classes 16 --data-threads "$(nproc)"
torch_run torch-resnet50-bf16-cl-compile bf16 --channels-last --compile

# The summary runs whatever the budget left: it only reads the files above.
"$python" "$share/gpu_check_summary.py" "$out" "$share/published_resnet50.json" >"$out/summary.txt" 2>&1 ||
  { say "summary failed: $(tail -1 "$out/summary.txt")"; failed=1; }
cat "$out/summary.txt"
rm -rf "$jpegs"
say "steps:"; column -t -s $'\t' "$out/steps.tsv" 2>/dev/null || cat "$out/steps.tsv"
tar -C "$(dirname "$out")" -cJf "$out.tar.xz" "$(basename "$out")" && say "archive: $out.tar.xz"
exit "$failed"
