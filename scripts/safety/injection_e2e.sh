#!/usr/bin/env bash
# Hostile names through every output path of the real binary, as a GitHub
# runner would see them. Workload, suite, run, branch and kernel names carry
# workflow commands ("::stop-commands::", "::error file=...::", "##[error]"),
# C0 and C1 controls, ESC sequences, bidi overrides, line separators and
# invalid UTF-8. Every command that prints them runs with GITHUB_ACTIONS=true
# and then without; scripts/safety/check_console.py then requires of every
# line of stdout and stderr (split at LF and CR, as the runner does):
#   - no "##[" anywhere, and no line whose first non-blank characters are
#     "::" unless it is one of gpugate's own annotations (::error, ::warning,
#     ::notice with escaped properties);
#   - no raw control character other than TAB, no C1, no bidi control, and
#     valid UTF-8 (on the console; files are checked by their format tests).
# gpugate's own annotation for the regression must still be there.
#   scripts/safety/injection_e2e.sh GPUGATE
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
G=$(cd "$(dirname "${1:?usage: injection_e2e.sh GPUGATE}")" && pwd)/$(basename "$1")
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"

# Names a suite accepts: printable text that spells workflow commands (YAML
# double-quoted form: \u00a0 is a no-break space).
SUITE_NAMES=(
  '::stop-commands::tok1'
  '::error file=a.c,line=1::pwned'
  'x##[error]legacy'
  'tail##'
  '%0A::error::pct'
)
# Names no suite accepts (controls, bidi, line separators, blanks at the
# start): they reach gpugate through files other tools wrote (traces,
# results fields).
RAW_NAMES=(
  '   ::warning::spaced'
  '\u00a0::notice::nbsp'
  'c1\x9b31mred'
  'esc\x1b[31mred\x1b]0;title\x07'
  'rtl\u202egnp.exe'
  'nl\n::error::second line'
  'cr\r::error::after cr'
  'lsep\u2028::error::x'
)
{
  echo 'version: 1'
  echo 'name: "suite::stop-commands::s ##[error]s"'
  echo 'defaults: {warmup: 0, min_samples: 10, max_samples: 10, min_time: 0, rounds: 2}'
  echo 'workloads:'
  for n in "${SUITE_NAMES[@]}"; do
    echo "  - name: \"$n\""
    echo '    kind: synthetic'
    echo '    synthetic: {median: 1ms, cv: 1%, slowdown: SLOW}'
  done
  echo '  - name: "p/{v}"'
  echo '    kind: synthetic'
  echo '    params: {v: ["::error::param", "##[warning]param", "ok"]}'
  echo '    synthetic: {median: 1ms, cv: 1%}'
} > template.yaml
sed 's/SLOW/1.0/' template.yaml > base.yaml
sed 's/SLOW/1.6/' template.yaml > slow.yaml

# A trace whose kernels and annotations carry the same names.
python3 - "${SUITE_NAMES[@]}" "${RAW_NAMES[@]}" <<'EOF'
import json, sys
names = [n.encode('latin-1', 'backslashreplace').decode('unicode_escape') if '\\' in n else n
         for n in sys.argv[1:]]
names.append(b'bad\xff\xfe::error::utf8'.decode('utf-8', 'surrogateescape'))
ev = []
t = 1000
for i, n in enumerate(names):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
               "ts": t, "dur": 5, "args": {"correlation": i + 1}})
    ev.append({"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": t + 10, "dur": 50 + i,
               "args": {"device": 0, "stream": 7, "correlation": i + 1}})
    ev.append({"ph": "X", "cat": "user_annotation", "name": n, "pid": 1, "tid": 1, "ts": t, "dur": 70})
    t += 100
open("trace.json", "wb").write(json.dumps({"traceEvents": ev}, ensure_ascii=False)
                                .encode("utf-8", "surrogateescape"))
EOF

out=0
run() {  # run LABEL ARGS...: records stdout and stderr of one command
  local label=$1; shift
  out=$((out + 1))
  local rc=0
  "$G" "$@" > "o$out.$label.stdout" 2> "o$out.$label.stderr" || rc=$?
  echo "$rc" > "o$out.$label.rc"
}

export GITHUB_STEP_SUMMARY=$W/summary.md GITHUB_OUTPUT=$W/output.txt GPUGATE_ENV_KEY=hostile
for mode in github plain; do
  if [ "$mode" = github ]; then export GITHUB_ACTIONS=true; else unset GITHUB_ACTIONS; fi
  rm -f hist.json
  run validate validate base.yaml
  run run-base run base.yaml -o base.json
  run run-id run base.yaml -o bad_id.json --run-id 'run::stop-commands::r ##[x]'
  # Fields a results file from a pull request can carry: hostile too
  # (`run --run-id` takes one token only, so the run id is written here).
  python3 - <<'EOF2'
import json
d = json.load(open("base.json"))
d["run"]["run_id"] = "run::stop-commands::r ##[x]"
d["run"]["git_branch"] = "br\n::error::b\u202e"
d["run"]["git_sha"] = "##[error]sha"
d["run"]["environment"]["cpu_model"] = "cpu\x1b[2J::error::c"
d["run"]["source_context"] = {"k::error::": "##[v]"}
json.dump(d, open("base.json", "w"))
EOF2
  run run-slow run slow.yaml -o slow.json
  # Names no suite accepts, in a results file another tool could have written:
  # either refused with an escaped error or escaped in every report.
  python3 - <<'EOF3'
import json
d = json.load(open("slow.json"))
raw = ["c1\x9b31m", "esc\x1b[31m\x1b]0;t\x07", "rtl\u202egnp", "nl\n::error::x", "lsep\u2028::error::y",
       "   ::warning::spaced", "\u00a0::notice::nbsp"]
for w, r in zip(d["workloads"], raw):
    w["name"] = r + w["name"]
d["workloads"][-1]["reason"] = "\x1b[2J##[error]reason\n::error::z"
json.dump(d, open("slow_raw.json", "w"))
EOF3
  run update baseline update --results base.json --baseline hist.json
  run show baseline show hist.json
  run history history hist.json
  run compare compare base.json slow.json --github
  run compare-md compare base.json slow.json --markdown - --quiet
  run compare-json compare base.json slow.json --json - --quiet
  run compare-junit compare base.json slow.json --junit - --quiet
  run compare-raw compare base.json slow_raw.json --github
  run compare-raw-md compare base.json slow_raw.json --markdown - --quiet
  run gate gate --suite slow.yaml --baseline hist.json --confirm 0 --github
  run filter run base.yaml -o none.json --filter $'::error::nothing\n##[x]'
  run shard1 run base.yaml -o s1.json --shard 1/2 --run-id sh
  run shard2 run base.yaml -o s2.json --shard 2/2 --run-id sh
  run merge merge s1.json s2.json -o merged.json
  run analyze analyze trace.json
  run analyze-md analyze trace.json --markdown -
  run unknown-cmd $'::error::cmd\x1b[31m'
  run bad-option run $'--::error::opt##[x]'
done
unset GITHUB_ACTIONS

python3 "$ROOT/scripts/safety/check_console.py" "$W"
