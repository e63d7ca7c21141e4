"""Benchmark: `quizkit diff` of two exports against one `quizkit load` of one of them.

    python benchmarks/bench_diff.py                    # generate 1,000 packages, then measure
    python benchmarks/bench_diff.py --packages 20000   # the size of the 1.5 GB corpus
    python benchmarks/bench_diff.py --corpus DIR       # an existing corpus as the old side

The new side is a copy of the old with a few edits (a package removed, one renamed, a
question's price changed, a file re-indented with its keys reversed). Each step runs in a
fresh subprocess, its peak RSS read with ``resource.getrusage``; the best of ``--repeat``
runs is printed, with the ratio diff/load (the target: at most 2, in at most 1 GB).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUIZKIT = [sys.executable, "-m", "quizkit"]


#: Runs one command and prints its exit code and its own peak RSS (KiB), so that each step's
#: peak is its own, not the largest of all children so far.
_WRAPPER = ("import resource, subprocess, sys; rc = subprocess.run(sys.argv[1:]).returncode; "
            "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def _run(args: list[str]) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of one quizkit subprocess."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _WRAPPER, *QUIZKIT, *args],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    rc, peak = done.stdout.split()[-2:]
    if int(rc) not in (0, 1):
        sys.exit(f"quizkit {' '.join(args)} failed ({rc}): {done.stderr[-500:]!r}")
    return seconds, int(peak) / 1024


def _edit(old: Path, new: Path) -> None:
    shutil.copytree(old, new)
    packages = sorted((new / "packages").glob("*.json"))
    packages[0].unlink()
    doc = json.loads(packages[1].read_text())
    doc["name"] += " (edited)"
    doc["versions"][0]["questions"][0]["price"] += 1
    packages[1].write_text(json.dumps(doc, indent=2))
    doc = json.loads(packages[2].read_text())
    packages[2].write_text(json.dumps(dict(reversed(list(doc.items()))), indent=4))


def _size(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", type=int, default=1000)
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--memory-limit", default="1GB")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-diff-") as tmp:
        work = Path(tmp)
        old = opts.corpus or work / "old"
        if opts.corpus is None:
            subprocess.run([*QUIZKIT, "samples", "generate", "--packages",
                            str(opts.packages), "--seed", "1", "--out", str(old)], check=True,
                           capture_output=True)
        new = work / "new"
        _edit(old, new)
        print(f"corpus: {_size(old) / 1e6:.0f} MB a side, {os.cpu_count()} cores, "
              f"load average {os.getloadavg()[0]:.1f}")
        best: dict[str, tuple[float, float]] = {}
        for _ in range(opts.repeat):
            db = work / "one.duckdb"
            db.unlink(missing_ok=True)
            steps = {"load": ["load", str(old), "--db", str(db), "--no-findings",
                              "--memory-limit", opts.memory_limit, "-q"],
                     "diff": ["diff", str(old), str(new), "--format", "json", "-o",
                              str(work / "diff.json"), "--memory-limit", opts.memory_limit]}
            for name, args in steps.items():
                seconds, peak = _run(args)
                if name not in best or seconds < best[name][0]:
                    best[name] = (seconds, peak)
        for name, (seconds, peak) in best.items():
            print(f"{name:5} {seconds:8.1f} s  peak RSS {peak:8.0f} MB")
        print(f"diff / load: {best['diff'][0] / best['load'][0]:.2f}x time")


if __name__ == "__main__":
    main()
