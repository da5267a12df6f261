#!/usr/bin/env python3
"""GPU test: every modelled kernel's predicted shared-memory wavefronts against Nsight Compute.

explain_check.py SMEMLAB_BINARY

Runs `smemlab explain --all --measure --format json`: every registered variant that has a
model, in each element type it runs, at its family's size, all profiled in one Nsight Compute
session. Each model's loads, stores, and the cp.async writes and atomics it counts must be within 5%
of the measurement: stores, cp.async writes and atomics as the instructions' addresses need them (Nsight Compute's
count per instruction), loads as the L1 counts them, except in kernels where wgmma reads shared
memory beside them (there, from their addresses too). The L1's counts are printed beside: they
also count the waits for other traffic in the same banks, so they may only be higher. Then one variant through
`explain --measure`, the single-kernel path with every counter and the steps timed. Exits 77
(skipped) without a GPU or ncu, 1 on a mismatch.
"""
import json
import shutil
import subprocess
import sys
import time

# The L1's counts may exceed the counts from the addresses (waits for other traffic),
# never fall short of them by more than the counters' noise.
L1_FLOOR = 0.99


def main(binary):
    if shutil.which("ncu") is None or subprocess.run(["nvidia-smi"], capture_output=True).returncode != 0:
        print("explain_check: no GPU or no ncu: skipped")
        return 77
    start = time.monotonic()
    run = subprocess.run([binary, "explain", "--all", "--measure", "--format", "json"],
                         capture_output=True, text=True)
    if run.stderr.strip():
        print(run.stderr.strip())
    if not run.stdout.strip():
        print(f"explain_check: explain --all --measure printed nothing (exit {run.returncode})")
        return 1
    failures = 0 if run.returncode == 0 else 1
    header = f"{'variant':<40}" + "".join(f"{h:>12}" for h in (
        "ld model", "ld meas", "ld L1", "st model", "st addr", "st L1", "cp model", "cp addr",
        "atom model", "atom addr"))
    print(header)
    explained = json.loads(run.stdout)
    measured = [e for e in explained if e.get("measured") is not None]
    for e in measured:
        m = e["measured"]
        name = e["variant"] + ("" if e["type"] == "float" else " " + e["type"])
        values = [m["ld_wavefronts"]["predicted"], m["ld_wavefronts"]["measured"], m["ld_wavefronts"]["l1"],
                  m["st_wavefronts"]["predicted"], m["st_wavefronts"]["measured"], m["st_wavefronts"]["l1"],
                  m["cp_wavefronts"]["predicted"], m["cp_wavefronts"]["measured"],
                  m["atom_wavefronts"]["predicted"], m["atom_wavefronts"]["measured"]]
        complete = all(v is not None for v in values)  # a counter ncu did not report is null
        ok = complete and m["within_tolerance"] and \
            m["ld_wavefronts"]["l1"] >= L1_FLOOR * m["ld_wavefronts"]["measured"] and \
            m["st_wavefronts"]["l1"] >= L1_FLOOR * m["st_wavefronts"]["measured"]
        failures += not ok
        print(f"{name:<40}" + "".join("{:>12}".format("-" if v is None else f"{v:.0f}") for v in values)
              + ("  ok" if ok else "  MISMATCH"))
    print(f"explain_check: {len(measured)} of {len(explained)} kernels measured in one session, "
          f"{time.monotonic() - start:.0f} s")

    # The single-kernel path: every counter, and the step timed against the previous one.
    single = subprocess.run([binary, "explain", "reduction/shared_dynamic", "--measure", "--format", "json"],
                            capture_output=True, text=True)
    if single.returncode != 0:
        print(f"explain reduction/shared_dynamic --measure failed: {single.stderr.strip()}")
        failures += 1
    else:
        doc = json.loads(single.stdout)
        m = doc["measured"]
        complete = m["within_tolerance"] and m["top_stalls"] and m["bytes"]["dram"] is not None and \
            doc["step"]["results"]["source"] == "measured"
        print(f"explain reduction/shared_dynamic --measure: {'ok' if complete else 'INCOMPLETE'}")
        failures += not complete
    print(f"explain_check: {failures} failed, {time.monotonic() - start:.0f} s in all")
    return 1 if failures or len(measured) < len(explained) or not measured else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
