#!/usr/bin/env python3
"""The documentation speaks for itself: every relative link in README.md and docs/ points at a
file of the repository, and the prose uses the tutorials' titles, not the numbers of the files
they were read from. Prints one line per problem; exit status 1 when there is any."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
pages = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
link = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# Words that name the project's source files or outside material instead of saying what it is.
unexplained = re.compile(r"\bseeds?\b|\beducational repository\b", re.IGNORECASE)

problems = []
for page in pages:
    text = page.read_text(encoding="utf-8")
    for target in link.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        if not (page.parent / target).resolve().exists():
            problems.append(f"{page.relative_to(root)}: link to a missing file: {target}")
    for number, line in enumerate(text.splitlines(), 1):
        if unexplained.search(line):
            problems.append(f"{page.relative_to(root)}:{number}: {line.strip()[:100]}")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
