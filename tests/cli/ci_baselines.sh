#!/usr/bin/env bash
# Every committed baseline (results/baselines/FINGERPRINT/NAME.json) carries the configuration it was made with:
# the resolved run description (config) and, per entry, the thread allotment. Today's code must run
# configs/NAME.json the same way, or the gate would compare different work (as when the CPU thread allotment
# changed and the old ci-smoke baseline turned into a 45 % "regression"). A one-step run of the preset shows how
# today's code resolves it; any difference fails here, visibly, instead of breaking the gate silently. The
# folder must name the machine the file records (CPU model, CPUs, device: scripts/machine-fingerprint.sh), and
# a provenance note NAME.txt must sit beside it.
source "$(dirname "$0")/lib.bash"
: "${MG_SOURCE_DIR:?}"
command -v python3 >/dev/null || { echo "skipped: python3 is needed to read the results"; exit 77; }
shopt -s nullglob
baselines=("$MG_SOURCE_DIR"/results/baselines/*/*.json)
[[ ${#baselines[@]} -gt 0 ]] || fail "no baselines in results/baselines/*/"
stray=("$MG_SOURCE_DIR"/results/baselines/*.json)
[[ ${#stray[@]} -eq 0 ]] || fail "${stray[0]}: a baseline outside a machine's folder would be used on any machine"
for b in "${baselines[@]}"; do
  name=$(basename "$b" .json)
  preset=$MG_SOURCE_DIR/configs/$name.json
  [[ -f $preset ]] || fail "$b has no preset $preset"
  [[ -s ${b%.json}.txt ]] || fail "$b has no provenance note ${b%.json}.txt (command, machine, date)"
  python3 - "$b" "${b%.json}.txt" <<'PY' || fail "$b is filed under another machine's fingerprint than the one it records"
import json, os, re, sys
d = json.load(open(sys.argv[1]))
note = open(sys.argv[2]).read()
cpu_part, isa, cpus, device = os.path.basename(os.path.dirname(sys.argv[1])).split("_", 3)
slug = lambda s: re.sub(r"[^a-z0-9]+", "-", re.sub(r"\((r|tm)\)", "", s.lower())).strip("-")
recorded = d["environment"]["cpu"]  # "MODEL (N logical CPUs[, M usable by this process])"
m = re.fullmatch(r"(.*) \((\d+) logical CPUs(?:, (\d+) usable by this process)?\)", recorded)
problems = []
if not m:
    problems.append(f"environment.cpu '{recorded}' does not say the CPU count")
else:
    if slug(m.group(1)) != cpu_part:
        problems.append(f"CPU model '{m.group(1)}' is not '{cpu_part}'")
    if f"{m.group(3) or m.group(2)}cpus" != cpus:
        problems.append(f"{m.group(3) or m.group(2)} CPUs usable, folder says {cpus}")
if d["config"]["device"] == "cpu" and device != "cpu":
    problems.append(f"a CPU run filed under device '{device}'")
if isa not in ("avx512", "avx2", "avx", "sse4"):
    problems.append(f"ISA level '{isa}' is not one machine-fingerprint.sh gives")
# The result records no ISA level; the note --update-baseline writes does ("machine: CPU '...', ISA avx512, ...").
noted = re.search(r"^machine: .*\bISA (\w+)\b", note, re.M)
if not noted:
    problems.append("the note has no 'machine: ... ISA <level>' line")
elif noted.group(1) != isa:
    problems.append(f"the note says ISA {noted.group(1)}, the folder {isa}")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY
  expect_status 0 "$MGBENCH" --config "$preset" --steps 1 --warmup 0 --repeat 1 --no-progress --json "$TMP/$name.json"
  python3 - "$b" "$TMP/$name.json" "$preset" <<'PY' || fail "$b: today's code runs configs/$name.json differently (above); regenerate the baseline deliberately (results/baselines/README.md)"
import json, sys
base, today, preset = (json.load(open(p)) for p in sys.argv[1:4])
problems = []
# The run length comes from the preset itself (the one-step run overrides it); everything else is resolved
# by today's code and must match what the baseline ran with.
run_length = {"steps", "warmup", "repeat", "runs"}
recorded_elsewhere = {"json_path", "command_line", "config_file", "progress", "trace_path"}
# The correctness check runs before the timed window (mgbench check); it changes nothing that is timed.
before_timing = {"check"}
# Fields added since a baseline was made: what the baseline's binary ran without them.
added_later = {"cpu_conv_algo": "fastest", "optimizer": "sgd", "adam_beta1": 0.8999999761581421,
               "adam_beta2": 0.9990000128746033, "adam_eps": 9.99999993922529e-09, "seq_len": 0,
               "layer_times": False}
for k in sorted(set(base["config"]) | set(today["config"])):
    if k in run_length | recorded_elsewhere | before_timing:
        continue
    if base["config"].get(k, added_later.get(k)) != today["config"].get(k):
        problems.append(f"config.{k}: baseline {base['config'].get(k)!r}, today {today['config'].get(k)!r}")
for k in ("steps", "warmup", "repeat"):
    if k in preset and base["config"][k] != preset[k]:
        problems.append(f"config.{k}: baseline {base['config'][k]}, preset {preset[k]}")
if base["config"].get("runs", 1) < 2 and all(len(r.get("run_samples", [])) < 2 for r in base["runs"]):
    problems.append("the baseline holds one process run: compare cannot judge significance (make it with --runs)")
entry = lambda r: (r["devices"], r["transport"])
b_runs, t_runs = {entry(r): r for r in base["runs"]}, {entry(r): r for r in today["runs"]}
if set(b_runs) != set(t_runs):
    problems.append(f"entries: baseline {sorted(b_runs)}, today {sorted(t_runs)}")
for e in sorted(set(b_runs) & set(t_runs)):
    for k in ("threads_per_replica", "batch_per_device", "global_batch"):
        if k not in b_runs[e]:
            problems.append(f"entry {e}: the baseline does not record {k} (made by an older mgbench)")
        elif b_runs[e][k] != t_runs[e][k]:
            problems.append(f"entry {e}: {k} baseline {b_runs[e][k]}, today {t_runs[e][k]}")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY
done

# The check can fail: a baseline whose 1-device entry ran on 2 threads (the old allotment) is caught.
python3 - "${baselines[0]}" "$TMP/old.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][0]["threads_per_replica"] = 2
json.dump(d, open(sys.argv[2], "w"))
PY
name=$(basename "${baselines[0]}" .json)
machine=$(basename "$(dirname "${baselines[0]}")")
# fake_tree DIR MACHINE FILE: a source tree holding FILE as MACHINE's baseline of the first preset.
fake_tree() {
  mkdir -p "$1/results/baselines/$2" "$1/configs"
  cp "$3" "$1/results/baselines/$2/$name.json"
  cp "${baselines[0]%.json}.txt" "$1/results/baselines/$2/$name.txt"
  cp "$MG_SOURCE_DIR/configs/$name.json" "$1/configs/"
}
inner() {  # inner TREE: this test run on another tree; output in $TMP/inner.out, fails when it passes
  CI_BASELINES_INNER=1 MG_SOURCE_DIR=$1 bash "$(dirname "$0")/ci_baselines.sh" >"$TMP/inner.out" 2>&1 \
    && { cat "$TMP/inner.out"; fail "$2 passed"; }
  grep -q "$3" "$TMP/inner.out" || { cat "$TMP/inner.out"; fail "$2: the difference is not named"; }
}
if [[ ${CI_BASELINES_INNER:-0} -eq 0 ]]; then
  fake_tree "$TMP/fake" "$machine" "$TMP/old.json"
  inner "$TMP/fake" "a baseline with another thread allotment" "threads_per_replica baseline 2, today 1"
  # The same file filed under another machine (an AVX2 EPYC with 64 CPUs) is caught by what it records.
  fake_tree "$TMP/misfiled" amd-epyc-7b13_avx2_64cpus_cpu "${baselines[0]}"
  inner "$TMP/misfiled" "a misfiled baseline" "CPUs usable, folder says 64cpus"
  # Filed under the same CPU model and count with another ISA level: its note says which it was made on.
  IFS=_ read -r cpu_part isa cpus device <<<"$machine"
  other_isa=$([[ $isa == avx512 ]] && echo avx2 || echo avx512)
  fake_tree "$TMP/other-isa" "${cpu_part}_${other_isa}_${cpus}_${device}" "${baselines[0]}"
  inner "$TMP/other-isa" "a baseline filed under another ISA level" "the note says ISA $isa, the folder $other_isa"
  # A baseline outside a machine's folder, as before fingerprints, is refused.
  fake_tree "$TMP/stray" "$machine" "${baselines[0]}"
  cp "${baselines[0]}" "$TMP/stray/results/baselines/$name.json"
  inner "$TMP/stray" "a baseline outside a machine's folder" "outside a machine's folder"
fi
echo "ok"
