#!/usr/bin/env python3
"""Picks the autotuned matmul variant's table from a matmul-tiles sweep.

For each shape class (the rule of matmul::classify: small when C has fewer 128x128 tiles than
the device has SMs, else unaligned when B's rows are not 16-byte aligned, tall for M >= 4N,
wide for N >= 4M, square otherwise), the verified
candidate with the best geometric mean of vs_reference (cuBLAS time / candidate time, same
run) over the class's sizes. Writes the choices as JSON and prints them as the C++ table rows
of src/matmul/tuning_table.cpp.
  tune_table.py SWEEP.json [SWEEP.json ...] --output tuning.json
"""
import argparse
import json
import math
from collections import defaultdict


def shape_class(m, n, sms):
    tiles = ((m + 127) // 128) * ((n + 127) // 128)
    if tiles < sms:
        return "small"
    if n % 4 != 0:  # the bench's B has ldb = n and an aligned base
        return "unaligned"
    if m >= 4 * n:
        return "tall"
    if n >= 4 * m:
        return "wide"
    return "square"


def dims(size):
    parts = [int(p) for p in size.split("x")]
    return parts * 3 if len(parts) == 1 else parts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sweeps", nargs="+")
    ap.add_argument("--output", required=True)
    args = ap.parse_args()

    device = None
    # class -> candidate -> size -> vs_reference
    ratios = defaultdict(lambda: defaultdict(dict))
    sizes_of = defaultdict(set)
    unverified = []
    for path in args.sweeps:
        report = json.load(open(path))
        device = report["device"]
        for row in report["rows"]:
            if row["variant"] == "cublas":
                continue
            m, n, _ = dims(row["size"])
            cls = shape_class(m, n, device["sms"])
            sizes_of[cls].add(row["size"])
            if not row["verified"]:
                unverified.append(f'{row["variant"]} at {row["size"]}')
                continue
            ratios[cls][row["variant"]][row["size"]] = row["vs_reference"]

    cc_major, cc_minor = (int(x) for x in device["compute_capability"].split("."))
    choices = []
    for cls in ("small", "unaligned", "square", "tall", "wide"):
        if cls not in ratios:
            continue
        sizes = sorted(sizes_of[cls])
        best = None
        for cand, per_size in ratios[cls].items():
            if set(per_size) != set(sizes):
                continue  # a candidate must have run (and verified) at every size of the class
            gmean = math.exp(sum(math.log(per_size[s]) for s in sizes) / len(sizes))
            if best is None or gmean > best[1]:
                best = (cand, gmean, per_size)
        config, group, slices = best[0].split("/")
        choices.append({
            "shape": cls,
            "config": config,
            "group": int(group[1:]),
            "slices": int(slices[1:]),
            "geomean_vs_cublas": round(best[1], 4),
            "vs_cublas": {s: round(v, 4) for s, v in sorted(best[2].items())},
        })

    out = {
        "device": {"name": device["name"], "cc_major": cc_major, "cc_minor": cc_minor,
                   "sms": device["sms"]},
        "unverified": unverified,
        "choices": choices,
    }
    with open(args.output, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    for c in choices:
        print(f'      TuningEntry{{{cc_major}, {cc_minor}, {device["sms"]}, '
              f'ShapeClass::{c["shape"]}, {{"{c["config"]}", {c["group"]}, {c["slices"]}}}}},'
              f'  // {c["geomean_vs_cublas"]:.3f}x cuBLAS')
    if unverified:
        print("UNVERIFIED:", ", ".join(unverified))


if __name__ == "__main__":
    main()
