#!/usr/bin/env python3
"""Checks the console output recorded by injection_e2e.sh (see there).

Usage: check_console.py DIR   (DIR holds oN.LABEL.stdout/.stderr/.rc)
Prints one line per recorded command and every violation; exits 1 on any.
"""
import glob
import os
import re
import sys

# gpugate's own annotations: a command it emits on purpose, properties
# %-escaped (no ':' or ',' inside a value).
OWN = re.compile(r"^::(error|warning|notice)( [a-zA-Z]+=[^:,]*(,[a-zA-Z]+=[^:,]*)*)?::")
BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) | {0x200E, 0x200F, 0x061C}
# What a runner may trim before looking for "::" (taken broadly).
BLANKS = " \t\v\f\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006" \
         "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def check(path, text_bytes, problems):
    try:
        text = text_bytes.decode("utf-8")
    except UnicodeDecodeError as e:
        problems.append(f"{path}: invalid UTF-8 at byte {e.start}")
        text = text_bytes.decode("utf-8", "replace")
    own = 0
    for n, line in enumerate(re.split(r"\r\n|\r|\n", text), 1):
        where = f"{path}:{n}"
        if "##[" in line:
            problems.append(f"{where}: '##[' would run a workflow command: {line!r}")
        stripped = line.lstrip(BLANKS)
        if stripped.startswith("::"):
            if OWN.match(stripped) and stripped == line:
                own += 1
            else:
                problems.append(f"{where}: line starts a workflow command: {line!r}")
        for ch in line:
            cp = ord(ch)
            if (cp < 0x20 and ch != "\t") or cp == 0x7F or 0x80 <= cp <= 0x9F:
                problems.append(f"{where}: raw control U+{cp:04X}: {line!r}")
                break
            if cp in BIDI:
                problems.append(f"{where}: raw bidi control U+{cp:04X}: {line!r}")
                break
    return own


def main():
    d = sys.argv[1]
    problems = []
    own_total = 0
    rcs = {}
    for path in sorted(glob.glob(os.path.join(d, "o*.std*")), key=lambda p: int(os.path.basename(p)[1:].split(".")[0])):
        with open(path, "rb") as f:
            own_total += check(os.path.basename(path), f.read(), problems)
    for path in glob.glob(os.path.join(d, "o*.rc")):
        rc = int(open(path).read())
        rcs[os.path.basename(path)[:-3]] = rc
        if rc >= 3 and not os.path.basename(path).endswith((".gate.rc",)):
            # Only a gate may exit 3 (a workload failed); nothing here should crash.
            problems.append(f"{os.path.basename(path)}: exit {rc}")
    for name in sorted(rcs, key=lambda s: int(s[1:].split(".")[0])):
        print(f"  {name:<24} exit {rcs[name]}")
    if own_total == 0:
        problems.append("gpugate's own annotations are missing (the regression should have one)")
    for p in problems:
        print("FAIL " + p)
    print(f"{len(rcs)} commands, {own_total} own annotation lines, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
