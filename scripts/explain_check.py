#!/usr/bin/env python3
"""GPU test: every modelled kernel's predicted shared-memory wavefronts against Nsight Compute.

explain_check.py SMEMLAB_BINARY

Runs `smemlab explain VARIANT --type T --measure --format json` for every registered variant
that has a model, for each element type it runs, at its family's default size, and checks what
the model claims: loads, and the cp.async writes a model counts, within 5% of the measurement,
stores from 1% above to 16% below (the hardware counts extra store wavefronts that the addresses
do not explain; see tests/cpu/explain_test.cpp). Exits 77 (skipped) without a GPU or ncu, 1 on a mismatch.
"""
import json
import shutil
import subprocess
import sys


def explain(binary, variant, dtype, *extra):
    run = subprocess.run([binary, "explain", variant, "--type", dtype, "--format", "json", *extra],
                         capture_output=True, text=True)
    return run.returncode, (json.loads(run.stdout) if run.returncode == 0 else run.stderr.strip())


def main(binary):
    if shutil.which("ncu") is None or subprocess.run(["nvidia-smi"], capture_output=True).returncode != 0:
        print("explain_check: no GPU or no ncu: skipped")
        return 77
    listed = subprocess.run([binary, "list", "--names"], capture_output=True, text=True,
                            check=True).stdout
    failures = checked = 0
    print(f"{'variant':<40}{'ld predicted':>14}{'ld measured':>14}{'st predicted':>14}{'st measured':>14}"
          f"{'cp predicted':>14}{'cp measured':>14}")
    for variant in listed.split():
        for dtype in ("float", "double", "bf16", "half", "tf32"):
            status, doc = explain(binary, variant, dtype)
            if status != 0 or doc["model"] is None:
                continue  # a type the variant does not run, or no model
            status, doc = explain(binary, variant, dtype, "--measure")
            name = variant + ("" if dtype == "float" else " " + dtype)
            if status != 0:
                print(f"{name}: explain --measure failed: {doc}")
                failures += 1
                continue
            m = doc["measured"]
            ok = m["within_tolerance"]
            failures += not ok
            checked += 1
            print(f"{name:<40}{m['ld_wavefronts']['predicted']:>14.0f}{m['ld_wavefronts']['measured']:>14.0f}"
                  f"{m['st_wavefronts']['predicted']:>14.0f}{m['st_wavefronts']['measured']:>14.0f}"
                  f"{m['cp_wavefronts']['predicted']:>14.0f}{m['cp_wavefronts']['measured']:>14.0f}  "
                  f"{'ok' if ok else 'MISMATCH'}")
    print(f"explain_check: {checked} kernels measured, {failures} failed")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
