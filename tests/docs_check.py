#!/usr/bin/env python3
"""The documentation speaks for itself: every relative link in README.md and docs/ points at a
file of the repository, the prose uses the tutorials' titles, not the numbers of the files they
were read from, and the counts it states agree with what they count (the measured bank patterns,
the rows of committed results). Prints one line per problem; exit status 1 when there is any."""

import csv
import json
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
pages = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
link = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# Words that name the project's source files or outside material instead of saying what it is.
unexplained = re.compile(r"\bseeds?\b|\beducational repository\b", re.IGNORECASE)


def measured_patterns():
    with open(root / "tests/data/bank_conflicts_h200.csv", encoding="utf-8") as f:
        return sum(1 for _ in csv.DictReader(line for line in f if not line.startswith("#")))


def rows_of(*names):
    return sum(
        len(json.loads((root / "docs/results/data" / name).read_text())["rows"]) for name in names
    )


def kernels_measured(name):
    text = (root / "docs/results/data" / name).read_text(encoding="utf-8")
    return int(re.search(r"(\d+) of \d+ kernels measured", text).group(1))


# Any "N patterns" or "N measured patterns" counts the measured bank patterns, except in the
# notes under docs/perf/, which count the patterns of their own experiments.
pattern_count = re.compile(r"\b(\d+) (?:measured )?patterns\b")
notes = root / "docs" / "perf"
# Counts stated once, where they are: the page, the words around the number, what it counts.
# A statement reworded must be reworded here too.
statements = [
    (
        "README.md",
        r"banks, matmul, reduction and transpose gave (\d+) rows",
        lambda: rows_of("bench-full-h200.json"),
    ),
    ("README.md", r"tensor-matmul's (\d+) rows", lambda: rows_of("tensor-matmul-h200.json")),
    ("docs/results/matmul.md", r"All (\d+) rows passed", lambda: rows_of("matmul-h200.json")),
    (
        "docs/results/tensor-matmul.md",
        r"All (\d+) rows passed",
        lambda: rows_of("tensor-matmul-h200.json"),
    ),
    (
        "docs/results/reduction.md",
        r"All (\d+) rows \(",
        lambda: rows_of("reduction-h200-float.json", "reduction-h200-double.json"),
    ),
    ("docs/results/reduction.md", r"\((\d+) float,", lambda: rows_of("reduction-h200-float.json")),
    (
        "docs/results/reduction.md",
        r"float, (\d+) double\)",
        lambda: rows_of("reduction-h200-double.json"),
    ),
    (
        "docs/results/transpose.md",
        r"all (\d+) rows exact",
        lambda: rows_of("transpose-h200-float.json", "transpose-h200-double.json"),
    ),
    ("docs/results/banks.md", r"All (\d+) rows verified", lambda: rows_of("banks-h200.json")),
    ("docs/results/scan.md", r"All (\d+) rows verified", lambda: rows_of("scan-h100.json")),
    ("docs/results/scan.md", r"the H200's (\d+) rows", lambda: rows_of("scan-h200.json")),
    (
        "docs/results/histogram.md",
        r"all (\d+) rows verified",
        lambda: rows_of("histogram-h100.json", "histogram-h200.json"),
    ),
    (
        "docs/guide/banks.md",
        r"all (\d+) are within the tolerance",
        lambda: kernels_measured("explain-h100-measure.txt"),
    ),
]

problems = []
patterns = measured_patterns()
stated = 0
for page in pages:
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(root)
    for target in link.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        if not (page.parent / target).resolve().exists():
            problems.append(f"{name}: link to a missing file: {target}")
    for number, line in enumerate(text.splitlines(), 1):
        if unexplained.search(line):
            problems.append(f"{name}:{number}: {line.strip()[:100]}")
    # Sentences wrap: look for the counts in the page with its lines joined.
    prose = " ".join(text.split())
    for match in [] if notes in page.parents else pattern_count.finditer(prose):
        stated += 1
        if int(match.group(1)) != patterns:
            problems.append(
                f"{name}: '{match.group(0)}', but tests/data/bank_conflicts_h200.csv "
                f"holds {patterns} measured patterns"
            )
if stated == 0:
    problems.append("no page states the number of measured bank patterns ('N patterns')")
for page, words, counted in statements:
    prose = " ".join((root / page).read_text(encoding="utf-8").split())
    found = re.findall(words, prose)
    if len(found) != 1:
        problems.append(
            f"{page}: expected one statement matching '{words}', found {len(found)} "
            "(reworded? update tests/docs_check.py)"
        )
    elif int(found[0]) != counted():
        problems.append(f"{page}: states {found[0]} for '{words}', the data has {counted()}")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
