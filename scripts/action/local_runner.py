#!/usr/bin/env python3
"""Runs the steps of gpugate's composite action (action.yml) the way the
GitHub Actions runner does, for tests on a machine without the runner.

  local_runner.py ACTION_PATH INPUTS_JSON WORKSPACE GITHUB_JSON

- inputs: the action's defaults, overridden by INPUTS_JSON (unknown inputs
  are an error, as on GitHub);
- ${{ }} expressions over inputs, steps.<id>.outputs and the github context
  (GITHUB_JSON: event_name, ref_name, base_ref, repository, event, ...);
  `&&`, `||`, `==`, `!=` and string literals;
- each step in `bash --noprofile --norc -eo pipefail FILE` with its env,
  GITHUB_ACTIONS=true, CI=true, a fresh $GITHUB_OUTPUT file per step (both
  `k=v` and `k<<DELIM` forms parsed), one $GITHUB_STEP_SUMMARY, the GITHUB_*
  variables of the context, RUNNER_TEMP from the caller's environment;
- `if:` and `continue-on-error:` honoured; steps after a failure skipped.
- `uses:` steps (actions/cache) are not run: the caller's environment plays
  their part (a cache hit is an install prefix that already exists).

Writes $RUNNER_TEMP/job.json: the action's outputs, the job's exit code, a
log line and the wall time of each step, and the step summary.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import yaml


def main():
    action_path, inputs_json, workspace, github_json = sys.argv[1:5]
    action = yaml.safe_load(open(os.path.join(action_path, "action.yml")))
    inputs = {k: str(v.get("default", "")) for k, v in action.get("inputs", {}).items()}
    given = json.loads(inputs_json)
    unknown = set(given) - set(inputs)
    if unknown:
        sys.exit(f"runner: unknown inputs {sorted(unknown)}")
    inputs.update({k: str(v) for k, v in given.items()})
    github = {"action_path": action_path, "event_name": "push", "token": "fake-token",
              "repository": "example/repo", "ref_name": "main", "base_ref": "", "event": {}}
    github.update(json.loads(github_json))
    ctx = {"inputs": inputs, "steps": {}, "github": github,
           "runner": {"temp": os.environ["RUNNER_TEMP"], "os": os.environ.get("RUNNER_OS", "Linux"),
                      "arch": os.environ.get("RUNNER_ARCH", "X64"),
                      "tool_cache": os.environ.get("RUNNER_TOOL_CACHE", os.environ["RUNNER_TEMP"])}}

    def lookup(path):
        cur = ctx
        for part in path.split("."):
            if not isinstance(cur, dict):
                return ""
            cur = cur.get(part, "")
        return "" if isinstance(cur, dict) else str(cur)

    ident = re.compile(r"\b(inputs|steps|github|runner)((?:\.[A-Za-z0-9_-]+)+)")

    def evaluate(expr):
        # Strings first (kept verbatim), then context references.
        parts = re.split(r"('(?:[^']|'')*')", expr.strip())
        out = []
        for p in parts:
            if p.startswith("'"):
                out.append(repr(p[1:-1].replace("''", "'")))
            else:
                p = p.replace("&&", " and ").replace("||", " or ")
                p = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", p))
                out.append(ident.sub(lambda m: repr(lookup(m.group(1) + m.group(2))), p))
        return eval("".join(out), {"__builtins__": {}}, {})

    def substitute(text):
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(evaluate(m.group(1))), str(text))

    def parse_outputs(path):
        out, lines, i = {}, open(path).read().split("\n"), 0
        while i < len(lines):
            line = lines[i]
            m = re.match(r"^([A-Za-z0-9_-]+)<<(.+)$", line)
            if m:
                name, delim, value = m.group(1), m.group(2), []
                i += 1
                while i < len(lines) and lines[i] != delim:
                    value.append(lines[i])
                    i += 1
                out[name] = "\n".join(value)
            elif "=" in line:
                k, v = line.split("=", 1)
                out[k] = v
            i += 1
        return out

    temp = os.environ["RUNNER_TEMP"]
    summary = os.path.join(temp, "step_summary.md")
    open(summary, "w").close()
    failed_code = 0
    log, durations = [], {}
    for step in action["runs"]["steps"]:
        sid = step.get("id", "")
        cond = step.get("if")
        if cond is not None:
            cond = str(cond).strip()
            if cond.startswith("${{"):
                cond = cond[3:-2]
            if failed_code or not evaluate(cond):
                log.append(f"skip {sid}")
                continue
        elif failed_code:
            log.append(f"skip {sid} (job failed)")
            continue
        if "uses" in step:
            log.append(f"uses {sid}: {step['uses']} (played by the caller)")
            ctx["steps"][sid] = {"outputs": {}}
            continue
        out_file = tempfile.mktemp(dir=temp, prefix="output_")
        open(out_file, "w").close()
        env = dict(os.environ)
        env.update({"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": out_file, "GITHUB_STEP_SUMMARY": summary,
                    "GITHUB_WORKSPACE": workspace, "GITHUB_ACTION_PATH": action_path,
                    "GITHUB_EVENT_NAME": github["event_name"], "GITHUB_REF_NAME": github["ref_name"],
                    "GITHUB_BASE_REF": github["base_ref"], "GITHUB_REPOSITORY": github["repository"],
                    "CI": "true"})
        for k, v in (step.get("env") or {}).items():
            env[k] = substitute(v)
        script = tempfile.mktemp(dir=temp, prefix="step_", suffix=".sh")
        open(script, "w").write(substitute(step["run"]))
        started = time.monotonic()
        rc = subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], env=env,
                             cwd=workspace)
        durations[sid] = round(time.monotonic() - started, 3)
        ctx["steps"][sid] = {"outputs": parse_outputs(out_file)}
        log.append(f"step {sid}: exit {rc}")
        if rc != 0 and not step.get("continue-on-error", False):
            failed_code = rc

    outputs = {k: substitute(v["value"]) for k, v in action.get("outputs", {}).items()}
    json.dump({"outputs": outputs, "job_exit": failed_code, "log": log, "durations": durations,
               "summary": open(summary).read()},
              open(os.path.join(temp, "job.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
