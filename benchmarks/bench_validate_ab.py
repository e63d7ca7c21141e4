"""CPU time of ``quizkit validate`` with two versions of the code, alternated (a fair
before/after on a shared machine: load raises both alike, and the least of N runs is kept).

    git archive COMMIT quizkit | tar -x -C /tmp/before
    python benchmarks/bench_validate_ab.py --before /tmp/before --after . CORPUS --runs 7

Each run is the installed console script with ``PYTHONPATH`` set to one tree, writing the
JSON report to a file; CPU time (user + system, workers included) comes from ``wait4``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def cpu_seconds(tree: str, corpus: str, jobs: int, report: str) -> float:
    exe = Path(sys.executable).parent / "quizkit"
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
    proc = subprocess.Popen([str(exe), "validate", "--jobs", str(jobs), "--format", "json",
                             "-o", report, corpus], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _pid, _status, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--before", required=True, help="a tree holding quizkit/ (the old code)")
    ap.add_argument("--after", required=True, help="a tree holding quizkit/ (the new code)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    best = {"before": float("inf"), "after": float("inf")}
    with tempfile.TemporaryDirectory() as tmp:
        report = str(Path(tmp) / "report.json")
        for _ in range(args.runs):
            for name in best:
                spent = cpu_seconds(getattr(args, name), args.corpus, args.jobs, report)
                best[name] = min(best[name], spent)
    print(f"load average {os.getloadavg()[0]:.1f}; least CPU s of {args.runs} runs, "
          f"--jobs {args.jobs}: before {best['before']:.3f}, after {best['after']:.3f} "
          f"({best['after'] / best['before']:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
