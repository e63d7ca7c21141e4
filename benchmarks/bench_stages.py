"""Instructions per MB of each stage of ``quizkit validate``, counted by valgrind (callgrind).

Wall-clock and CPU figures move with the machine's load; instruction counts do not (the same
binary on the same input counts the same, whatever else runs). This script counts, on a
subset of a corpus, the instructions of each cumulative stage of the pipeline:

- ``floor``: read + ``orjson.loads`` (the floor of the speed targets);
- ``write-back``: read + ``quizkit.inputs.intake.parse_text`` (parse, then orjson writes the value
  back and one comparison proves no duplicate key or big integer was dropped);
- ``schema``: read + ``orjson.loads`` + kind + jsonschema-rs ``is_valid`` (no write-back);
- ``fixed``: read + ``parse_text`` + kind + ``is_valid``: what every document costs before a
  structural check runs;
- ``validate``: ``quizkit.checks.engine.run`` (every check, findings, facts, batch
  checks), in process.

Three more stages split ``validate`` for the rules' budget (each is
``engine.run`` with part of the registry; not cumulative with each other):

- ``engine``: no rule, findings check, fact collector or batch check: the engine's own work
  per document on top of ``fixed`` (the version index, positions, bookkeeping);
- ``rules``: the rules and findings checks, no facts;
- ``facts``: the fact collectors (content digests) and batch checks, no rules.

Each stage runs once and three times under callgrind; the difference, halved, is one pass
without start-up, imports or schema compilation. Ratios to ``floor`` translate to the
"× floor" speed targets directly (a stage at 2× the floor's instructions can reach at most
0.5× the floor's speed, if instructions were all; cache misses make real runs slower still).

    python benchmarks/bench_stages.py                 # the default corpus, every 6th file
    python benchmarks/bench_stages.py --corpus DIR --every 1
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT / "benchmarks" / "out" / "corpus-p500-s1-b0.0"
STAGES = ("floor", "write-back", "schema", "fixed", "engine", "rules", "facts", "validate")
#: The roles of the registry each split stage keeps.
PARTS = {"engine": (), "rules": ("rule", "findings"), "facts": ("facts",)}


def _paths(corpus: Path, every: int) -> list[str]:
    found = sorted(str(p) for p in corpus.rglob("*") if p.is_file()
                   and p.name.endswith((".json", ".jsonl", ".json.gz", ".jsonl.gz")))
    return found[::every]


def stage_pass(name: str, sources: list, schemas: Any) -> None:
    """One pass of stage ``name`` over ``sources`` (:class:`quizkit.inputs.sources.Source`), in this
    process, with ``schemas`` (a :class:`quizkit.model.schemas.SchemaBook`, compiled beforehand:
    ``warm``)."""
    import orjson

    from quizkit.checks import engine
    from quizkit.inputs import intake
    from quizkit.model.kinds import detect_kind

    if name == "validate":
        engine.run(sources, jobs=1, schemas=schemas)
        return
    if name in PARTS:
        # the child set engine.REGISTRY to the part (_stage)
        engine.run(sources, jobs=1, schemas=schemas)
        return
    for source in sources:
        data = source.read()
        chunks = [c for c in data.split(b"\n") if c.strip()] if source.is_lines else [data]
        for chunk in chunks:
            if name in ("floor", "schema"):
                try:
                    doc = orjson.loads(chunk)
                except orjson.JSONDecodeError:
                    continue
            else:
                doc, _problems, _indented = intake.parse_text(chunk)
                if doc is intake.UNREAD:
                    continue
            if name in ("schema", "fixed"):
                kind = detect_kind(doc)
                if kind is not None:
                    schemas.validator(kind).is_valid(doc)


def _stage(name: str, paths: list[str], passes: int) -> None:
    """Run one stage ``passes`` times, in this process (the child under valgrind)."""
    from quizkit.inputs.sources import Source
    from quizkit.model.schemas import SchemaBook

    schemas = SchemaBook().warm()
    if name in PARTS:
        _keep_only(PARTS[name])
    sources = [Source(p) for p in paths]
    for _ in range(passes):
        stage_pass(name, sources, schemas)


def _keep_only(roles: tuple[str, ...]) -> None:
    """In this (child) process only: the engine runs with the checks of ``roles`` alone."""
    import dataclasses

    from quizkit.checks import engine, one_input

    full = engine.REGISTRY
    kept = dataclasses.replace(
        full, by_kind={k: v for k, v in full.by_kind.items() if k[0] in roles},
        batch=full.batch if "facts" in roles else ())
    engine.REGISTRY = one_input.REGISTRY = kept  # the batch checks' and the documents'


def _count(name: str, corpus: Path, every: int, passes: int) -> int:
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
           sys.executable, __file__, "--child", name, "--passes", str(passes),
           "--corpus", str(corpus), "--every", str(every)]
    # One hash seed for every child: dictionaries' layout (and so the count) then depends on
    # the code and the input only; with random seeds counts spread by about 1 %.
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stderr
    match = re.search(r"refs:\s+([\d,]+)", out)
    if match is None:
        raise SystemExit(f"no instruction count from valgrind:\n{out}")
    return int(match.group(1).replace(",", ""))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS),
                    help="a corpus directory (default: the validation benchmark's 500-package "
                         "corpus; make it with bench_validate.py --packages 500)")
    ap.add_argument("--every", type=int, default=6, help="count every n-th file (default 6)")
    ap.add_argument("--stages", nargs="*", default=list(STAGES), choices=STAGES)
    ap.add_argument("--child", choices=STAGES, help=argparse.SUPPRESS)
    ap.add_argument("--passes", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    corpus = Path(args.corpus)
    paths = _paths(corpus, args.every)
    if args.child:
        _stage(args.child, paths, args.passes)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: apt-get install valgrind", file=sys.stderr)
        return 2
    if not paths:
        print(f"no .json files under {corpus}", file=sys.stderr)
        return 2
    mb = sum(os.path.getsize(p) for p in paths) / 1e6
    print(f"corpus {corpus}: {len(paths)} files (every {args.every}th), {mb:.1f} MB")
    print(f"{'stage':<12} {'M instr':>9} {'M instr/MB':>11} {'x floor':>8} "
          f"{'max x floor speed':>18}")
    floor = None
    for name in args.stages:
        one = (_count(name, corpus, args.every, 3) - _count(name, corpus, args.every, 1)) // 2
        if name == "floor":
            floor = one
        ratio = one / floor if floor else float("nan")
        print(f"{name:<12} {one / 1e6:>9.0f} {one / 1e6 / mb:>11.1f} {ratio:>8.2f} "
              f"{1 / ratio if ratio else float('nan'):>18.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
