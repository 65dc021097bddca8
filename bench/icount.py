#!/usr/bin/env python3
"""icount.py — instructions per MPI call from callgrind output files (bench/icount.sh).

Reads callgrind.out files written with --compress-strings=no --compress-pos=no and prints, for each MPI
function called directly by the benchmark program, the number of calls and the inclusive instructions (Ir)
per call: the cost of the call as the application sees it, library internals and all.
usage: icount.py PROGRAM_PATH FILE...   (PROGRAM_PATH: the benchmark executable, to find its call sites)
"""
import collections
import os
import re
import sys


def calls_from_program(path, program):
    """{callee name: [calls, inclusive Ir]} for calls whose caller lives in `program`."""
    out = collections.defaultdict(lambda: [0, 0])
    ob = cob = None
    caller_in_prog = False
    pending = None  # (callee, calls) waiting for its cost line
    prog = os.path.realpath(program)
    events = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if pending is not None:
                parts = line.split()
                if events is None or len(parts) < 2:
                    pending = None
                    continue
                name, n = pending
                pending = None
                if caller_in_prog:
                    out[name][0] += n
                    out[name][1] += int(parts[1 + events.index("Ir") - 0]) if len(parts) > 1 else 0
                continue
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("ob="):
                ob = line[3:]
            elif line.startswith("fl=") or line.startswith("fi=") or line.startswith("fe="):
                pass
            elif line.startswith("fn="):
                caller_in_prog = ob is not None and os.path.realpath(ob) == prog
                cob = None
            elif line.startswith("cob="):
                cob = line[4:]
            elif line.startswith("cfn="):
                callee = line[4:]
            elif line.startswith("calls="):
                pending = (callee, int(line[6:].split()[0]))
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    program = sys.argv[1]
    total = collections.defaultdict(lambda: [0, 0])
    for path in sys.argv[2:]:
        for name, (n, ir) in calls_from_program(path, program).items():
            total[name][0] += n
            total[name][1] += ir
    for name in sorted(total):
        n, ir = total[name]
        base = re.sub(r"^P?MPI_", "MPI_", name)
        if not base.startswith("MPI_") or n == 0:
            continue
        print(f"{base} {n} {ir / n:.0f}")


if __name__ == "__main__":
    main()
