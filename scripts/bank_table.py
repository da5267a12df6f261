#!/usr/bin/env python3
"""Joins the probe's catalogue with Nsight Compute's counters, launch by launch.

bank_table.py CATALOGUE.csv NCU.csv GPU_NAME > table.csv

The i-th profiled launch is the i-th catalogue pattern. For a load pattern the shared-load
counters are its own; for a store pattern the shared-store counters are (the probe's read-back
by thread 0 is a load). Output: a comment line naming the GPU, then
name,op,expression,block,width,bytes,instructions,wavefronts.
"""
import csv
import io
import sys


def main(catalogue_path, ncu_path, gpu):
    patterns = list(csv.DictReader(open(catalogue_path)))
    text = open(ncu_path, errors="replace").read()
    start = text.find('"ID"')
    if start < 0:
        sys.exit("bank_table.py: no ncu rows (see the .err file beside the CSV)")
    launches = {}
    for row in csv.DictReader(io.StringIO(text[start:])):
        launches.setdefault(int(row["ID"]), {})[row["Metric Name"]] = int(float(row["Metric Value"].replace(",", "")))
    ids = sorted(launches)
    if len(ids) != len(patterns):
        sys.exit(f"bank_table.py: {len(ids)} launches profiled for {len(patterns)} patterns")
    out = csv.writer(sys.stdout, lineterminator="\n")
    print(f"# measured with Nsight Compute on {gpu}: shared-memory wavefronts and instructions per pattern")
    out.writerow(["name", "op", "expression", "block", "width", "bytes", "instructions", "wavefronts"])
    for pattern, launch_id in zip(patterns, ids):
        m = launches[launch_id]
        op = pattern["op"]
        instructions = m[f"smsp__sass_inst_executed_op_shared_{op}.sum"]
        wavefronts = m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"]
        out.writerow([pattern["name"], op, pattern["expression"], pattern["block"], pattern["width"],
                      pattern["bytes"], instructions, wavefronts])


if __name__ == "__main__":
    main(*sys.argv[1:4])
