"""``quizkit validate`` on one corpus in every shape an export comes in, in one run.

    python benchmarks/bench_shapes.py                   # 880 packages: >= 100 MB per shape
    python benchmarks/bench_shapes.py --packages 100 --repeat 1

The corpus (``quizkit samples generate --shape``) is written three times: compact files,
indented files (each > 100 MB at 880 packages) and one JSON Lines file of every document.
Each round runs, interleaved, for every shape the orjson floor (read + parse, one core, in
this process) and ``quizkit validate --jobs 1``; then ajv-cli and sourcemeta ``jsonschema
validate`` over quizkit's exported schemas on the compact files, ``--jobs 2`` on the compact
files, ``--jobs 2`` on the one JSON Lines file (split between the workers), and a warm-cache
re-run when ``validate`` has ``--cache-dir``, on these files and on a dump of about 800
compact files (``--dump-packages``), as the target names it. Every figure is the best of
``--repeat`` rounds; ratios are of figures measured in the same run, in wall time and in
CPU time (which a loaded machine moves much less: the load average is printed). Programs run
as installed, with their byte-compiled modules kept.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_validate import (  # noqa: E402 - a sibling script, not a package
    AJV,
    MB,
    OUT,
    ROOT,
    SCHEMAS,
    Run,
    ajv_run,
    best_of,
    by_kind,
    documents,
    floor,
    quizkit_exe,
)

SHAPES = ("compact", "indented", "lines")
#: (target, figure, factor, figure it applies to)
TARGETS = (
    ("compact >= 0.40x the orjson floor, one core", "jobs1-compact", 0.40, "floor-compact"),
    ("indented >= 0.40x the orjson floor, one core", "jobs1-indented", 0.40, "floor-indented"),
    ("JSON Lines >= 0.40x the orjson floor, one core", "jobs1-lines", 0.40, "floor-lines"),
    ("compact >= 1.3x ajv-cli", "jobs1-compact", 1.3, "ajv"),
    ("one JSON Lines file: --jobs 2 >= 1.7x --jobs 1", "jobs2-lines", 1.7, "jobs1-lines"),
)


def generated(target: Path, packages: int, seed: int, shape: str) -> Path:
    """The corpus at ``target``, generated once (the generator is deterministic)."""
    from quizkit.generate import MANIFEST, generate_corpus

    if not (target / MANIFEST).exists():
        print(f"generating {target} ...", flush=True)
        generate_corpus(target, packages=packages, seed=seed, shape=shape, overwrite=True)
    return target


def corpora(packages: int, seed: int) -> dict[str, Path]:
    """The corpus in each shape."""
    root = OUT / f"shapes-p{packages}-s{seed}"
    return {shape: generated(root / shape, packages, seed, shape) for shape in SHAPES}


#: The warm-cache target: a re-run within 10% of the first run's time, or this many
#: seconds with start-up included, whichever is longer.
WARM_SECONDS = 0.35


def dump(packages: int, seed: int) -> Path:
    """The dump of the warm-cache target: compact files, about 800 at 238 packages."""
    return generated(OUT / f"dump-p{packages}-s{seed}", packages, seed, "compact")


def files_of(root: Path) -> list[Path]:
    return [p for p, _kind in documents(root)]


def validate(root: Path, jobs: int, name: str, extra: tuple[str, ...] = ()) -> Run:
    paths = files_of(root)
    # Every run checks every file, but the warm-cache re-run (the cache is on by default).
    cache = list(extra) if extra else ["--no-cache"] if has_cache() else []
    cmd = [quizkit_exe(), "validate", "--jobs", str(jobs), "--format", "json", "-o",
           str(OUT / f"report-{name}.json"), *cache, str(root)]
    return best_of(f"quizkit validate --jobs {jobs} ({name})", [cmd], len(paths),
                   sum(p.stat().st_size for p in paths), 1)


def sourcemeta_run(groups: dict[str, list[Path]]) -> Run | None:
    """sourcemeta ``jsonschema validate`` (exhaustive, formats asserted), one call per kind."""
    spec = importlib.util.find_spec("sourcemeta_jsonschema")
    if spec is None or spec.origin is None:
        return None
    exe = Path(spec.origin).parent / "jsonschema-linux-x86_64"
    if not exe.exists():
        return None
    cmds = [[str(exe), "validate", str(SCHEMAS / "documents" / f"{kind}.json"),
             *map(str, paths), "--resolve", str(SCHEMAS / "records"), "-F"]
            for kind, paths in sorted(groups.items())]
    files = sum(len(v) for v in groups.values())
    size = sum(p.stat().st_size for v in groups.values() for p in v)
    return best_of("sourcemeta jsonschema validate", cmds, files, size, 1,
                   note=f"{len(cmds)} invocations, one per kind")


@functools.cache
def has_cache() -> bool:
    """Whether ``quizkit validate`` has a result cache (``--cache-dir``)."""
    done = subprocess.run([quizkit_exe(), "validate", "--help"], capture_output=True, text=True)
    return "--cache-dir" in done.stdout


def keep_best(best: dict[str, Run], run: Run | None, key: str) -> None:
    if run is not None and (key not in best or run.wall < best[key].wall):
        best[key] = run


def ratio(best: dict[str, Run], a: str, b: str) -> tuple[float, float] | None:
    """(wall ratio, CPU ratio) of speeds: how many times faster ``a`` is than ``b``."""
    if a not in best or b not in best:
        return None
    ra, rb = best[a], best[b]
    wall = (ra.bytes / ra.wall) / (rb.bytes / rb.wall) if ra.wall and rb.wall else 0.0
    cpu = (ra.bytes / ra.cpu) / (rb.bytes / rb.cpu) if ra.cpu and rb.cpu else 0.0
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--packages", type=int, default=880)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dump-packages", type=int, default=238,
                    help="packages of the warm-cache target's dump (238: about 800 files)")
    ap.add_argument("--no-peers", action="store_true", help="skip ajv-cli and sourcemeta")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    roots = corpora(args.packages, args.seed)
    for shape, root in roots.items():
        paths = files_of(root)
        print(f"{shape}: {len(paths)} files, {sum(p.stat().st_size for p in paths) / MB:.1f} MB")
    dump_root = dump(args.dump_packages, args.seed)
    print(f"dump: {len(files_of(dump_root))} files")
    groups = by_kind(documents(roots["compact"]))
    cache = has_cache()
    best: dict[str, Run] = {}
    loads: list[float] = []
    with tempfile.TemporaryDirectory() as cache_dir:
        for round_ in range(args.repeat):
            loads.append(os.getloadavg()[0])
            print(f"round {round_ + 1} (load {loads[-1]:.2f})", flush=True)
            for shape, root in roots.items():
                keep_best(best, floor(files_of(root), 1), f"floor-{shape}")
                keep_best(best, validate(root, 1, f"jobs1-{shape}"), f"jobs1-{shape}")
            if not args.no_peers:
                keep_best(best, ajv_run(groups, 1), "ajv")
                keep_best(best, sourcemeta_run(groups), "sourcemeta")
            keep_best(best, validate(roots["compact"], 2, "jobs2-compact"), "jobs2-compact")
            keep_best(best, validate(roots["lines"], 2, "jobs2-lines"), "jobs2-lines")
            if cache:  # a first run into an empty cache, then the re-run
                for key, root in (("compact", roots["compact"]), ("dump", dump_root)):
                    with tempfile.TemporaryDirectory(dir=cache_dir) as fresh:
                        options = ("--cache-dir", fresh)
                        keep_best(best, validate(root, 1, f"cold-{key}", options),
                                  f"cold-{key}")
                        keep_best(best, validate(root, 1, f"warm-{key}", options),
                                  f"warm-{key}")
    loads.append(os.getloadavg()[0])
    print(f"\nload average {min(loads):.2f}-{max(loads):.2f} on {os.cpu_count()} cores "
          "(wall figures under load are lower bounds)\n")
    print("| run | wall s | MB/s (wall) | CPU s | MB per CPU s |")
    print("|---|---:|---:|---:|---:|")
    for key, run in best.items():
        print(f"| {key}: {run.name} | {run.wall:.2f} | {run.mbps:.1f} | {run.cpu:.2f} | "
              f"{run.cpu_mbps:.1f} |")
    print("\n| ratio | wall | CPU |")
    print("|---|---:|---:|")
    pairs = [(f"{s} --jobs 1 / orjson floor", f"jobs1-{s}", f"floor-{s}") for s in SHAPES]
    pairs += [("compact --jobs 1 / ajv-cli", "jobs1-compact", "ajv"),
              ("compact --jobs 1 / sourcemeta jsonschema", "jobs1-compact", "sourcemeta"),
              ("compact files --jobs 2 / --jobs 1", "jobs2-compact", "jobs1-compact"),
              ("one JSON Lines file --jobs 2 / --jobs 1", "jobs2-lines", "jobs1-lines")]
    for label, a, b in pairs:
        found = ratio(best, a, b)
        shown = f"{found[0]:.2f}x | {found[1]:.2f}x" if found else "n/a | n/a"
        print(f"| {label} | {shown} |")
    warm_targets = []
    for key in ("compact", "dump"):
        if f"warm-{key}" not in best:
            print(f"| warm-cache re-run / first run ({key}) | n/a (no --cache-dir) | |")
            continue
        warm, cold = best[f"warm-{key}"], best[f"cold-{key}"]
        print(f"| warm-cache re-run / first run ({key}, {warm.files} files) | "
              f"{warm.wall / cold.wall:.2f} ({warm.wall:.2f} s) | |")
        allowed = max(0.10 * cold.wall, WARM_SECONDS)
        warm_targets.append((f"warm-cache re-run of {warm.files} unchanged files <= "
                             f"max(10% of the first run, {WARM_SECONDS} s) = {allowed:.2f} s",
                             warm.wall, allowed))
    print()
    for label, seconds, allowed in warm_targets:
        print(f"{'ok' if seconds <= allowed else 'MISS':<9} {label}: {seconds:.2f} s")
    for label, a, factor, b in TARGETS:
        found = ratio(best, a, b)
        if found is None:
            print(f"n/a   {label}")
            continue
        verdict = "ok" if found[0] >= factor else ("ok on CPU" if found[1] >= factor
                                                   else "MISS")
        print(f"{verdict:<9} {label}: {found[0]:.2f}x wall, {found[1]:.2f}x CPU")
    if not AJV.exists():
        print("ajv-cli: not installed (npm install --prefix .tools ajv-cli@5 ajv-formats@3)")
    print(f"\ncommand: python benchmarks/bench_shapes.py --packages {args.packages} "
          f"--seed {args.seed} --repeat {args.repeat} --dump-packages {args.dump_packages}"
          f"   (in {ROOT})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
