"""``quizkit check`` with ten team checks against ``quizkit validate`` alone, on one corpus
written in every shape (indented files, compact files, one JSON Lines file).

Each shape is generated with ``quizkit samples generate --shape``; both commands run with
``--no-cache`` and the same config file (``validate`` ignores its ``[[checks]]``), as real
processes, interleaved, ``--repeat`` times; the best wall time of each is kept. The target:
``check`` at most 1.20 times ``validate``. Peak memory, in one more run of each (reading
``/proc`` slows the run it watches): the most the process and its descendants (workers,
``check``'s loading process) held at once, each process's proportional set size (PSS: a page
shared by forked processes counted once in all) summed every 20 ms (Linux).

    python benchmarks/bench_checks.py                  # 300 packages, 3 rounds
    python benchmarks/bench_checks.py --packages 2000 --repeat 2
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_validate import installed_env, tree_pss_kb  # a sibling script, not a package

QUIZKIT = str(Path(sys.executable).with_name("quizkit"))
TARGET = 1.20
SHAPES = ("indented", "compact", "lines")

#: Ten checks as a team would write them: sql checks and metrics over several tables.
CHECKS = '''
[[checks]]
code = "X001"
name = "video-over-limit"
sql = "select id, size_video, file, record, pointer from packages where size_video > 1e8"
[[checks]]
code = "X002"
name = "empty-description"
severity = "info"
sql = "select id, file, record, pointer from packages where coalesce(trim(description), '') = ''"
[[checks]]
code = "X003"
name = "starts-without-games"
severity = "warning"
sql = """select p.id, p.file, p.record, p.pointer from packages p
  where p.starts > 0 and not exists (select 1 from games g where g.package_id = p.id)"""
[[checks]]
code = "X004"
name = "game-of-deleted-package"
sql = """select g.id, g.file, g.record, g.pointer from games g
  join packages p on p.id = g.package_id where p.deleted"""
[[checks]]
code = "X005"
name = "long-question-text"
severity = "info"
sql = "select id, file, record, pointer from steps where text_length > 2000"
[[checks]]
code = "X006"
name = "share-without-description"
metric = "select coalesce(avg((coalesce(trim(description), '') = '')::int), 0) from packages"
warn-if = "> 0.02"
[[checks]]
code = "X007"
name = "package-count"
metric = "select count(*) from packages"
warn-if = "< 10"
[[checks]]
code = "X008"
name = "questions-per-version"
metric = "select coalesce(avg(n_questions), 0) from versions"
warn-if = "< 5"
[[checks]]
code = "X009"
name = "open-games"
metric = "select count(*) from games where status = 'open'"
warn-if = "> 1e6"
[[checks]]
code = "X010"
name = "corpus-size"
metric = "select coalesce(sum(size_total), 0) from packages"
error-if = "> 1e13"
'''


def timed(args: list[str], cwd: Path) -> float:
    """Wall seconds of one run."""
    start = time.perf_counter()
    done = subprocess.run([QUIZKIT, *args], cwd=cwd, capture_output=True, env=installed_env())
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)}: exit {done.returncode}\n{done.stderr.decode()}")
    return seconds


def peak_memory(args: list[str], cwd: Path) -> int:
    """The most one run's process tree held at once (bytes, PSS)."""
    process = subprocess.Popen([QUIZKIT, *args], cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=installed_env())
    peak = 0
    while process.poll() is None:
        peak = max(peak, tree_pss_kb(process.pid) * 1024)
        time.sleep(0.02)
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-checks-"))
    try:
        config = work / "quizkit.toml"
        config.write_text(CHECKS)
        rows = []
        for shape in SHAPES:
            corpus = work / shape
            subprocess.run([QUIZKIT, "samples", "generate", "--packages", str(args.packages),
                            "--seed", str(args.seed), "--shape", shape, "--out", str(corpus)],
                           check=True, capture_output=True)
            size = sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file())
            common = ["--no-cache", "--config", str(config), "--format", "json", "-o",
                      str(work / "report.json"), str(corpus)]
            best = {"validate": float("inf"), "check": float("inf")}
            for _ in range(args.repeat):
                for command in best:
                    best[command] = min(best[command], timed([command, *common], work))
            peak = {command: peak_memory([command, *common], work) for command in best}
            ratio = best["check"] / best["validate"]
            rows.append((shape, size, best["validate"], best["check"], ratio,
                         peak["validate"], peak["check"]))
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        print(f"{args.packages} packages, ten checks, best of {args.repeat}")
        print(f"{'shape':<9} {'MB':>7} {'validate s':>11} {'check s':>9} {'ratio':>6}  "
              f"{'target':<12} {'peak MB (PSS) validate / check':>30}")
        for shape, size, validate, check, ratio, v_rss, c_rss in rows:
            verdict = "ok" if ratio <= TARGET else "MISS"
            print(f"{shape:<9} {size / 1e6:>7.1f} {validate:>11.2f} {check:>9.2f} "
                  f"{ratio:>6.2f}  <= {TARGET:.2f} {verdict:<4} "
                  f"{v_rss / 1e6:>21.0f} / {c_rss / 1e6:.0f}")
        print(f"CPU of all runs: {cpu.ru_utime + cpu.ru_stime:.1f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
