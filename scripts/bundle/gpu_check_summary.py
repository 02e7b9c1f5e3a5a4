"""Summarises a bundle GPU check's folder (scripts/bundle/gpu-check.sh) into summary.json and summary.md: mgbench
against PyTorch per precision (images/s over each timed window, peak memory both ways), the input wait of the
host-staged JPEG run, the check and sanitizer outcomes, and the 8-GPU predictions beside the published figure and
the naive forecast (8 x the 1-GPU rate), and GPT-2's tokens/s beside PyTorch's.

  python3 gpu_check_summary.py OUT_DIR PUBLISHED_JSON"""
import json
import os
import sys

# The goals a first GPU run is held to: mgbench / PyTorch channels-last (AMP for 16-bit) images/s.
GOAL_RATIO = {"fp32": 1.0, "tf32": 1.0, "bf16": 1.1, "fp16": 1.1}


def load(out, name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def text(out, name):
    try:
        with open(os.path.join(out, name)) as f:
            return f.read()
    except OSError:
        return ""


def first_run(result):
    return result["runs"][0] if result and result.get("runs") else None


def run_at(result, devices):
    for r in (result or {}).get("runs", []):
        if r.get("devices") == devices:
            return r
    return None


def kind_shares(run):
    """'linear 52.1 %, attention 30.2 %, ...': a run's --layer-times summed by layer kind, largest first."""
    kinds = {}
    for t in (run or {}).get("layer_times", []):
        kinds[t["kind"]] = kinds.get(t["kind"], 0.0) + t["forward_s"] + t["backward_s"]
    total = sum(kinds.values())
    if not total:
        return ""
    return ", ".join(f"{k} {100 * v / total:.1f} %" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))


def beside(mine, ref, rate):
    """mgbench's rate and peak memory beside a PyTorch run's, and their ratio (keys mgbench_RATE, torch_RATE)."""
    e = {}
    if mine:
        e[f"mgbench_{rate}"] = mine.get(rate)
        e["mgbench_peak_memory_bytes"] = mine.get("peak_memory_bytes")
    if ref:
        e[f"torch_{rate}"] = ref.get(rate)
        e["torch_peak_reserved_bytes"] = ref.get("peak_memory_reserved_bytes")
    if e.get(f"mgbench_{rate}") and e.get(f"torch_{rate}"):
        e["ratio_vs_torch"] = e[f"mgbench_{rate}"] / e[f"torch_{rate}"]
    return e


def gib(n):
    return f"{n / 2**30:.2f}" if n else "-"


def main():
    out, published_path = sys.argv[1], sys.argv[2]
    with open(published_path) as f:
        published = json.load(f)
    s = {"steps": [], "precisions": {}, "predictions": {}}
    for line in text(out, "steps.tsv").splitlines()[1:]:
        name, status, secs = line.split("\t")
        s["steps"].append({"step": name, "status": status, "seconds": int(secs)})
    check = load(out, "check.json")
    if check:
        s["check"] = {"passed": check.get("passed"), "rows": len(check.get("rows", [])),
                      "failed": [f"{r.get('name')} {r.get('case', '')} {r.get('precision')}".strip()
                                 for r in check.get("rows", []) if not r.get("passed")]}
    # Each sanitizer run's summary line: TOOL-MODEL.txt, or TOOL.txt in runs made before the transformer models.
    for name in sorted(os.listdir(out)):
        stem = name[:-4] if name.endswith(".txt") else ""
        if stem.split("-")[0] in ("memcheck", "racecheck"):
            t = text(out, name)
            summary_line = [ln for ln in t.splitlines() if "ERROR SUMMARY" in ln or "RACECHECK SUMMARY" in ln]
            s[stem] = summary_line[-1].strip() if summary_line else "no summary line (see the step's file)"

    # Which cuDNN each side ran: mgbench's loaded library (its environment block) and PyTorch's own.
    for prec in ("bf16", "fp32", "tf32", "fp16"):
        mg, ref = load(out, f"resnet50-{prec}.json"), load(out, f"torch-resnet50-{prec}-cl.json")
        if mg and ref:
            lib = mg.get("environment", {}).get("libraries", {}).get("cudnn", {})
            s["cudnn"] = {"mgbench": lib.get("version"), "mgbench_file": lib.get("file"), "torch": ref.get("cudnn")}
            break
    algos = first_run(load(out, "conv-algos-fp32.json"))
    if algos:
        b = algos["breakdown"]
        s["conv_algos_fp32"] = {"images_per_sec": algos["images_per_sec"], "forward_s": b["forward_s"],
                                "backward_s": b["backward_s"], "choices": algos.get("conv_algorithms")}

    for prec in ("fp32", "tf32", "bf16", "fp16"):
        run = first_run(load(out, f"resnet50-{prec}.json"))
        e = {}
        if run:
            e["mgbench_images_per_sec"] = run["images_per_sec"]
            e["mgbench_median_step_s"] = run["step_time"]["median_s"]
            e["mgbench_peak_memory_bytes"] = run["peak_memory_bytes"]
            e["mgbench_device_memory_in_use_bytes"] = run.get("device_memory_in_use_bytes")
        for variant in ("cl", "nchw", "cl-compile"):
            ref = load(out, f"torch-resnet50-{prec}-{variant}.json")
            if ref:
                e[f"torch_{variant}_images_per_sec"] = ref["images_per_sec"]
                e[f"torch_{variant}_peak_reserved_bytes"] = ref.get("peak_memory_reserved_bytes")
        if run and "torch_cl_images_per_sec" in e:
            e["ratio_vs_torch_cl"] = run["images_per_sec"] / e["torch_cl_images_per_sec"]
            e["goal_ratio"] = GOAL_RATIO[prec]
            e["goal_met"] = e["ratio_vs_torch_cl"] >= GOAL_RATIO[prec]
        jpeg = first_run(load(out, f"resnet50-{prec}-jpeg.json"))
        if jpeg:
            step = jpeg["step_time"]["median_s"]
            e["jpeg_images_per_sec"] = jpeg["images_per_sec"]
            e["jpeg_input_wait_share"] = jpeg["breakdown"]["input_wait_s"] / step if step else None
        if e:
            s["precisions"][prec] = e

    gpt2, torch_gpt2 = first_run(load(out, "gpt2-bf16.json")), load(out, "torch-gpt2-bf16.json")
    g = beside(gpt2, torch_gpt2, "tokens_per_sec")
    sdpa = load(out, "torch-gpt2-bf16-sdpa.json")
    if sdpa:
        g["torch_sdpa_tokens_per_sec"] = sdpa.get("tokens_per_sec")
        g["torch_sdpa_peak_reserved_bytes"] = sdpa.get("peak_memory_reserved_bytes")
    if g.get("mgbench_tokens_per_sec") and g.get("torch_sdpa_tokens_per_sec"):
        g["ratio_vs_torch_sdpa"] = g["mgbench_tokens_per_sec"] / g["torch_sdpa_tokens_per_sec"]
    if g:
        s["gpt2_bf16"] = g
    v = beside(first_run(load(out, "vit-b16-bf16.json")), load(out, "torch-vit-b16-bf16.json"), "images_per_sec")
    if v:
        s["vit_b16_bf16"] = v

    for prec in ("bf16", "tf32"):
        own = load(out, f"predict-{prec}-nvlink4.json")
        a100 = load(out, f"predict-{prec}-a100-nvlink3.json")
        p = {}
        if own and run_at(own, 8):
            p["this_gpu_x8_nvlink4_images_per_sec"] = run_at(own, 8)["images_per_sec"]
            p["this_gpu_x8_naive_images_per_sec"] = 8 * run_at(own, 1)["images_per_sec"] if run_at(own, 1) else None
        if a100 and run_at(a100, 8):
            pub8 = published["a100_8gpu_images_per_sec"][prec]
            pred8 = run_at(a100, 8)["images_per_sec"]
            naive8 = 8 * published["a100_1gpu_images_per_sec"][prec]
            p.update({"a100_x8_predicted": pred8, "a100_x8_published": pub8, "a100_x8_naive": naive8,
                      "predicted_error": pred8 / pub8 - 1, "naive_error": naive8 / pub8 - 1,
                      "published_source": published["source"]})
        if p:
            s["predictions"][prec] = p

    # Where each model's step went, by layer kind (its last warm-up step, --layer-times).
    s["layer_kinds"] = {}
    for name in ("gpt2-bf16", "vit-b16-bf16", "resnet50-bf16", "resnet50-fp32"):
        shares = kind_shares(first_run(load(out, f"{name}.json")))
        if shares:
            s["layer_kinds"][name] = shares

    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(s, f, indent=2)
    md = ["| precision | mgbench img/s | PyTorch CL img/s | ratio (goal) | mgbench peak GiB | PyTorch reserved GiB |"
          " JPEG input wait |", "|---|---|---|---|---|---|---|"]
    for prec, e in s["precisions"].items():
        ratio = f"{e['ratio_vs_torch_cl']:.3f} (>= {e['goal_ratio']})" if "ratio_vs_torch_cl" in e else "-"
        wait = f"{100 * e['jpeg_input_wait_share']:.1f} %" if e.get("jpeg_input_wait_share") is not None else "-"
        md.append(f"| {prec} | {e.get('mgbench_images_per_sec', 0):.0f} | {e.get('torch_cl_images_per_sec', 0):.0f}"
                  f" | {ratio} | {gib(e.get('mgbench_peak_memory_bytes'))}"
                  f" | {gib(e.get('torch_cl_peak_reserved_bytes'))} | {wait} |")
    if "gpt2_bf16" in s:
        g = s["gpt2_bf16"]
        ratio = f"{g['ratio_vs_torch']:.3f}" if "ratio_vs_torch" in g else "-"
        md.append(f"\nGPT-2 bf16, sequence 1024: mgbench {g.get('mgbench_tokens_per_sec') or 0:.0f} tokens/s, "
                  f"PyTorch {g.get('torch_tokens_per_sec') or 0:.0f} tokens/s, ratio {ratio}; peak GiB mgbench "
                  f"{gib(g.get('mgbench_peak_memory_bytes'))}, "
                  f"PyTorch reserved {gib(g.get('torch_peak_reserved_bytes'))}")
        if "torch_sdpa_tokens_per_sec" in g:
            ratio = f"{g['ratio_vs_torch_sdpa']:.3f}" if "ratio_vs_torch_sdpa" in g else "-"
            md.append(f"GPT-2 bf16 against PyTorch with fused attention (sdpa): PyTorch "
                      f"{g.get('torch_sdpa_tokens_per_sec') or 0:.0f} tokens/s, ratio {ratio}; PyTorch reserved "
                      f"{gib(g.get('torch_sdpa_peak_reserved_bytes'))}")
    if "vit_b16_bf16" in s:
        v = s["vit_b16_bf16"]
        ratio = f"{v['ratio_vs_torch']:.3f}" if "ratio_vs_torch" in v else "-"
        md.append(f"\nViT-B/16 bf16, 224x224: mgbench {v.get('mgbench_images_per_sec') or 0:.0f} img/s, torchvision "
                  f"vit_b_16 {v.get('torch_images_per_sec') or 0:.0f} img/s, ratio {ratio}; peak GiB mgbench "
                  f"{gib(v.get('mgbench_peak_memory_bytes'))}, PyTorch reserved {gib(v.get('torch_peak_reserved_bytes'))}")
    for key in sorted(k for k in s if k.split("-")[0] in ("memcheck", "racecheck")):
        md.append(f"{key}: {s[key]}")
    for name, shares in s["layer_kinds"].items():
        md.append(f"{name} by layer kind (last warm-up step): {shares}")
    if "cudnn" in s:
        c = s["cudnn"]
        md.append(f"\ncuDNN: mgbench {c['mgbench']} ({c['mgbench_file']}), PyTorch {c['torch']}")
    if "conv_algos_fp32" in s:
        a = s["conv_algos_fp32"]
        md.append(f"\nResNet-50 fp32, 5 steps with MGBENCH_CONV_ALGOS=1: {a['images_per_sec']:.0f} img/s, backward "
                  f"{a['backward_s'] / a['forward_s']:.2f}x forward (conv-algos-fp32.txt lists every search)")
    for prec, p in s["predictions"].items():
        if "a100_x8_predicted" in p:
            md.append(f"\n{prec}, 8x A100 over NVLink 3: predicted {p['a100_x8_predicted']:.0f} img/s "
                      f"({100 * p['predicted_error']:+.1f} %), naive {p['a100_x8_naive']:.0f} "
                      f"({100 * p['naive_error']:+.1f} %), published {p['a100_x8_published']:.0f}")
    md.append("")
    md += [f"- {st['step']}: {st['status']} ({st['seconds']} s)" for st in s["steps"]]
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
