#!/usr/bin/env python3
"""Runs the hostile input corpus (tests/data/hostile/cases.tsv) against gpugate.

Each row of cases.tsv is `command<TAB>expected exit<TAB>fragment`. The command
is run by bash under `ulimit -v` and `timeout`, after these placeholders are
replaced (paths shell-quoted):
  {gpugate}      the binary under test
  {file:NAME}    tests/data/hostile/NAME (must exist)
  {gen:NAME}     a large input this script writes (never stored in git)
  {fifo:NAME}    a FIFO fed by a writer: NAME "zeros" writes zeros without
                 end, any other NAME is a corpus file written once
  {tmp}          a scratch folder
A case passes when the exit code is the expected one and stderr contains the
fragment (an empty fragment matches anything). Every corpus file must be used
by a case. Prints one line per failure, then a summary with the run time and
the largest peak RSS of any case; exits 1 on a failure.
"""
import argparse
import concurrent.futures
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import threading
import time
import json

PLACEHOLDER_KINDS = ("file", "gen", "fifo")


# ---------------------------------------------------------------------------
# Generated inputs: too large to keep in git, cheap to write.

def results_doc(workloads, run=None):
    r = {"tool_version": "0.1.0", "suite": "s", "run_id": "r1", "time_utc": "2026-01-01T00:00:00Z",
         "time_unix_ns": 1767225600000000000,
         "environment": {"host": "h", "os": "Linux", "cpu_model": "cpu", "cpu_cores": 2,
                         "compiler": "gcc"}}
    r.update(run or {})
    return {"schema": "gpugate/results/v1", "version": {"major": 1, "minor": 2}, "run": r,
            "workloads": workloads}


def workload(name, samples_text):
    head = json.dumps({"name": name, "kind": "synthetic", "backend": "synthetic", "status": "ok"})
    return head[:-1] + ', "rounds": [[' + samples_text + ']], "summary": {"n": 1, "median": 1, ' \
        '"mean": 1, "min": 1, "max": 1, "stddev": 0, "mad": 0, "p5": 1, "p95": 1, "cv": 0, ' \
        '"rel_ci_half_width": 0}}'


def generate(gen_dir):
    def write(name, text):
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(os.path.join(gen_dir, name), mode) as f:
            f.write(text)

    # 10^6 workloads of one name (31 MB): refused by the YAML size limit,
    # and with a raised limit by the node limit, before yaml-cpp builds a tree.
    write("million_same_name.yaml",
          "version: 1\nworkloads:\n" + "  - {name: a, kind: synthetic}\n" * 1000000)
    write("nodes_over_limit.yaml", "version: 1\nworkloads:\n" + "- {name: a, kind: synthetic}\n" * 60000)
    write("long_flow_list.yaml", "version: 1\nworkloads: [" + "x," * 250000 + "x]\n")
    write("shard_1_of_2147483647.json",
          json.dumps(results_doc([json.loads(workload("w", "0.001"))], {"shard": "1/2147483647"})))
    doc = json.dumps(results_doc([]))
    write("too_many_values.json",
          doc.replace('"workloads": []', '"workloads": [' + workload("w", ",".join(["1"] * 2100000)) + "]"))
    write("too_many_samples.json",
          doc.replace('"workloads": []',
                      '"workloads": [' + workload("w", ",".join(["1"] * 1000001)) + "]"))
    # A minified history of many runs: positions in each run are counted
    # from the run's start, never by padding a copy of the file.
    runs = [json.dumps(results_doc([json.loads(workload("w", "0.001,0.0011,0.0009"))],
                                   {"run_id": "r%d" % i})) for i in range(1001)]
    head = '{"schema": "gpugate/baseline/v1", "version": 1, "suite": "s", "environment_key": "k", '
    write("baseline_one_line_1000_runs.json", head + '"runs": [' + ",".join(runs[:1000]) + "]}")
    write("baseline_1001_runs.json", head + '"runs": [' + ",".join(runs) + "]}")
    write("trace_too_many_devices.json",
          '{"deviceProperties": [' + ",".join(["{}"] * 5000) + '], "traceEvents": []}')
    # Text is copied into results, environments and reports: one string is at
    # most 64 MiB (1 MiB in a trace), all strings of a document 64 MiB.
    write("custom_long_string.json",
          '[{"unit": "ns", "value": 1, "name": "' + "x" * (65 << 20) + '"}]')
    write("gbench_many_strings.json",
          '{"benchmarks": [], "context": {' +
          ", ".join('"k%d": "%s"' % (i, "v" * (1 << 20)) for i in range(70)) + '}}')
    write("trace_long_name.json",
          '{"traceEvents": [{"ph": "X", "ts": 1, "dur": 1, "name": "' + "k" * (2 << 20) + '"}]}')
    write("baseline_long_suite.json",
          '{"schema": "gpugate/baseline/v1", "suite": "' + "s" * (65 << 20) + '", "runs": []}')
    one = workload("w%d", "1")
    write("too_many_workloads.json",
          doc.replace('"workloads": []', '"workloads": [' +
                      ",".join(one.replace("w%d", "w%d" % i) for i in range(100001)) + "]"))
    write("two_mib.json", '{"schema": "gpugate/results/v1", "pad": "' + "x" * (2 << 20) + '"}')


class Fifos:
    """FIFOs with writer threads; a writer that is never read stays blocked
    in open() and is released at the end."""

    def __init__(self, folder, corpus):
        self.folder = folder
        self.corpus = corpus
        self.count = 0
        self.threads = []

    def make(self, name):
        self.count += 1
        path = os.path.join(self.folder, "fifo%d-%s" % (self.count, name))
        os.mkfifo(path)
        source = None if name == "zeros" else os.path.join(self.corpus, name)
        t = threading.Thread(target=self._write, args=(path, source), daemon=True)
        t.start()
        self.threads.append((t, path))
        return path

    @staticmethod
    def _write(path, source):
        try:
            with open(path, "wb") as out:
                if source is None:
                    block = b"\0" * (1 << 20)
                    while True:
                        out.write(block)
                else:
                    with open(source, "rb") as f:
                        out.write(f.read())
        except (BrokenPipeError, OSError):
            pass

    def release(self):
        for t, path in self.threads:
            if t.is_alive():
                try:  # unblock a writer still waiting for a reader
                    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
                    os.close(fd)
                except OSError:
                    pass
            t.join(timeout=2)
        self.threads = []


def expand(command, args, corpus, gen_dir, tmp, fifos, used):
    out = command.replace("{gpugate}", shlex.quote(args.gpugate)).replace("{tmp}", shlex.quote(tmp))
    for kind in PLACEHOLDER_KINDS:
        marker = "{" + kind + ":"
        while marker in out:
            start = out.index(marker)
            end = out.index("}", start)
            name = out[start + len(marker):end]
            if kind == "file":
                path = os.path.join(corpus, name)
                used.add(name)
            elif kind == "gen":
                path = os.path.join(gen_dir, name)
            else:
                path = fifos.make(name)
                if name != "zeros":
                    used.add(name)
                    path = path
            if kind != "fifo" and not os.path.exists(path):
                raise ValueError("no such input: " + name)
            out = out[:start] + shlex.quote(path) + out[end + 1:]
    return out


def run_case(shell_command, args, tmp, index):
    err_path = os.path.join(tmp, "stderr%d.txt" % index)
    with open(err_path, "wb") as err, open(os.devnull, "wb") as devnull:
        # Leading VAR=value words stay in front of exec, so they reach gpugate.
        words = shell_command.split(" ")
        n = 0
        while n < len(words) and "=" in words[n] and not words[n].startswith(("{", "'", "/")):
            n += 1
        script = "ulimit -v %d; %s exec timeout %d %s" % (
            args.ulimit_kb, " ".join(words[:n]), args.timeout, " ".join(words[n:]))
        case_dir = os.path.join(tmp, "case%d" % index)
        os.mkdir(case_dir)
        proc = subprocess.Popen(["bash", "-c", script], stdout=devnull, stderr=err, cwd=case_dir)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    with open(err_path, "rb") as f:
        stderr = f.read().decode("utf-8", "replace")
    return proc.returncode, stderr, usage.ru_maxrss


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpugate", required=True)
    parser.add_argument("--corpus", required=True, help="tests/data/hostile")
    parser.add_argument("--timeout", type=int, default=10, help="seconds per case")
    parser.add_argument("--ulimit-kb", type=int, default=1 << 20, help="ulimit -v per case (KiB)")
    parser.add_argument("--filter", default="", help="run only cases whose command contains this")
    parser.add_argument("--verbose", action="store_true", help="list the slowest cases")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once")
    args = parser.parse_args()
    args.gpugate = os.path.abspath(args.gpugate)
    corpus = os.path.abspath(args.corpus)

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="gpugate-hostile-") as tmp:
        gen_dir = os.path.join(tmp, "gen")
        os.mkdir(gen_dir)
        generate(gen_dir)
        used = set()
        failures = []
        with open(os.path.join(corpus, "cases.tsv"), encoding="utf-8") as f:
            rows = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
        cases = []
        for line_no, row in enumerate(rows, 1):
            parts = row.split("\t")
            if len(parts) != 3:
                failures.append("cases.tsv row %d: expected 3 tab-separated columns" % line_no)
            elif not args.filter or args.filter in parts[0]:
                cases.append(parts)

        def run_one(index):
            command, expected, fragment = cases[index]
            case_tmp = os.path.join(tmp, "t%d" % index)
            os.mkdir(case_tmp)
            fifos = Fifos(case_tmp, corpus)
            try:
                shell_command = expand(command, args, corpus, gen_dir, case_tmp, fifos, used)
            except ValueError as e:
                return ["%s: %s" % (command, e)], 0.0, 0
            started_case = time.monotonic()
            code, stderr, rss_kb = run_case(shell_command, args, case_tmp, index)
            fifos.release()
            problems = []
            if code != int(expected):
                problems.append("exit %d, expected %s" % (code, expected))
            if fragment and fragment not in stderr:
                problems.append("stderr lacks %r" % fragment)
            found = ["%s: %s\n    stderr: %s" % (command, "; ".join(problems), stderr.strip()[:600])] \
                if problems else []
            return found, time.monotonic() - started_case, rss_kb

        timings = []
        worst = (0, "")
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for index, (found, seconds, rss_kb) in enumerate(pool.map(run_one, range(len(cases)))):
                failures.extend(found)
                timings.append((seconds, cases[index][0]))
                if rss_kb > worst[0]:
                    worst = (rss_kb, cases[index][0])
        total = len(cases)
        if not args.filter:
            stored = {n for n in os.listdir(corpus) if n != "cases.tsv"}
            for name in sorted(stored - used):
                failures.append("%s: no case uses this file" % name)
    elapsed = time.monotonic() - started
    for f in failures:
        print("FAIL " + f)
    if args.verbose:
        for seconds, command in sorted(timings, reverse=True)[:10]:
            print("%6.2f s  %s" % (seconds, command))
    print("hostile corpus: %d cases, %d failed, %.1f s, largest peak RSS %.0f MiB (%s)" %
          (total, len(failures), elapsed, worst[0] / 1024.0, worst[1]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
