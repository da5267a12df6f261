#!/usr/bin/env python3
"""Counts the instructions that matter per kernel in `cuobjdump -sass` output.

For each kernel: FFMA (the useful work), LDS/STS (shared-memory loads/stores, by width),
LDG/STG (global), BAR, BRA, integer address arithmetic (IMAD, IADD3, LEA), LDL/STL (local
memory: spills or arrays the compiler could not keep in registers). Counts are static: each
instruction of the program once, so an unrolled loop shows all of its FFMAs, a rolled one few.
"""
import re
import sys
from collections import Counter

KEYS = ["FFMA", "LDS", "LDS.64", "LDS.128", "STS", "LDG", "STG", "BAR", "BRA", "IMAD", "IADD3", "LEA", "LDL", "STL"]


def main(path):
    kernels = {}
    current = None
    for line in open(path, errors="replace"):
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            current = m.group(1)
            kernels[current] = Counter()
            continue
        if current is None:
            continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if not m:
            continue
        op = m.group(1)
        base = op.split(".")[0]
        c = kernels[current]
        c["total"] += 1
        if base in ("LDS", "STS", "LDG", "STG"):
            width = next((w for w in (".64", ".128") if w in op), "")
            c[base + width] += 1
        elif base in KEYS:
            c[base] += 1
    name_w = 48
    print(f"{'kernel':<{name_w}}" + "".join(f"{k:>8}" for k in ["total"] + KEYS))
    for name, c in kernels.items():
        if "smemlab" not in name:
            continue
        short = re.sub(r"_GLOBAL__N__\w+?_\d+_", "", name)[-name_w:]
        print(f"{short:<{name_w}}" + "".join(f"{c[k]:>8}" for k in ["total"] + KEYS))


if __name__ == "__main__":
    main(sys.argv[1])
