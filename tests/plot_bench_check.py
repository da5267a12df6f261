#!/usr/bin/env python3
"""scripts/plot_bench.py on the committed results: the --best summary that docs/results/README.md
shows, distinct styles for every series, bad input as one line and exit status 2, and, where
matplotlib is installed, every kind of picture drawn. Prints one line per problem; exit status 1
when there is any."""

import importlib.util
import json
import pathlib
import re
import subprocess
import sys
import tempfile

root = pathlib.Path(__file__).resolve().parent.parent
script = root / "scripts" / "plot_bench.py"
data = root / "docs" / "results" / "data"
spec = importlib.util.spec_from_file_location("plot_bench", script)
plot_bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot_bench)
problems = []


def run(*args):
    return subprocess.run(
        [sys.executable, str(script), *map(str, args)], capture_output=True, text=True
    )


# The --best summary, as docs/results/README.md quotes it, from the files it names.
readme = (root / "docs" / "results" / "README.md").read_text(encoding="utf-8")
command = re.search(r"plot_bench\.py (data/sgemm[^\n]*\\\n[^\n]*\\\n[^\n]*) --best", readme)
quoted = re.search(r"without `--plot` prints them:\n\n```\n(.*?)```", readme, re.DOTALL)
if not command or not quoted:
    problems.append(
        "docs/results/README.md: the --best command or its output is not where expected"
    )
else:
    files = [data / f[len("data/") :] for f in command.group(1).replace("\\\n", " ").split()]
    best = run(*files, "--best")
    if best.returncode != 0 or best.stdout != quoted.group(1):
        problems.append(
            f"--best prints, and docs/results/README.md should quote:\n{best.stdout}{best.stderr}"
        )

# Every series of a plot has its own colour; the reference alone is black.
names = [f"v{i}" for i in range(plot_bench.MAX_LINES)]
styles = plot_bench.series_styles(
    "matmul", ["cublas", *names], {"cublas"}, {("matmul", "v0"), ("matmul", "v1")}
)
colours = [styles[v]["color"] for v in names]
if len(set(colours)) != len(colours) or "black" in colours or styles["cublas"]["color"] != "black":
    problems.append(f"series share a colour: {colours}")
if styles["v0"].get("markerfacecolor") != "white" or "markerfacecolor" in styles["v2"]:
    problems.append("the tutorials' steps should be hollow, the others filled")
if plot_bench.lane_list([0, 16]) != "0,16" or plot_bench.lane_list(list(range(32))) != "0-31":
    problems.append(
        f"lane lists: {plot_bench.lane_list([0, 16])!r}, {plot_bench.lane_list(list(range(32)))!r}"
    )

# A bank map as `smemlab banks 'tx/2' --map --format json` writes it (first lanes of each
# shared word in the grid, the broadcasts beside).
grid = [[2 * b if b < 16 else None for b in range(32)]]
bank_map = {
    "expression": "tx/2",
    "block": [32, 1, 1],
    "width": 4,
    "warps": [{"warp": 0, "ideal": 1, "phases": [{}]}],
    "map": {
        "warp": 0,
        "phases": [
            {
                "first_lane": 0,
                "lanes": 32,
                "wavefronts": grid,
                "broadcasts": [
                    {"wavefront": 0, "bank": b, "lanes": [2 * b, 2 * b + 1]} for b in range(16)
                ],
            }
        ],
    },
}

with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    map_file = tmp / "map.json"
    map_file.write_text(json.dumps(bank_map))
    (tmp / "broken.json").write_text("{")
    for args in (
        [tmp / "missing.json"],
        [tmp / "broken.json"],
        [map_file],
        [data / "matmul-h200.json", data / "reduction-h200-float.json"],
        [data / "matmul-h200.json", "--best", "--family", "matmul"],
        [data / "bench-full-h200.json"],  # several families, none chosen
        [data / "bench-full-h200.json", data / "matmul-h200.json", "--best"],
    ):  # matmul twice
        r = run(*args)
        if r.returncode != 2 or r.stderr.count("\n") != 1 or r.stdout:
            problems.append(f"{[str(a) for a in args]}: status {r.returncode}, stderr {r.stderr!r}")
    summary = run(data / "transpose-h200-float.json")
    if summary.returncode != 0 or not re.search(
        r"^tuned\s+1560\.38 \(1\.31\)", summary.stdout, re.MULTILINE
    ):
        problems.append(f"the transpose summary:\n{summary.stdout}{summary.stderr}")

    if importlib.util.find_spec("matplotlib") is None:
        print("plot_bench_check: matplotlib is not installed: the pictures were not drawn")
    else:
        drawn = [
            ([data / "tensor-matmul-h200.json"], "bench.png"),
            ([data / "banks-h200.json"], "banks.png"),
            ([map_file], "map.png"),
            (
                [data / "transpose-h200-float.json", data / "reduction-h200-double.json", "--best"],
                "best.png",
            ),
        ]
        for args, out in drawn:
            r = run(*args, "--plot", tmp / out)
            if r.returncode != 0 or not (tmp / out).is_file() or (tmp / out).stat().st_size < 10000:
                problems.append(f"{out}: status {r.returncode}, {r.stderr.strip()}")

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
