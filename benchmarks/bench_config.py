"""Benchmark: the cost of many ``per-path-ignores`` in a config file.

    python benchmarks/bench_config.py                   # 0, 1,000, 10,000 and 100,000 patterns
    python benchmarks/bench_config.py --patterns 100000 --repeat 3
    python benchmarks/bench_config.py --baseline DIR    # also time the quizkit package in DIR

Each measurement is ``quizkit validate --jobs 1 --format json`` as a fresh subprocess over a
copy of ``samples/invalid/rules`` (39 files, every one with findings, so every file's path is
matched against the patterns), with a ``quizkit.toml`` holding N patterns: half literal file
paths (``legacy/file7.json``), half globs (``old/7/**/*.json``), plus one that matches the
corpus. The best wall time of ``--repeat`` runs is printed, and the time over the run without
patterns (the cost of the patterns: reading the TOML, checking the rule names, compiling and
matching). ``--baseline DIR`` runs the same with ``PYTHONPATH=DIR`` (e.g. an extracted older
``quizkit`` package); it is stopped after ``--timeout`` seconds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_config(path: Path, patterns: int) -> None:
    lines = ["[per-path-ignores]", '"exports/question-*.json" = ["C"]']
    lines += [f'"legacy/file{i}.json" = ["unknown-field"]' for i in range(patterns // 2)]
    lines += [f'"old/{i}/**/*.json" = ["C", "T001"]' for i in range(patterns - patterns // 2)]
    path.write_text("\n".join(lines) + "\n")


def best_of(work: Path, repeat: int, timeout: float, pythonpath: str | None) -> float | None:
    env = {**os.environ}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    best = None
    for _ in range(repeat):
        started = time.perf_counter()
        try:
            subprocess.run([sys.executable, "-m", "quizkit", "validate", "--jobs", "1",
                            "--format", "json", "-o", os.devnull, "exports"], cwd=work,
                           env=env, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return None
        took = time.perf_counter() - started
        best = took if best is None else min(best, took)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patterns", type=int, nargs="*", default=[0, 1000, 10000, 100000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--baseline", help="a directory holding an older quizkit package")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "samples" / "invalid" / "rules", work / "exports")
        runs = [("this tree", None)] + ([("baseline", args.baseline)] if args.baseline else [])
        print(f"{'patterns':>9}  {'code':<10} {'best s':>8} {'over 0':>8}")
        zero: dict[str, float | None] = {}
        for n in sorted(set([0, *args.patterns])):
            write_config(work / "quizkit.toml", n)
            for name, path in runs:
                took = best_of(work, args.repeat, args.timeout, path)
                if n == 0:
                    zero[name] = took
                if took is None:
                    print(f"{n:>9,}  {name:<10} {'> ' + str(int(args.timeout)):>8} {'':>8}")
                    continue
                base = zero.get(name)
                over = f"{took - base:8.2f}" if base is not None else ""
                print(f"{n:>9,}  {name:<10} {took:8.2f} {over}")


if __name__ == "__main__":
    main()
