"""Time the pages: the HTML findings report of a run with many findings, and summary pages.

Writes N findings' worth of exports (files of unknown fields, one warning each), runs
``quizkit validate`` with ``--format json`` and with ``--format html``, opens the page in
Debian's headless Chromium (the tests' browser), and prints the page's size and how long it
took to show (first contentful paint, the list drawn, the load event) and to filter; then
times ``summary all --format html`` and ``summary charts`` on a generated corpus.

    python benchmarks/bench_pages.py                     # 100,000 findings, 200 packages
    python benchmarks/bench_pages.py --findings 20000 --packages 50
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser import chromium  # noqa: E402 (the repository's root is on the path now)

OUT = ROOT / "benchmarks" / "out"
FILES = 4


def timed(*args: str) -> tuple[float, float]:
    """Wall and CPU seconds of one quizkit command (a child process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "quizkit", *args], capture_output=True,
                          text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"quizkit {' '.join(args)} failed: {proc.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def corpus_of_findings(n: int) -> Path:
    where = OUT / f"pages-{n}"
    if where.exists():
        return where
    where.mkdir(parents=True)
    base = json.loads((ROOT / "samples" / "banner-create.json").read_text())
    per = n // FILES
    for i in range(FILES):
        doc = {**base, **{f"extra{k}": k for k in range(per)}}
        (where / f"many{i}.json").write_text(json.dumps(doc, indent=2))
    return where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--findings", type=int, default=100_000)
    parser.add_argument("--packages", type=int, default=200)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)

    inputs = corpus_of_findings(args.findings)
    report_json, report_html = OUT / "pages-report.json", OUT / "pages-report.html"
    print(f"validate, {args.findings:,} findings in {FILES} files (jobs 1):")
    for fmt, target in (("json", report_json), ("html", report_html)):
        wall, cpu = timed("validate", str(inputs), "-q", "--jobs", "1", "--format", fmt,
                          "-o", str(target))
        print(f"  --format {fmt:<5} {wall:6.2f} s wall  {cpu:6.2f} s CPU  "
              f"{target.stat().st_size / 1e6:6.1f} MB")

    with chromium() as browser:
        started = time.perf_counter()
        page = browser.open(report_html)
        opened = time.perf_counter() - started
        shown = int(page.js("return document.getElementById('shown').dataset.value"))
        drawn = page.js("return document.querySelectorAll('#finding-list .finding').length")
        timing = page.js("""
            const nav = performance.getEntriesByType('navigation')[0];
            const paint = performance.getEntriesByName('first-contentful-paint')[0];
            return {paint: paint ? paint.startTime : null, ready: nav.domContentLoadedEventEnd,
                    load: nav.loadEventEnd};""")
        filter_ms = page.js("""
            const box = document.querySelector('.sev-filter[value="2"]');
            const t = performance.now();
            box.click();
            return performance.now() - t;""")
        paint = f"{timing['paint'] / 1000:.2f} s" if timing["paint"] is not None else "n/a"
        print(f"Chromium, the page of {shown:,} findings "
              f"({report_html.stat().st_size / 1e6:.1f} MB), {drawn} drawn:")
        for label, value in (
                ("first contentful paint (the header)", paint),
                ("first 100 findings drawn (DOMContentLoaded)", f"{timing['ready'] / 1000:.2f} s"),
                ("load event", f"{timing['load'] / 1000:.2f} s"),
                ("open, as selenium waits for it", f"{opened:.2f} s"),
                ("a severity filter over all findings", f"{filter_ms:.0f} ms")):
            print(f"  {label:<44} {value:>8}")

    corpus = OUT / f"pages-corpus-p{args.packages}"
    if not corpus.exists():
        timed("samples", "generate", "--packages", str(args.packages), "--seed", "1",
              "--out", str(corpus))
    db = OUT / f"pages-p{args.packages}.duckdb"
    if not db.exists():
        timed("load", str(corpus), "--db", str(db), "-q")
    print(f"summary, {args.packages} packages:")
    for label, cmd in (
            ("all --format json", ["summary", "all", "--db", str(db), "--format", "json",
                                   "-o", str(OUT / "pages-summary.json")]),
            ("all --format html", ["summary", "all", "--db", str(db), "--format", "html",
                                   "-o", str(OUT / "pages-summary.html")]),
            ("charts (SVG + PNG)", ["summary", "charts", "--db", str(db), "--out",
                                    str(OUT / "pages-charts")])):
        wall, cpu = timed(*cmd)
        print(f"  {label:<20} {wall:6.2f} s wall  {cpu:6.2f} s CPU")
    shutil.rmtree(OUT / "pages-charts", ignore_errors=True)
    print(f"(machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
