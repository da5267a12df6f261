#!/usr/bin/env python3
"""Joins the probe's catalogue with Nsight Compute's counters, launch by launch.

bank_table.py CATALOGUE.csv NCU.csv GPU_NAME > table.csv
bank_table.py --metrics   the counters to collect, for ncu --metrics

The i-th profiled launch is the i-th catalogue pattern. Each instruction has its own counters:
plain loads and stores the shared-load and shared-store ones (a store pattern's read-back by
thread 0 is a load, counted apart), ldmatrix, stmatrix and cp.async (LDSM, STSM, LDGSTS in the
SASS) the wavefronts attributed to those instructions. Output: a comment line naming the GPU,
then name,op,expression,block,width,bytes,instructions,wavefronts,swizzle.
"""
import csv
import io
import sys


# (instructions, wavefronts) counters per instruction, by the start of its name
COUNTERS = {
    "ld": ("smsp__sass_inst_executed_op_shared_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    "st": ("smsp__sass_inst_executed_op_shared_st.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
    "ldmatrix": ("smsp__sass_inst_executed_op_ldsm.sum", "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum"),
    "stmatrix": ("smsp__sass_inst_executed_op_shared_stsm.sum",
                 "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum"),
    "cp.async": ("smsp__sass_inst_executed_op_ldgsts.sum",
                 "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"),
}
METRICS = ",".join(sorted({m for pair in COUNTERS.values() for m in pair}))


def counters(op):
    for start, pair in COUNTERS.items():
        if op == start or op.startswith(start + "."):
            return pair
    sys.exit(f"bank_table.py: no counters for the instruction {op}")


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
    out.writerow(["name", "op", "expression", "block", "width", "bytes", "instructions", "wavefronts", "swizzle"])
    for pattern, launch_id in zip(patterns, ids):
        m = launches[launch_id]
        op = pattern["op"]
        instruction_counter, wavefront_counter = counters(op)
        instructions = m[instruction_counter]
        wavefronts = m[wavefront_counter]
        out.writerow([pattern["name"], op, pattern["expression"], pattern["block"], pattern["width"],
                      pattern["bytes"], instructions, wavefronts, pattern.get("swizzle", "0")])


if __name__ == "__main__":
    if sys.argv[1:] == ["--metrics"]:
        print(METRICS)
    else:
        main(*sys.argv[1:4])
