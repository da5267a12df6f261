#!/usr/bin/env python3
"""Rates of the streamed kernels that the FP32 default call (src/matmul/14_auto.cpp) weighs.

  fit_streamed.py RUN.json [RUN.json ...]

The runs: `smemlab bench --format json` with the variant matmul/skinny (and matmul/autotuned, for
the tiles' stores), and tensor-matmul's small_k in tf32 (float operands, FP32 sums: the kernel the
FP32 call runs). For each kernel it fits

    ns = launches * per_launch + max(bytes / (fraction * DRAM peak), multiply-adds / (rate * SMs),
                                     rounds * round latency)

(rounds: the loads a block waits for one after another) by least squares on the logarithm over a
grid of the four constants, and prints them with the error of each row. matmul/skinny's kernels
are fitted in two classes: those that stream B along its rows (few rows) or A along K (one or two
columns), and the one that takes a row of C a thread (three to sixteen columns). Rows are
classed by shape, so a run made before the thread-a-row kernel (matmul-streamed-skinny-h100.json)
gives a meaningless fit for that class. It also prints the speed at which 12's tiles store C with rows that are not
16-byte aligned (their stores go 4 bytes at a time), from the short-K rows of the autotuned variant.
The plan of the skinny kernel mirrors plan_skinny in src/matmul/13_skinny.cu.

Rows of the variant tensor-matmul/dot (step 19, any type and layout) fit the default tensor-core
call's model of that kernel the same way (dot_predicted_ns in src/tensor_matmul/16_auto.cpp; its
committed constants come from docs/results/data/tensor-dot-{bf16,tf32,bf16-tt,half-tn}-h200.json):
its bytes are the lines its loads touch in the L1 (wavefronts), its rounds those of each wave of
blocks, plus a cost for each block an SM starts.
"""
import json
import math
import sys


def sizes(row):
    """m, n, k of a row's size: MxNxK or N (a cube), with the layout's suffix (TN, NT, TT) dropped."""
    dims = [int(x) for x in row["size"].split()[0].split("x")]
    return tuple(dims * 3) if len(dims) == 1 else tuple(dims)


def skinny_work(m, n, k, sms):
    """Launches, bytes, multiply-adds and rounds of loads a block of matmul/skinny, as 13_skinny.cu plans them."""
    thin = min(m, n)
    width = 1
    while width < min(thin, 16):
        width *= 2
    groups = math.ceil(thin / width)
    few_rows = m <= n
    along_k = width <= 2  # few columns: one or two take the lanes-along-K kernel, more a thread a row
    per_group = math.ceil(n / 128) if few_rows else math.ceil(m / (32 if along_k else 128))
    blocks = groups * per_group
    round_k = 8 * (8 if width <= 4 else 4) if few_rows else (128 if along_k else 32)
    by_k = min(max(1, k // round_k), 65535)
    fewest = min(-(-4 * sms // blocks), by_k)

    def range_of(r):
        return k if r == 1 else -(-(-(-k // r)) // round_k) * round_k

    best = None
    for r in range(fewest, min(by_k, 4 * fewest) + 1):
        rk = range_of(r)
        cost = -(-(blocks * -(-k // rk)) // sms) * rk
        if best is None or cost < best[0]:
            best = (cost, rk)
    range_k = best[1]
    ranges = -(-k // range_k)
    rounds = -(-range_k // round_k)
    large, c = max(m, n) * k, m * n
    partials = 2 * ranges * c if ranges > 1 else 0
    return (2 if ranges > 1 else 1), 4.0 * (groups * large + thin * k + 2 * c + partials), groups * width * large, rounds


def small_k_work(m, n, k, _sms):
    """The same for small_k: its 32 x 256 tiles whole, K in chunks of 16 (a round each)."""
    chunks = math.ceil(k / 16)
    return 1, 4.0 * (m * n + (m + n) * k), math.ceil(m / 32) * 32 * math.ceil(n / 256) * 256 * chunks * 16, chunks


ELEMENT_BYTES = {"bf16": 2, "half": 2, "tf32": 4}


def plan_dot(m, n, k, sms):
    """Blocks, threads and rounds of loads a block of tensor-matmul's dot kernel, as plan_dot in 19_dot.cu."""
    blocks = -(-m // 4) * -(-n // 4)
    per_round = max(1, -(-k // 4))
    threads = min(max(1 << (per_round - 1).bit_length(), 32), 1024)
    while threads > 128 and blocks * threads > 2 * sms * 1024:
        threads //= 2
    per_thread = -(-k // threads)
    return blocks, threads, per_thread // 4 + per_thread % 4


def dot_work(m, n, k, elem, transpose_a, transpose_b, sms):
    """The dot kernel's L1 wavefronts (lines its loads touch), multiply-adds and rounds (waves of
    blocks each waiting for its own), as dot_predicted_ns in 16_auto.cpp models them."""
    blocks, threads, rounds = plan_dot(m, n, k, sms)
    across = lambda row: (1.0 if row % 4 == 0 else 4.0) * min(1.0, row * elem / 128.0)
    lines = (across(m) if transpose_a else 4.0 * elem / 128.0) + (4.0 * elem / 128.0 if transpose_b else across(n))
    waves = -(-blocks // (sms * min(32, 1024 // threads)))
    return blocks * k * lines, 16.0 * blocks * k, waves * rounds, blocks / sms


def dot_predict(work, launch, lines_per_ns, rate, round_ns, block_ns, sms):
    lines, fmas, rounds, blocks_per_sm = work
    return launch + max(lines / (lines_per_ns * sms), fmas / (rate * sms), rounds * round_ns + blocks_per_sm * block_ns)


def fit_dot(runs):
    """tensor-matmul's dot kernel: ns = launch + max(lines / (speed * SMs), multiply-adds / (rate * SMs),
    rounds * round latency + blocks / SMs * a block's cost), over every type and layout of the runs."""
    points, device = [], None
    for run in runs:
        sms = run["device"]["sms"]
        ta, tb = run["options"].get("transpose_a", False), run["options"].get("transpose_b", False)
        for r in run["rows"]:
            if r["variant"] != "dot":
                continue
            device = run["device"]
            m, n, k = sizes(r)
            points.append((f'{r["size"]} {r["dtype"]}', dot_work(m, n, k, ELEMENT_BYTES[r["dtype"]], ta, tb, sms),
                           r["median_ms"] * 1e6))
    if not points:
        return
    sms = device["sms"]

    def error(params):
        return sum(math.log(dot_predict(w, *params, sms) / t) ** 2 for _, w, t in points)

    geometric = lambda lo, hi, step: [lo * step ** i for i in range(int(math.log(hi / lo) / math.log(step)) + 1)]
    best = min(((error(p), p) for p in ((launch, speed, rate, round_ns, block_ns)
                                        for launch in range(2000, 6001, 500)
                                        for speed in geometric(0.5, 8, 1.25)
                                        for rate in geometric(8, 128, 1.25)
                                        for round_ns in geometric(100, 4000, 1.25)
                                        for block_ns in (0, 25, 50, 75, 100, 150, 200, 300))), key=lambda e: e[0])
    err, params = best
    launch, speed, rate, round_ns, block_ns = params
    print(f"dot ({device['name']}): launch {launch} ns, {speed:.2f} lines/ns/SM, {rate:.1f} multiply-adds/ns/SM, "
          f"{round_ns:.0f} ns a round of loads, {block_ns} ns a block an SM; rms log error "
          f"{math.sqrt(err / len(points)):.3f} over {len(points)} rows")
    for name, w, t in points:
        print(f"    {name:>24} measured {t / 1000:8.1f} us  predicted {dot_predict(w, *params, sms) / 1000:8.1f} us")


def predict(point, per_launch, fraction, rate, round_ns, peak, sms):
    _, launches, byte_count, fmas, rounds, _ = point
    return launches * per_launch + max(byte_count / (fraction * peak), fmas / (rate * sms), rounds * round_ns)


def fit(points, peak, sms):
    best = None
    for per_launch in range(1000, 8001, 250):
        for fraction in (x / 100 for x in range(60, 100, 2)):
            for rate in range(20, 161, 5):
                for round_ns in range(200, 4001, 100):
                    err = sum(math.log(predict(p, per_launch, fraction, rate, round_ns, peak, sms) / p[-1]) ** 2
                              for p in points)
                    if best is None or err < best[0]:
                        best = (err, per_launch, fraction, rate, round_ns)
    err, per_launch, fraction, rate, round_ns = best
    print(f"  per launch {per_launch} ns, DRAM fraction {fraction:.2f}, {rate} multiply-adds/ns/SM, "
          f"{round_ns} ns a round of loads; rms log error {math.sqrt(err / len(points)):.3f} over {len(points)} rows")
    for p in points:
        ns = predict(p, per_launch, fraction, rate, round_ns, peak, sms)
        print(f"    {p[0]:>16} measured {p[-1] / 1000:8.1f} us  predicted {ns / 1000:8.1f} us")


def a_thread_a_row(m, n):
    """Whether matmul/skinny runs its thread-a-row kernel: few columns, three to sixteen."""
    return m > n and 2 < n <= 16


def main():
    runs = [json.load(open(p)) for p in sys.argv[1:]]
    # matmul/skinny's kernels in two classes, fitted apart: B streamed along its rows, or A
    # along K (one or two columns); and A's rows a thread each.
    classes = (("skinny", "float", skinny_work, lambda m, n: not a_thread_a_row(m, n)),
               ("skinny, a thread a row", "float", skinny_work, a_thread_a_row),
               ("small_k", "tf32", small_k_work, lambda m, n: True))
    for label, dtype, work, member in classes:
        variant = label.split(",")[0]
        points, device = [], None
        for run in runs:
            sms = run["device"]["sms"]
            for r in run["rows"]:
                m, n, k = sizes(r)
                if r["variant"] != variant or r["dtype"] != dtype or (variant == "skinny" and min(m, n) > 16):
                    continue
                if not member(m, n):
                    continue
                device = run["device"]
                points.append((r["size"], *work(m, n, k, sms), r["median_ms"] * 1e6))
        if not points:
            continue
        print(f"{label} ({device['name']}):")
        fit(points, device["dram_peak_gbs"], device["sms"])
    fit_dot(runs)
    speeds = []
    for run in runs:
        for r in run["rows"]:
            m, n, k = sizes(r)
            if r["variant"] == "autotuned" and k <= 16 and n % 4 != 0:
                speeds.append(4.0 * m * n / (r["median_ms"] * 1e6))
    if speeds:
        speeds.sort()
        print(f"12's tiles storing C with unaligned rows: median {speeds[len(speeds) // 2]:.0f} bytes/ns "
              f"over {len(speeds)} rows with K <= 16 (range {speeds[0]:.0f}-{speeds[-1]:.0f})")


if __name__ == "__main__":
    main()
