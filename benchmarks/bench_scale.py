"""Benchmark: bounded-memory load at 1x and 4x a corpus, and validate/load on a Dask cluster.

    python benchmarks/bench_scale.py                     # 8,000 packages, --broken 0.02
    python benchmarks/bench_scale.py --packages 1000     # a smaller corpus (say so with figures)
    python benchmarks/bench_scale.py --corpus DIR        # an existing corpus
    python benchmarks/bench_scale.py --skip-memory       # only the cluster figures
    python benchmarks/bench_scale.py --baseline DIR --skip-cluster
                                                         # loads before (DIR) and after

Every figure comes from the real ``quizkit`` in a child process:

* **Peak RSS and time** of ``quizkit load CORPUS --db NEW -q`` (with and without
  ``--no-findings``) on the corpus and on 4x the corpus (four directories of hard links to it:
  the same documents four times, so every record has three duplicates to resolve; no extra
  disk). The RSS is the largest resident set of the process tree (the load or one of its
  validation workers), from ``os.wait4`` (what ``/usr/bin/time -v`` prints as "Maximum
  resident set size"). With ``--baseline DIR`` (e.g. ``git archive REV | tar -x -C DIR``) the
  same loads run with the ``quizkit`` package of DIR too, interleaved with this tree's
  (before, after), so both come from the same minutes; ``4x/1x`` says how time grows.
* **Cluster time**: a ``dask scheduler`` and ``dask worker --nthreads 1`` processes started on
  127.0.0.1, first with 2 workers, then with 1; ``quizkit validate --scheduler`` and
  ``quizkit load --scheduler --parquet`` timed on each, next to local ``validate --jobs 2``
  and ``load --parquet`` (best of ``--repeat``). Ratios: 2 workers against 1 (target >= 1.7x)
  and against the local run (overhead <= 15%). Each time comes with the CPU seconds of the
  run: the command's and its children's, plus, on a cluster, the scheduler's, the nannies'
  and the workers' during the run (steadier than the time on a shared machine), and, on a
  cluster, the largest peak RSS of one worker process over the runs of that command (Linux:
  ``VmHWM``, reset through ``/proc/PID/clear_refs`` before them).

The machine's load average is printed with each figure: on a shared machine compare figures of
the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
QUIZKIT = str(BIN / "quizkit")

def load_avg() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def peak_rss(args: list[str], env: dict[str, str] | None = None
             ) -> tuple[int, int, float, float]:
    """(exit code, peak RSS of the process tree in bytes, seconds, CPU seconds of the tree)
    of one command. On a shared machine the CPU seconds are the steadier figure."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, **(env or {})})
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return (proc.returncode, usage.ru_maxrss * 1024, time.perf_counter() - started,
            usage.ru_utime + usage.ru_stime)


def timed(args: list[str], env: dict[str, str] | None = None) -> tuple[int, float]:
    started = time.perf_counter()
    code = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          env={**os.environ, **(env or {})}, check=False).returncode
    return code, time.perf_counter() - started


def size_of(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def fourfold(corpus: Path, out: Path) -> Path:
    """``out`` holding four directories of hard links to ``corpus``."""
    if not (out / "copy4").exists():
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        for i in range(1, 5):
            shutil.copytree(corpus, out / f"copy{i}", copy_function=os.link)
    return out


def memory(corpus: Path, work: Path, baseline: Path | None, repeat: int) -> list[dict]:
    """Peak RSS and time of ``load --db`` at 1x and 4x, findings on and off; with a baseline,
    each load of this tree right after the same load of the baseline's."""
    trees = ([("before", baseline.resolve())] if baseline is not None else []) \
        + [("after", HERE.parent)]
    rows = []
    four = fourfold(corpus, work.parent / f"{corpus.name}-x4")
    for round_no in range(1, repeat + 1):
        for label, root in (("1x", corpus), ("4x", four)):
            for findings in ("--no-findings", "--findings"):
                for tree, src in trees:
                    db = work / f"m-{tree}-{label}{findings}.duckdb"
                    code, rss, seconds, cpu = peak_rss(
                        [sys.executable, "-m", "quizkit", "load", str(root), "--db", str(db),
                         "-q", findings], env={"PYTHONPATH": str(src)})
                    db.unlink(missing_ok=True)
                    Path(f"{db}.wal").unlink(missing_ok=True)
                    row = {"round": round_no, "tree": tree, "corpus": label,
                           "mb": round(size_of(root) / 1e6), "findings": findings,
                           "exit": code, "peak_rss_mb": round(rss / 1e6),
                           "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
                           "load_avg": load_avg()}
                    print(json.dumps(row), flush=True)
                    rows.append(row)
    for tree, _ in trees:
        for findings in ("--no-findings", "--findings"):
            best = {label: min(r["seconds"] for r in rows if r["tree"] == tree
                               and r["corpus"] == label and r["findings"] == findings)
                    for label in ("1x", "4x")}
            cpu = {label: min(r["cpu_seconds"] for r in rows if r["tree"] == tree
                              and r["corpus"] == label and r["findings"] == findings)
                   for label in ("1x", "4x")}
            peak = max(r["peak_rss_mb"] for r in rows
                       if r["tree"] == tree and r["findings"] == findings)
            print(f"load {tree} {findings}: 1x {best['1x']:.2f}s ({cpu['1x']:.2f} CPU s), "
                  f"4x {best['4x']:.2f}s ({cpu['4x']:.2f} CPU s; 4x/1x "
                  f"{cpu['4x'] / cpu['1x']:.2f} in CPU), peak RSS {peak} MB", flush=True)
    return rows


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A scheduler and N single-threaded workers on 127.0.0.1, stopped on exit."""

    def __init__(self, workers: int, logs: Path) -> None:
        self.workers, self.logs = workers, logs
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> Cluster:
        port = self.address.rsplit(":", 1)[1]
        with open(self.logs / "scheduler.log", "ab") as log:
            self.procs.append(subprocess.Popen(
                [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", port,
                 "--no-dashboard", "--no-show"], stdout=log, stderr=log,
                start_new_session=True))
        with open(self.logs / "workers.log", "ab") as log:
            self.procs.append(subprocess.Popen(
                [str(BIN / "dask"), "worker", self.address, "--nthreads", "1", "--nworkers",
                 str(self.workers), "--host", "127.0.0.1", "--no-dashboard",
                 "--local-directory", str(self.logs)], stdout=log, stderr=log,
                start_new_session=True))
        from distributed import Client

        with Client(self.address, timeout=60) as client:
            client.wait_for_workers(self.workers, timeout=120)
        return self

    def __exit__(self, *exc: object) -> None:
        for p in reversed(self.procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


    def processes(self) -> list:
        """The scheduler, the nannies' process and the workers (psutil processes)."""
        import psutil  # comes with distributed

        found = []
        for p in self.procs:
            with contextlib.suppress(psutil.NoSuchProcess):
                proc = psutil.Process(p.pid)
                found += [proc, *proc.children(recursive=True)]
        return found

    def cpu_seconds(self) -> float:
        """CPU seconds used so far by the scheduler, the nannies and the workers."""
        import psutil

        total = 0.0
        for q in self.processes():
            with contextlib.suppress(psutil.NoSuchProcess):
                t = q.cpu_times()
                total += t.user + t.system
        return total

    def worker_processes(self) -> list:
        return [q for q in self.processes() if "spawn_main" in " ".join(_cmdline(q))]

    def reset_peaks(self) -> None:
        """Start the workers' peak RSS afresh (Linux; elsewhere a no-op)."""
        for q in self.worker_processes():
            with contextlib.suppress(OSError):
                Path(f"/proc/{q.pid}/clear_refs").write_text("5")

    def worker_peak_mb(self) -> int:
        """The largest peak RSS of one worker process since :meth:`reset_peaks`, in MB."""
        peaks = [0]
        for q in self.worker_processes():
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{q.pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peaks.append(int(line.split()[1]) * 1024)
        return round(max(peaks) / 1e6)


def _cmdline(proc: object) -> list[str]:
    import psutil

    try:
        return proc.cmdline()  # type: ignore[attr-defined]
    except psutil.Error:
        return []


def best_of(repeat: int, args: list[str], cluster: Cluster | None = None
            ) -> tuple[float, float, int]:
    """(seconds, CPU seconds, peak RSS in MB) of the fastest of ``repeat`` runs: the CPU of
    the command and its children, and of the cluster's processes during the run; the peak
    RSS of the command's process tree, or on a cluster of one worker."""
    runs = []
    for _ in range(repeat):
        before = cluster.cpu_seconds() if cluster is not None else 0.0
        _, rss, seconds, cpu = peak_rss(args)
        if cluster is not None:
            cpu += cluster.cpu_seconds() - before
            rss = cluster.worker_peak_mb() * 1_000_000
        runs.append((seconds, cpu, round(rss / 1e6)))
    return min(runs)


def cluster_times(corpus: Path, work: Path, repeat: int
                  ) -> dict[str, dict[str, tuple[float, float, int]]]:
    runs = {"validate": lambda extra: [QUIZKIT, "validate", str(corpus), "--format", "json",
                                       "-o", str(work / "report.json"), "-q", *extra],
            "load": lambda extra: [QUIZKIT, "load", str(corpus), "--parquet",
                                   str(work / f"ds-{time.monotonic_ns()}"), "-q", *extra]}
    out: dict[str, dict[str, tuple[float, float, int]]] = {name: {} for name in runs}
    # validate --jobs 1 beside --jobs 2 shows how much of a second core the machine gives now
    # (on a shared machine, far less than one): the ceiling of any 2-worker speed-up.
    out["validate"]["local --jobs 1"] = best_of(repeat, runs["validate"](["--jobs", "1"]))
    for name, make in runs.items():
        out[name]["local --jobs 2" if name == "validate" else "local"] = best_of(
            repeat, make(["--jobs", "2"] if name == "validate" else []))
    for workers in (2, 1):
        with Cluster(workers, work) as cluster:
            for name, make in runs.items():
                cluster.reset_peaks()
                timed(make(["--scheduler", cluster.address]))  # workers import and warm up
                out[name][f"{workers} worker(s)"] = best_of(
                    repeat, make(["--scheduler", cluster.address]), cluster)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path)
    ap.add_argument("--packages", type=int, default=8000)
    ap.add_argument("--broken", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--skip-cluster", action="store_true")
    ap.add_argument("--baseline", type=Path, metavar="DIR",
                    help="also measure the loads with the quizkit package in DIR (before)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    corpus = args.corpus or args.out / f"scale-{args.packages}-{args.seed}-{args.broken}"
    if args.corpus is None and not corpus.exists():
        print(f"generating {args.packages} packages into {corpus} ...", flush=True)
        subprocess.run([QUIZKIT, "samples", "generate", "--packages", str(args.packages),
                        "--seed", str(args.seed), "--broken", str(args.broken), "--out",
                        str(corpus)], check=True, stdout=subprocess.DEVNULL)
    print(f"corpus {corpus}: {size_of(corpus) / 1e6:.0f} MB, cores {os.cpu_count()}, "
          f"load average {load_avg()}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="qk-scale-", dir=args.out))
    try:
        if not args.skip_memory:
            memory(corpus, work, args.baseline, args.repeat)
        if not args.skip_cluster:
            times = cluster_times(corpus, work, args.repeat)
            for name, t in times.items():
                local = t.get("local --jobs 2", t.get("local"))[0]
                two, one = t["2 worker(s)"][0], t["1 worker(s)"][0]
                jobs = (f"; local --jobs 1 vs 2: {t['local --jobs 1'][0] / local:.2f}x"
                        if "local --jobs 1" in t else "")
                print(f"{name}: " + ", ".join(f"{k} {v:.2f}s ({c:.2f} CPU s, peak RSS {m} MB)"
                                              for k, (v, c, m) in t.items())
                      + f"; 2 workers vs 1: {one / two:.2f}x (target >= 1.7)"
                      + f"; 2 workers vs local: {two / local - 1:+.0%} (target <= +15%)"
                      + jobs + f"; load average {load_avg()}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
