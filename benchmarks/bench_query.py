"""Memory and time of ``quizkit query`` on large results, in every output format.

Each run is the installed ``quizkit`` program in a child process, writing a result of N rows
(two columns: a number and a short string, from DuckDB's ``range``) into a pipe that a helper
process drains, so the output really is produced and written. The figures are the child's
peak resident memory (``ru_maxrss``) and its wall time; the best of ``--rounds``.

    python benchmarks/bench_query.py                         # 1,000 and 10,000,000 rows
    python benchmarks/bench_query.py --rows 100000 --rows 1000000 --formats csv,json

Pass ``--quizkit PATH`` to measure another quizkit (a checkout's ``python -m quizkit`` via
``--pythonpath DIR``), for a before/after table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FORMATS = ("csv", "json", "table", "markdown")
SQL = "SELECT range AS n, 'row number ' || range AS s FROM range({rows})"

CHILD = """
import resource, subprocess, sys, time
started = time.perf_counter()
with subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE) as p:
    size = 0
    while chunk := p.stdout.read(1 << 20):
        size += len(chunk)
    err = p.stderr.read()
seconds = time.perf_counter() - started
print(p.returncode, size, seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
      repr(err.decode(errors="replace")[-200:]))
"""


def measure(command: list[str], env: dict[str, str]) -> tuple[int, int, float, int, str]:
    """(exit code, bytes written, seconds, peak RSS in kB, end of stderr) of one run."""
    done = subprocess.run([sys.executable, "-c", CHILD, *command], capture_output=True,
                          text=True, env=env, check=True)
    code, size, seconds, peak, err = done.stdout.split(" ", 4)
    return int(code), int(size), float(seconds), int(peak), err.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, action="append",
                        help="Result sizes (repeatable) [default: 1,000 and 10,000,000].")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--pythonpath", help="Run `python -m quizkit` with this PYTHONPATH "
                        "(another checkout) instead of the installed program.")
    args = parser.parse_args()
    rows_list = args.rows or [1_000, 10_000_000]
    env = dict(os.environ)
    if args.pythonpath:
        env["PYTHONPATH"] = args.pythonpath
        program = [sys.executable, "-m", "quizkit"]
    else:
        found = shutil.which("quizkit")
        if found is None:
            sys.exit("the quizkit program is not on PATH (pip install -e .)")
        program = [found]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "q.duckdb"
        sample = Path(__file__).parent.parent / "samples" / "game.json"
        subprocess.run([*program, "load", str(sample), "--db", str(db), "-q",
                        "--no-findings"], env=env, check=True, cwd=tmp)
        print(f"{'rows':>12}  {'format':<9} {'exit':>4} {'MB out':>8} {'seconds':>8} "
              f"{'peak RSS MB':>11}")
        for rows in rows_list:
            for fmt in args.formats.split(","):
                best = None
                for _ in range(args.rounds):
                    result = measure([*program, "query", SQL.format(rows=rows), "--db",
                                      str(db), "--format", fmt], env)
                    if best is None or result[2] < best[2]:
                        best = result
                code, size, seconds, peak, err = best
                print(f"{rows:>12,}  {fmt:<9} {code:>4} {size / 1e6:>8.1f} {seconds:>8.2f} "
                      f"{peak / 1024:>11.0f}" + (f"  {err}" if code else ""), flush=True)


if __name__ == "__main__":
    main()
