"""Benchmark the result cache: an unchanged dump checked cold, then again with a warm cache.

    python benchmarks/bench_cache.py                    # 800 documents (600 packages, 200 games)
    python benchmarks/bench_cache.py --repeat 3 --jobs 1
    python benchmarks/bench_cache.py --inputs DIR       # a corpus of your own instead

The corpus is what a pipeline sends: ``--packages`` full packages and ``--games`` games of a
generated corpus (seed 1), written in three shapes, one document per file: compact (one
line, as services write them), indented (two spaces) and JSON Lines (``.jsonl``, one line).
Each shape is timed in turn, interleaved, ``--repeat`` times: the run without the cache
(``--no-cache``), the cold run (a new, empty cache directory: it checks every file and writes
every entry) and the warm run (the same command again: every file unchanged), and the
start-up of quizkit (one small file, ``--no-cache``). The cache promises to make no run
slower: cold / no-cache is printed beside the warm target. ``--inputs DIR`` (repeatable) times
those directories instead of the generated shapes. Wall time and the CPU seconds of the
process tree (``wait4``) are the best of the repeats. The target: warm <= 10% of cold, or
<= 0.35 s, whichever is longer.

Runs go through the real command line as child processes, with Python's bytecode cache on
(``PYTHONDONTWRITEBYTECODE`` unset for them), as an installed quizkit starts. The machine may
be shared: the load average is printed.
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

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_validate import installed_env  # a sibling script, not a package

ROOT = Path(__file__).resolve().parent.parent
QUIZKIT = [sys.executable, "-m", "quizkit"]
SHAPES = ("compact", "indented", "jsonl")
TARGET_RATIO = 0.10
TARGET_FLOOR_S = 0.35
INPUT_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")


def write_shapes(out: Path, packages: int, games: int) -> dict[str, Path]:
    """The corpus in each shape, under ``out`` (generated once)."""
    dirs = {shape: out / shape for shape in SHAPES}
    if all(d.is_dir() for d in dirs.values()):
        return dirs
    source = out / "generated"
    if not source.is_dir():
        subprocess.run([*QUIZKIT, "samples", "generate", "--packages", str(packages),
                        "--seed", "1", "--out", str(source)], check=True,
                       stdout=subprocess.DEVNULL)
    docs = [orjson.loads(p.read_bytes()) for p in
            sorted((source / "packages").glob("*.json"))[:packages]
            + sorted((source / "games").glob("*.json"))[:games]]
    for shape, folder in dirs.items():
        folder.mkdir(parents=True, exist_ok=True)
        for i, doc in enumerate(docs):
            if shape == "indented":
                (folder / f"{i:04d}.json").write_bytes(orjson.dumps(doc,
                                                                    option=orjson.OPT_INDENT_2))
            elif shape == "compact":
                (folder / f"{i:04d}.json").write_bytes(orjson.dumps(doc))
            else:
                (folder / f"{i:04d}.jsonl").write_bytes(orjson.dumps(doc) + b"\n")
    return dirs


def _inputs(folder: Path) -> list[Path]:
    """The files under ``folder`` that ``validate`` checks."""
    return [p for p in folder.rglob("*") if p.is_file() and p.name.endswith(INPUT_SUFFIXES)]


def measure(args: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall s, CPU s of the process and its children, exit code) of one run."""
    env = {**installed_env(), "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.Popen([*QUIZKIT, *args], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", type=int, default=600)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None, help="--jobs of every run "
                        "(default: quizkit's own, every core)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "cache",
                        help="where the corpus is written (and kept for the next run)")
    parser.add_argument("--inputs", type=Path, action="append", default=[],
                        help="a directory to time instead of the generated shapes")
    args = parser.parse_args()
    dirs = {p.name: p.resolve() for p in args.inputs} if args.inputs else \
        write_shapes(args.out, args.packages, args.games)
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    best: dict[tuple[str, str], tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        one = min(_inputs(next(iter(dirs.values()))))
        measure(["validate", "-q", "--no-cache", str(one)], work)  # bytecode written
        for _ in range(args.repeat):
            for shape, folder in dirs.items():
                cache = work / "cache"
                shutil.rmtree(cache, ignore_errors=True)
                command = ["validate", "-q", *jobs, "--cache-dir", str(cache), str(folder)]
                plain = ["validate", "-q", *jobs, "--no-cache", str(folder)]
                runs = {"no-cache": measure(plain, work),
                        "cold": measure(command, work), "warm": measure(command, work),
                        "start-up": measure(["validate", "-q", "--no-cache", str(one)], work)}
                for name, (wall, cpu, code) in runs.items():
                    if code not in (0, 1):
                        sys.exit(f"{shape} {name}: exit code {code}")
                    old = best.get((shape, name), (float("inf"), float("inf")))
                    best[shape, name] = (min(old[0], wall), min(old[1], cpu))
    counts = []
    for shape, folder in dirs.items():
        inputs = _inputs(folder)
        size = sum(p.stat().st_size for p in inputs) / 1e6
        counts.append(f"{shape}: {len(inputs)} files, {size:.0f} MB")
    print(f"{'; '.join(counts)}; best of {args.repeat}, "
          f"load average {os.getloadavg()[0]:.2f}, jobs {args.jobs or 'default'}")
    print(f"{'shape':<10}{'no-cache s':>11}{'cold s':>8}{'warm s':>8}{'cold/no':>8}"
          f"{'warm/cold':>10}{'start-up s':>11}{'no-cache CPU':>13}{'cold CPU':>9}"
          f"{'warm CPU':>9}{'start-up CPU':>13}  target")
    for shape in dirs:
        plain, plain_cpu = best[shape, "no-cache"]
        (cold, cold_cpu), (warm, warm_cpu) = best[shape, "cold"], best[shape, "warm"]
        startup, startup_cpu = best[shape, "start-up"]
        bound = max(TARGET_RATIO * cold, TARGET_FLOOR_S)
        verdict = "met" if warm <= bound else f"missed (<= {bound:.2f} s)"
        print(f"{shape:<10}{plain:>11.2f}{cold:>8.2f}{warm:>8.2f}{cold / plain:>8.3f}"
              f"{warm / cold:>10.3f}{startup:>11.2f}{plain_cpu:>13.2f}{cold_cpu:>9.2f}"
              f"{warm_cpu:>9.2f}{startup_cpu:>13.2f}  {verdict}")

if __name__ == "__main__":
    main()
