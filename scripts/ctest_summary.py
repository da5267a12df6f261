#!/usr/bin/env python3
"""The end of a test run, for a person: what failed (with its output), why tests were skipped,
and one closing line of counts.

ctest_summary.py JUNIT_XML

JUNIT_XML is what `ctest --output-junit` wrote. A skipped test's reason is the message its own
output gives after GoogleTest's "Skipped" (or the explain check's "skipped"); tests that give the
same reason are counted together.
"""
import collections
import re
import sys
import xml.etree.ElementTree as ET

WIDTH = 100
FAILED_OUTPUT_LINES = 30


def skip_reason(output):
    lines = [line.strip() for line in output.splitlines()]
    for i, line in enumerate(lines):
        if line.endswith("Skipped") and i + 1 < len(lines) and lines[i + 1]:
            return lines[i + 1]
        match = re.search(r":\s*(.*):\s*skipped$", line)
        if match:
            return match.group(1)
    return "no reason given"


def plural(count, word):
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def main(junit_path):
    cases = ET.parse(junit_path).getroot().iter("testcase")
    passed, failed, skipped = [], [], collections.Counter()
    for case in cases:
        output = case.findtext("system-out") or ""
        if case.find("failure") is not None or case.get("status") == "fail":
            failed.append((case.get("name"), output))
        elif case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            skipped[skip_reason(output)] += 1
        else:
            passed.append(case.get("name"))
    for name, output in failed:
        print(f"---- FAILED: {name}")
        for line in output.rstrip().splitlines()[-FAILED_OUTPUT_LINES:]:
            print(line[:WIDTH])
    if skipped:
        print("Skipped:")
        for reason, count in skipped.most_common():
            print(f"  {plural(count, 'test')}: {reason}"[:WIDTH])
    if failed:
        print("Failed: " + ", ".join(name for name, _ in failed)[: WIDTH - 8])
    closing = f"{len(passed)} passed, {len(failed)} failed"
    if skipped:
        closing += f", {sum(skipped.values())} skipped"
    print("tests: " + closing)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
