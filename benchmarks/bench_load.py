"""Benchmark: `quizkit load` + summaries against a bare DuckDB read_json over the same files.

    python benchmarks/bench_load.py                      # generate 2,000 packages, then measure
    python benchmarks/bench_load.py --corpus DIR         # measure an existing corpus
    python benchmarks/bench_load.py --findings           # also load with the findings table

Every measurement runs in a fresh subprocess (so peak RSS is that step's own, read with
``resource.getrusage``), after one warm-up pass over the files (so all see a warm page cache),
``--repeat`` times interleaved; the best time is reported. Measured:

* ``bare count``: ``SELECT count(*) FROM read_json(files)``, DuckDB parsing every file.
* ``bare table``: ``CREATE TABLE AS SELECT * FROM read_json(files)`` with DuckDB's own schema
  detection: the plain way to get the JSON into DuckDB, and the peer of the target (load +
  summary within 2x of this). Note what it does: without ``union_by_name`` DuckDB takes the
  schema of the first file (a banner: 8 top-level fields), so it parses every document but
  keeps little; it is close to a parse-only floor, not a typed copy of the corpus.
  (``union_by_name=true``, the typed copy, runs out of memory on this corpus: DuckDB sizes a
  schema-detection buffer per file.)
* ``bare per kind``: one ``CREATE TABLE AS SELECT * FROM read_json('DIR/*.json')`` per
  top-level directory of the corpus (packages, games, ...), each with its detected nested
  schema: every document typed in full, the closest bare peer to what the loader does (it
  relies on the generated corpus keeping one kind per directory).
* ``python detect``: orjson-parse every document and run ``quizkit.model.kinds.detect_kind``, what
  kind detection would cost if done in Python (the loader does it inside the DuckDB scan).
* ``load``: ``quizkit.analysis.load`` into a new database file, ``--no-findings``.
* ``summary``: sizes, starts and overview on that database.
* ``load+findings``: the load with validation findings (``--findings``).
* ``baseline load`` / ``baseline summary`` (``--baseline DIR``): the same two steps with the
  ``quizkit`` package found in DIR (e.g. ``git worktree add DIR main``), interleaved with the
  others in every round, so that a change is compared with its base in the same run.

The machine's load average is printed with every round: on a shared machine, compare the
ratios of the same round rather than times from different runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent

PRELUDE = """
import json, os, resource, sys, time
if os.environ.get("QK_BASELINE"):
    sys.path.insert(0, os.environ["QK_BASELINE"])
from quizkit.analysis.load_inputs import list_inputs
files = [i.name for i in list_inputs([sys.argv[1]]).inputs]
files = files[0] if isinstance(files, tuple) else files  # (files, skipped, unmatched) now
out = sys.argv[2]
t0 = time.perf_counter()
"""
EPILOGUE = """
seconds = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "rss": rss, **extra}))
"""

STEPS = {
    "bare count": """
import duckdb
con = duckdb.connect(config={"autoinstall_known_extensions": False})
n = con.execute("SELECT count(*) FROM read_json($f)", {"f": files}).fetchall()[0][0]
extra = {"rows": n}
""",
    "bare table": """
import duckdb
con = duckdb.connect(out + "/bare.duckdb", config={"autoinstall_known_extensions": False})
con.execute("CREATE OR REPLACE TABLE bare AS SELECT * FROM read_json($f)", {"f": files}).fetchall()
con.close()
extra = {}
""",
    "bare per kind": """
import duckdb, os
con = duckdb.connect(out + "/kinds.duckdb", config={"autoinstall_known_extensions": False})
dirs = sorted({os.path.dirname(f) for f in files})
for i, d in enumerate(dirs):
    con.execute(f"CREATE OR REPLACE TABLE t{i} AS SELECT * FROM read_json($f)",
                {"f": [f for f in files if os.path.dirname(f) == d]}).fetchall()
con.close()
extra = {"tables": len(dirs)}
""",
    "python detect": """
import gzip, orjson
from quizkit.model.kinds import detect_kind
kinds = {}
for f in files:
    data = open(f, "rb").read()
    if f.endswith(".gz"):
        data = gzip.decompress(data)
    if f.endswith((".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")):
        docs = [orjson.loads(x) for x in data.splitlines() if x.strip()]
    else:
        try:
            docs = [orjson.loads(data)]
        except orjson.JSONDecodeError:
            docs = []
    for d in docs:
        k = detect_kind(d)
        kinds[k] = kinds.get(k, 0) + 1
extra = {}
""",
    "load": """
import os
from quizkit.analysis import load_paths
db = out + "/load" + os.environ.get("QK_DB_SUFFIX", "") + ".duckdb"
for p in (db, db + ".wal"):
    if os.path.exists(p):
        os.remove(p)
r = load_paths(db, [sys.argv[1]], findings=False)
extra = {"rows": r.rows, "timings": r.timings}
""",
    "summary": """
import os
from quizkit.analysis import connect, summaries
con = connect(out + "/load" + os.environ.get("QK_DB_SUFFIX", "") + ".duckdb", read_only=True)
for fn in (summaries.sizes, summaries.starts, summaries.overview):
    fn(con)
con.close()
extra = {}
""",
    "load+findings": """
import os
from quizkit.analysis import load_paths
db = out + "/findings.duckdb"
for p in (db, db + ".wal"):
    if os.path.exists(p):
        os.remove(p)
r = load_paths(db, [sys.argv[1]], findings=True)
extra = {"rows": r.rows, "findings": r.findings, "timings": r.timings}
""",
}


def run_step(name: str, corpus: Path, work: Path, baseline: Path | None = None) -> dict:
    env = dict(os.environ)
    if name.startswith("baseline "):
        assert baseline is not None
        name = name.removeprefix("baseline ")
        env.update(QK_BASELINE=str(baseline.resolve()), QK_DB_SUFFIX="-baseline")
    code = PRELUDE + textwrap.dedent(STEPS[name]) + EPILOGUE
    proc = subprocess.run([sys.executable, "-c", code, str(corpus), str(work)],
                          capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"{name} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def corpus_bytes(corpus: Path) -> int:
    from quizkit.analysis.load_inputs import list_inputs

    return sum(os.path.getsize(f) for f in [i.name for i in list_inputs([corpus]).inputs])


def warm(corpus: Path) -> None:
    from quizkit.analysis.load_inputs import list_inputs

    for f in [i.name for i in list_inputs([corpus]).inputs]:
        with open(f, "rb") as fh:
            while fh.read(1 << 20):
                pass


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, help="measure this corpus instead of generating")
    ap.add_argument("--packages", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=HERE / "out",
                    help="where to generate the corpus and write databases")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--findings", action="store_true", help="also load with findings")
    ap.add_argument("--baseline", type=Path, metavar="DIR",
                    help="also measure load and summary with the quizkit package in DIR")
    args = ap.parse_args()
    if args.baseline is not None and not (args.baseline / "quizkit" / "__init__.py").exists():
        ap.error(f"no quizkit package in {args.baseline}")

    args.out.mkdir(parents=True, exist_ok=True)
    corpus = args.corpus
    if corpus is None:
        corpus = args.out / f"corpus-{args.packages}-{args.seed}"
        if not (corpus / "corpus-manifest.json.txt").exists():
            from quizkit.generate import generate_corpus

            print(f"generating {args.packages} packages into {corpus} ...", flush=True)
            generate_corpus(corpus, packages=args.packages, seed=args.seed, overwrite=True)
    size = corpus_bytes(corpus)
    print(f"corpus {corpus}: {size / 1e6:.1f} MB, cpus {os.cpu_count()}", flush=True)
    warm(corpus)

    names = ["bare count", "bare table", "bare per kind", "python detect", "load", "summary"]
    if args.baseline is not None:
        names += ["baseline load", "baseline summary"]
    results: dict[str, list[dict]] = {n: [] for n in names}
    work = Path(tempfile.mkdtemp(prefix="qk-bench-", dir=args.out))
    try:
        for i in range(args.repeat):
            before = os.getloadavg()[0]
            for name in names:
                results[name].append(run_step(name, corpus, work, args.baseline))
            line = ", ".join(f"{n} {results[n][-1]['seconds']:.2f}s" for n in names)
            print(f"round {i + 1} (load average {before:.2f} -> {os.getloadavg()[0]:.2f}): "
                  f"{line}", flush=True)
        if args.findings:
            results["load+findings"] = [run_step("load+findings", corpus, work)]
    finally:
        shutil.rmtree(work, ignore_errors=True)

    best = {n: min(r, key=lambda x: x["seconds"]) for n, r in results.items()}
    print(f"\n{'step':<16}{'best s':>9}{'MB/s':>9}{'peak RSS MB':>13}")
    for name, r in best.items():
        print(f"{name:<16}{r['seconds']:>9.2f}{size / 1e6 / r['seconds']:>9.1f}"
              f"{r['rss'] / 1e6:>13.0f}")
    total = best["load"]["seconds"] + best["summary"]["seconds"]
    bare = best["bare table"]["seconds"]
    print(f"\nload + summary: {total:.2f} s ({size / 1e6 / total:.1f} MB/s)")
    print(f"ratio to bare read_json table: {total / bare:.2f}x (target <= 2)")
    print(f"ratio to bare read_json count: {total / best['bare count']['seconds']:.2f}x")
    print(f"ratio to bare read_json per kind: "
          f"{total / best['bare per kind']['seconds']:.2f}x")
    same_run = [(lo["seconds"] + su["seconds"]) / bt["seconds"] for lo, su, bt in
                zip(results["load"], results["summary"], results["bare table"], strict=True)]
    print("ratio to bare table, each round: " + ", ".join(f"{r:.2f}x" for r in same_run))
    if args.baseline is not None:
        base = best["baseline load"]["seconds"] + best["baseline summary"]["seconds"]
        print(f"baseline load + summary: {base:.2f} s, ratio to bare read_json table: "
              f"{base / bare:.2f}x")
        rounds = [(lo["seconds"] + su["seconds"]) / bt["seconds"] for lo, su, bt in
                  zip(results["baseline load"], results["baseline summary"],
                      results["bare table"], strict=True)]
        print("baseline ratio to bare table, each round: "
              + ", ".join(f"{r:.2f}x" for r in rounds))
    if "load+findings" in best:
        f = best["load+findings"]
        print(f"load with findings: {f['seconds']:.2f} s ({f['findings']} findings), "
              f"{f['seconds'] / best['load']['seconds']:.1f}x the load without")
    steps = sorted(best["load"]["timings"].items(), key=lambda kv: -kv[1])[:6]
    print("slowest load steps: " + ", ".join(f"{k} {v:.2f}s" for k, v in steps))
    print(f"rows: {best['load']['rows']}")


if __name__ == "__main__":
    main()
