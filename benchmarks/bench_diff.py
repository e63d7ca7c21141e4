"""Benchmark: `quizkit diff` of two exports against one `quizkit load` of one of them.

    python benchmarks/bench_diff.py                    # generate 1,000 packages, then measure
    python benchmarks/bench_diff.py --packages 20000   # the size of the 1.5 GB corpus
    python benchmarks/bench_diff.py --shape lines      # one JSON Lines file a side
    python benchmarks/bench_diff.py --corpus DIR       # an existing corpus as the old side
    python benchmarks/bench_diff.py --corpus DIR --new DIR2   # and another as the new side

The new side is a copy of the old with a few edits (a package removed, one renamed, a
question's price changed, a package re-indented with its keys reversed), or ``--new`` (the
same corpus written in another shape makes every file differ, with no record changed).
Each step runs in a fresh subprocess, its peak RSS and CPU time (user + system, its children
included) read with ``resource.getrusage``; load and diff alternate, and the best of
``--repeat`` rounds is printed, with the ratios diff/load (the target: at most 2, in at most 1 GB).
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
            "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(rc, u.ru_maxrss, u.ru_utime + u.ru_stime)")


def _run(args: list[str]) -> tuple[float, float, float]:
    """Seconds, CPU seconds and peak RSS (MB) of one quizkit subprocess."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _WRAPPER, *QUIZKIT, *args],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    rc, peak, cpu = done.stdout.split()[-3:]
    if int(rc) not in (0, 1):
        sys.exit(f"quizkit {' '.join(args)} failed ({rc}): {done.stderr[-500:]!r}")
    return seconds, float(cpu), int(peak) / 1024


def _edited(docs: list[dict]) -> list[dict]:
    """The package documents with the edits: the first removed, the second renamed with a
    question's price changed, the third with its keys reversed."""
    docs[1]["name"] += " (edited)"
    docs[1]["versions"][0]["questions"][0]["price"] += 1
    docs[2] = dict(reversed(list(docs[2].items())))
    return docs[1:]


def _is_package(doc: object) -> bool:
    return isinstance(doc, dict) and "name" in doc and bool(doc.get("versions")) and \
        bool(doc["versions"][0].get("questions"))


def _edit(old: Path, new: Path) -> None:
    shutil.copytree(old, new)
    packages = sorted((new / "packages").glob("*.json"))
    if packages:
        docs = _edited([json.loads(p.read_text()) for p in packages[:3]])
        packages[0].unlink()
        for path, doc in zip(packages[1:3], docs, strict=True):
            path.write_text(json.dumps(doc, indent=4 if path == packages[2] else 2))
        return
    for path in sorted(new.rglob("*.jsonl")):  # the JSON Lines shape: one document a line
        lines = path.read_bytes().splitlines()
        at = [i for i, line in enumerate(lines) if b'"questions"' in line and
              _is_package(json.loads(line))][:3]
        if len(at) == 3:
            docs = _edited([json.loads(lines[i]) for i in at])
            lines[at[1]], lines[at[2]] = (json.dumps(d).encode() for d in docs)
            del lines[at[0]]
            path.write_bytes(b"\n".join(lines) + b"\n")
            return


def _size(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", type=int, default=1000)
    parser.add_argument("--shape", choices=("indented", "compact", "lines"),
                        default="indented")
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--new", type=Path)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--memory-limit", default="1GB")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-diff-") as tmp:
        work = Path(tmp)
        old = opts.corpus or work / "old"
        if opts.corpus is None:
            subprocess.run([*QUIZKIT, "samples", "generate", "--packages",
                            str(opts.packages), "--seed", "1", "--shape", opts.shape,
                            "--out", str(old)], check=True,
                           capture_output=True)
        new = opts.new or work / "new"
        if opts.new is None:
            _edit(old, new)
        print(f"corpus: {_size(old) / 1e6:.0f} MB a side, {os.cpu_count()} cores, "
              f"load average {os.getloadavg()[0]:.1f}")
        best: dict[str, tuple[float, float, float]] = {}
        for _ in range(opts.repeat):
            db = work / "one.duckdb"
            db.unlink(missing_ok=True)
            steps = {"load": ["load", str(old), "--db", str(db), "--no-findings",
                              "--memory-limit", opts.memory_limit, "-q"],
                     "diff": ["diff", str(old), str(new), "--format", "json", "-o",
                              str(work / "diff.json"), "--memory-limit", opts.memory_limit]}
            for name, args in steps.items():
                seconds, cpu, peak = _run(args)
                if name not in best:
                    best[name] = (seconds, cpu, peak)
                best[name] = (min(seconds, best[name][0]), min(cpu, best[name][1]),
                              max(peak, best[name][2]))
        for name, (seconds, cpu, peak) in best.items():
            print(f"{name:5} {seconds:8.1f} s  {cpu:8.1f} CPU s  peak RSS {peak:8.0f} MB")
        print(f"diff / load: {best['diff'][0] / best['load'][0]:.2f}x time, "
              f"{best['diff'][1] / best['load'][1]:.2f}x CPU; load average now "
              f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
