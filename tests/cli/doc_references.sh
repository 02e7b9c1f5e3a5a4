#!/usr/bin/env bash
# What the documents and scripts point at exists: every scripts/ path named in the Markdown, the scripts, the dev
# campaigns, the tests and the sources is a file or folder of the tree (a moved tool leaves no stale command behind),
# and every relative Markdown link resolves. Raw records under results/ (logs, JSON) keep the paths they ran with.
source "$(dirname "$0")/lib.bash"
: "${MG_SOURCE_DIR:?}"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
python3 - "$MG_SOURCE_DIR" >"$TMP/problems" <<'PY'
import os, re, sys

root = sys.argv[1]
SKIP_DIRS = {".git", "__pycache__"}
SCANNED = (".md", ".sh", ".bash", ".py", ".cpp", ".h", ".cu", ".cmake", ".txt")
SCRIPT_PATH = re.compile(r"(?<![A-Za-z0-9_.-])scripts/[A-Za-z0-9_.-][A-Za-z0-9_./-]*")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def files():
    yield os.path.join(root, "README.md")
    yield os.path.join(root, "CMakeLists.txt")
    for top in ("docs", "scripts", "dev", "tests", "src", "kernels", "models", "cmake", "configs", "results", ".ci"):
        for d, subdirs, names in os.walk(os.path.join(root, top)):
            subdirs[:] = [s for s in subdirs if s not in SKIP_DIRS]
            for n in names:
                p = os.path.join(d, n)
                # Under results/ only the Markdown: logs and JSON are raw records of what ran then.
                if top == "results" and not n.endswith(".md"):
                    continue
                if n.endswith(SCANNED) or top == ".ci":
                    yield p


problems = []
for path in files():
    rel = os.path.relpath(path, root)
    try:
        text = open(path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError):
        continue
    for lineno, line in enumerate(text.splitlines(), 1):
        for m in SCRIPT_PATH.finditer(line):
            target = m.group(0).rstrip(".")
            if "*" in target or not os.path.exists(os.path.join(root, target)):
                problems.append(f"{rel}:{lineno}: names {target}, which is not in the tree")
        if not path.endswith(".md"):
            continue
        for m in MD_LINK.finditer(line):
            link = m.group(1).split("#", 1)[0]
            if not link or re.match(r"[a-z][a-z0-9+.-]*:", link):
                continue
            if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(path), link))):
                problems.append(f"{rel}:{lineno}: links to {m.group(1)}, which does not resolve")
for p in problems:
    print(p)
PY
[[ $? -eq 0 ]] || fail "the reference check itself failed"
[[ ! -s $TMP/problems ]] || { cat "$TMP/problems" >&2; fail "$(wc -l <"$TMP/problems") stale references (above)"; }
echo "ok: every scripts/ path and relative Markdown link resolves"
