#!/usr/bin/env python3
"""Plot and summarise `smemlab bench --format json` output.

plot_bench.py RESULTS.json [--plot OUT.png] [--family F] [--summary]

--plot draws throughput against size, one line per variant (the reference dashed), the picture
seed 003 shows. --summary prints a compact table: one row per variant, one column per size,
each cell "throughput (ratio to the reference)"; --markdown prints the same as a markdown table.
"""
import argparse
import json
import sys


def load(path, family):
    with open(path) as f:
        doc = json.load(f)
    rows = [r for r in doc["rows"] if family is None or r["family"] == family]
    if not rows:
        sys.exit(f"plot_bench.py: no rows for family {family!r} in {path}")
    return doc["device"], rows


# How many dimensions a single number N stands for in each family's sizes.
SQUARE_RANK = {"matmul": 3, "transpose": 2, "reduction": 1}


def work(size, family):
    """Orders sizes by the amount of work: the product of the dimensions the label stands for."""
    dims = [2 ** int(d[2:]) if d.startswith("2^") else int(d) for d in size.split("x")]
    if len(dims) == 1:
        return dims[0] ** SQUARE_RANK.get(family, 1)
    product = 1
    for d in dims:
        product *= d
    return product


def ordered(values, key=None):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return sorted(seen, key=key) if key else seen


def summary(device, rows, markdown=False):
    for dtype in ordered([r.get("dtype", "float") for r in rows]):
        typed = [r for r in rows if r.get("dtype", "float") == dtype]
        summary_one(device, typed, dtype, markdown)


def summary_one(device, rows, dtype, markdown):
    sizes = ordered([r["size"] for r in rows], key=lambda size: work(size, rows[0]["family"]))
    variants = ordered([r["variant"] for r in rows])
    cell = {(r["variant"], r["size"]): r for r in rows}
    unit = rows[0]["throughput_unit"]
    scale, shown = (1e-3, unit.replace("G", "T")) if unit == "GFLOP/s" else (1.0, unit)
    digits = 3 if max(r["throughput"] for r in rows) * scale < 10 else 2

    def text(v, s):
        r = cell.get((v, s))
        if r is None:
            return "-"
        mark = "" if r["verified"] else " FAILED"
        return f"{r['throughput'] * scale:.{digits}f} ({r['vs_reference']:.2f}){mark}"

    if markdown:
        print(f"\n{rows[0]['family']}, {dtype}:\n")
        print(f"| variant | " + " | ".join(sizes) + " |")
        print("|---|" + "---:|" * len(sizes))
        for v in variants:
            print(f"| {v} | " + " | ".join(text(v, s) for s in sizes) + " |")
        return
    print(f"{device['name']}, {rows[0]['family']} {dtype}: {shown} (x reference), median of runs; FAILED = failed verification")
    if len(sizes) > 12:  # many sizes (the bank strides): one line per size
        predicted = any(r.get("predicted_wavefronts") is not None for r in rows)
        print(f"{'size':>8}" + "".join(f"{v:>22}" for v in variants))
        for s in sizes:
            cells = []
            for v in variants:
                r = cell.get((v, s))
                pred = f" [{r['predicted_wavefronts']:.0f}]" if r and predicted and r.get("predicted_wavefronts") is not None else ""
                cells.append(f"{(text(v, s) + pred):>22}")
            print(f"{s:>8}" + "".join(cells))
        return
    width = max(len(v) for v in variants)
    print(" " * width + "".join(f"{s:>18}" for s in sizes))
    for v in variants:
        print(f"{v:<{width}}" + "".join(f"{text(v, s):>18}" for s in sizes))


def plot(device, rows, out, family):
    family = family or rows[0]["family"]
    dtypes = ordered([r.get("dtype", "float") for r in rows])
    if len(dtypes) > 1:  # one picture per type: out.png becomes out-float.png, out-double.png
        stem = out[:-4] if out.endswith(".png") else out
        for dtype in dtypes:
            plot_one(device, [r for r in rows if r.get("dtype", "float") == dtype], f"{stem}-{dtype}.png", f"{family or ''} {dtype}")
        return
    plot_one(device, rows, out, f"{family or ''} {dtypes[0]}")


def plot_one(device, rows, out, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = ordered([r["size"] for r in rows], key=lambda size: work(size, rows[0]["family"]))
    variants = ordered([r["variant"] for r in rows])
    fig, ax = plt.subplots(figsize=(9, 5.5))
    markers = "osD^v<>ph*X"
    for i, v in enumerate(variants):
        pts = [(sizes.index(r["size"]), r["throughput"]) for r in rows if r["variant"] == v]
        xs, ys = zip(*sorted(pts))
        reference = v in ("cublas", "cub")
        if v.startswith("cpu_"):
            continue  # host loops: orders of magnitude off the GPU scale
        # Distinct markers: variants that measure the same (static and dynamic tiles) stay visible.
        line = ax.plot(xs, ys, "k--" if reference else "-", marker=markers[i % len(markers)],
                       markerfacecolor="none", label=v, linewidth=2 if reference else 1.5)[0]
        pred = sorted((sizes.index(r["size"]), r.get("predicted_wavefronts")) for r in rows if r["variant"] == v)
        if not reference and pred and all(p is not None for _, p in pred):
            # The analyzer's prediction: one wavefront a clock, so 1/wavefronts accesses a clock.
            ax.plot([x for x, _ in pred], [1.0 / p for _, p in pred], ":", color=line.get_color(), linewidth=1)
    step = max(1, len(sizes) // 16)
    ax.set_xticks(range(0, len(sizes), step))
    ax.set_xticklabels(sizes[::step])
    ax.set_xlabel("size")
    ax.set_ylabel(rows[0]["throughput_unit"])
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(f"smemlab {title} on {device['name']}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--plot")
    ap.add_argument("--family")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    device, rows = load(args.results, args.family)
    if args.summary or args.markdown:
        summary(device, rows, markdown=args.markdown)
    if args.plot:
        plot(device, rows, args.plot, args.family)


if __name__ == "__main__":
    main()
