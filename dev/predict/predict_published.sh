#!/usr/bin/env bash
# Published scaling figures predicted from their inputs only: the published 1-GPU rate (or a published compute
# time) via --profile-rate, the interconnect's specification as a preset or bw=..., and the shape of the
# step from a CPU profile of this machine of the same model (results/predict/published: resnet50_b{64,32}_cpu_profile.json,
# inception3_b64_cpu_profile.json, gpt2{,-medium}_s1024_b1_cpu_profile.json, made with the commands in
# results/predict/HISTORY.md). No per-case tuning: default buckets (25 MiB) and overlap, as mgbench trains.
#   MGBENCH=build/mgbench dev/predict/predict_published.sh
set -eu
: "${MGBENCH:?MGBENCH must point at the mgbench binary}"
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here/results/predict/published"
# 1. tf_cnn_benchmarks, NVIDIA DGX-1 (8x P100 SXM2, NVLink 1), synthetic data, batch 64 per GPU: the ResNet-50 and
#    InceptionV3 columns, each from its own model's profile. The published runs exchanged through a parameter
#    server on the CPU (variable_update=parameter_server, local_parameter_device=cpu), not NCCL: these rows are
#    what mgbench's ring over NVLink would do on that machine.
"$MGBENCH" predict --profile resnet50_b64_cpu_profile.json --profile-rate 219 --gpus 1,2,4,8 --link nvlink1 \
  --json tf_dgx1_p100_resnet50.json | tee tf_dgx1_p100_resnet50.txt
"$MGBENCH" predict --profile inception3_b64_cpu_profile.json --profile-rate 142 --gpus 1,2,4,8 --link nvlink1 \
  --json tf_dgx1_p100_inception3.json | tee tf_dgx1_p100_inception3.txt
# 2. Goyal et al. 2017: Big Basin servers (8x P100 NVLink each, one 50 Gbit/s Ethernet NIC), ResNet-50, 32 images
#    per GPU; 1-GPU rate from the paper's 120 ms backward on one P100 and the profile's backward share.
bwd_share=$(python3 -c "import json; r=json.load(open('resnet50_b32_cpu_profile.json'))['runs'][0]['breakdown']; print(r['backward_s']/(r['input_wait_s']+r['forward_s']+r['backward_s']+r['optimizer_s']))")
rate=$(python3 -c "print(32 / (0.120 / $bwd_share))")
echo "# Goyal et al.: backward share of the step $bwd_share -> 1-GPU rate $rate images/s"
"$MGBENCH" predict --profile resnet50_b32_cpu_profile.json --profile-rate "$rate" --gpus 8,256 --link nvlink1 \
  --gpus-per-node 8 --inter-node bw=50Gbit,lat=9.6us --nics-per-node 1 --json goyal2017_resnet50.json \
  | tee goyal2017_resnet50.txt
# 3. GPT-2 124 M on 8 H100s (J. Schwartz, "Training GPT2 from 650 to 3 million tokens per second", 2025-07-13):
#    PyTorch DDP, bf16 autocast; 64 x 1024 tokens per GPU (our reading: its 524,288-token batch over 8 GPUs) and
#    fp32 gradients in 25 MiB buckets (DDP's defaults) are not stated in the post; 1-GPU rate from its 36 % MFU at
#    1 GPU, its 854,438,400 FLOP per token and 989 TFLOP/s. The post does not name the interconnect: NVLink 4 (an
#    HGX node) and PCIe beside it. GPT-2 355 M has no published figure: forecast at the same 36 % MFU.
rate124=$(python3 -c "print(0.36 * 989e12 / 854438400 / 1024)")
rate355=$(python3 -c "import json; f = json.load(open('gpt2-medium_s1024_b1_cpu_profile.json'))['runs'][0]['model_flops_per_sample']; print(0.36 * 989e12 / f)")
"$MGBENCH" predict --profile gpt2_s1024_b1_cpu_profile.json --batch-size 64 --profile-rate "$rate124" --gpus 1,2,4,8 \
  --link nvlink4-nccl,nvlink4,pcie5-nccl,pcie4-nccl --json gpt2_8xh100.json | tee gpt2_8xh100.txt
"$MGBENCH" predict --profile gpt2-medium_s1024_b1_cpu_profile.json --batch-size 64 --profile-rate "$rate355" --gpus 1,2,4,8 \
  --link nvlink4-nccl,nvlink4,pcie5-nccl,pcie4-nccl --json gpt2-medium_8xh100.json | tee gpt2-medium_8xh100.txt
# 4. Published figures, the naive forecast (N x the 1-GPU rate) and the predictions side by side: table.md.
python3 "$here/scripts/measure/predict-published-table.py" .
