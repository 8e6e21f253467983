#!/usr/bin/env python3
"""Where a build's time went, from Ninja's log (<build>/.ninja_log) of one cold build: the time of each step summed
by kind (compile, precompiled header, moc/uic/rcc, link, other) and by source folder, the slowest units, and the
link time of each program. Times are wall seconds per step; with more jobs than cores they include waiting for a
core, so compare shares within one build, and whole builds by their wall time. docs/benchmarks.md (build time).

usage: packaging/build_times.py BUILD_DIR [--top N] [--source-dir DIR]
"""
import argparse
import collections
import os
import re
import sys


def read_log(path):
    """One entry per step: the newest entry of each output (a log holds every build since the directory was made),
    and a step with several outputs (same start, end and command hash) counted once, under its first output."""
    steps, seen = {}, set()
    with open(path) as f:
        header = f.readline()
        if not header.startswith("# ninja log"):
            sys.exit(f"{path}: not a Ninja log (first line {header.strip()!r})")
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 4:
                continue
            start, end, output = int(parts[0]), int(parts[1]), parts[3]
            step = (start, end, parts[4] if len(parts) > 4 else output)
            if step in seen:
                continue
            seen.add(step)
            steps[output] = (start, end)
    return steps


def kind_of(output):
    if output.endswith(".gch") or "cmake_pch" in output:
        return "precompiled header"
    if "_autogen" in output or output.endswith(".moc") or "/qrc_" in output or output.endswith(".qm"):
        return "moc/uic/rcc/lrelease"
    if output.endswith(".o"):
        return "compile"
    if output.endswith(".a"):
        return "archive"
    if output.endswith(".so") or "/bin/" in output or re.search(r"/[^/.]+$", output):
        return "link"
    return "other"


def folder_of(output):
    """core/CMakeFiles/fts_model.dir/model/x.cpp.o -> core/model; tests/CMakeFiles/model_tests.dir/core/model/..."""
    m = re.match(r"(.*?)CMakeFiles/([^/]+)\.dir/(.*)\.o$", output)
    if not m:
        return "(other)"
    base, target, rel = m.group(1).rstrip("/"), m.group(2), m.group(3)
    if rel.startswith("Unity/"):  # a unity batch: named by its target (fts_model -> core/model)
        name = re.sub(r"^fts_", "", target)
        return (base if base.endswith(name) else "/".join(x for x in (base, name) if x)) + " (unity batches)"
    rel = re.sub(r"^(__|\.\./)+", "", rel)
    src = os.path.dirname(rel)
    if base.startswith("tests") and src and not src.startswith("tests"):
        return "tests/" + src  # tests/CMakeFiles/<program>.dir/core/model/test_x.cpp.o: tests/core/model
    return "/".join(x for x in (base, src) if x) or "(top)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    steps = read_log(os.path.join(args.build_dir, ".ninja_log"))
    if not steps:
        sys.exit("empty log")
    t0 = min(s for s, _ in steps.values())
    t1 = max(e for _, e in steps.values())
    by_kind = collections.defaultdict(lambda: [0.0, 0])
    by_folder = collections.defaultdict(lambda: [0.0, 0])
    units, links = [], []
    for out, (s, e) in steps.items():
        d = (e - s) / 1000.0
        k = kind_of(out)
        by_kind[k][0] += d
        by_kind[k][1] += 1
        if k == "compile":
            f = folder_of(out)
            by_folder[f][0] += d
            by_folder[f][1] += 1
            units.append((d, out))
        elif k == "link":
            links.append((d, out))
    total = sum(v[0] for v in by_kind.values())
    print(f"{len(steps)} steps, {(t1 - t0) / 1000:.0f} s from first start to last end, {total:.0f} step-seconds\n")
    print("| kind | steps | step-seconds | share |\n|---|---|---|---|")
    for k, (d, n) in sorted(by_kind.items(), key=lambda kv: -kv[1][0]):
        print(f"| {k} | {n} | {d:.0f} | {100 * d / total:.0f}% |")
    print("\n| folder (compile) | units | step-seconds | per unit |\n|---|---|---|---|")
    for f, (d, n) in sorted(by_folder.items(), key=lambda kv: -kv[1][0]):
        print(f"| {f} | {n} | {d:.0f} | {d / n:.1f} |")
    print(f"\n| slowest units (top {args.top}) | seconds |\n|---|---|")
    for d, out in sorted(units, reverse=True)[: args.top]:
        print(f"| {out} | {d:.1f} |")
    print(f"\n| links ({len(links)}) | seconds |\n|---|---|")
    for d, out in sorted(links, reverse=True):
        print(f"| {out} | {d:.1f} |")


if __name__ == "__main__":
    main()
