"""Benchmark: repeated ``quizkit.api.validate`` calls in one process, with and without a
shared ``SchemaBook`` (``schemas=api.schema_book()``).

    python benchmarks/bench_api_calls.py                # 30 calls of each kind
    python benchmarks/bench_api_calls.py --calls 100

Without a book each call compiles the schemas it uses (every run has its own book, nothing is
kept between calls); with one, only the first call does. Three inputs: one valid banner (the
fast validator only), one invalid package (the reference engine and the explainer too), and
the samples directory. Printed: the CPU milliseconds of the first call and the median of the
following ones, per input and way, in this process (``time.process_time``).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INPUTS = {
    "one valid banner": [str(ROOT / "samples" / "banner.json")],
    "one invalid package": [str(ROOT / "samples" / "invalid" / "package-round-without-type.json")],
    "samples/ (valid)": [str(p) for p in sorted((ROOT / "samples").glob("*.json*"))],
}


def calls(paths: list[str], n: int, shared: bool) -> tuple[float, float]:
    """CPU ms of the first call and the median of the next ``n - 1``."""
    from quizkit import api

    book = api.schema_book() if shared else None
    spent = []
    for _ in range(n):
        start = time.process_time()
        api.validate(paths, jobs=1, schemas=book)
        spent.append((time.process_time() - start) * 1000)
    return spent[0], statistics.median(spent[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=30)
    args = parser.parse_args()
    from quizkit import api

    api.validate(INPUTS["one invalid package"], jobs=1)  # imports (python-jsonschema too)
    print(f"{'input':24s} {'schemas':18s} {'first call':>11s} {'next calls (median)':>20s}")
    for label, paths in INPUTS.items():
        for shared in (False, True):
            first, median = calls(paths, args.calls, shared)
            way = "schema_book()" if shared else "none (per call)"
            print(f"{label:24s} {way:18s} {first:9.1f} ms {median:17.1f} ms")


if __name__ == "__main__":
    main()
