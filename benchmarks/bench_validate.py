"""Benchmark ``quizkit validate`` against the orjson floor and peer validators, on one corpus.

    python benchmarks/bench_validate.py                      # 2,000 packages, seed 1
    python benchmarks/bench_validate.py --packages 500 --broken 0.05
    python benchmarks/bench_validate.py --corpus DIR         # an existing corpus
    python benchmarks/bench_validate.py --files 20000        # the memory bound (no peers)

Every run goes through a real command line as a child process (quizkit with the report written
to a file); wall time is the best of ``--repeat`` runs, CPU time and peak RSS are the child's
(``wait4``), and the RSS of the whole process tree (workers included) is sampled from /proc.
The floor is reading and parsing every file with orjson, in this process, on one core.

The machine may be shared: the load average is printed, and wall times under load are lower
bounds on speed, not measurements of it.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "out"
SCHEMAS = ROOT / "quizkit" / "schemas"
AJV = ROOT / ".tools" / "node_modules" / ".bin" / "ajv"
MB = 1_000_000

#: (label, measured figure, ">=" or "<", factor, figure the factor applies to or None).
TARGETS: tuple[tuple[str, str, str, float, str | None], ...] = (
    ("single core >= 170 MB/s end to end", "jobs1_mbps", ">=", 170, None),
    ("single core >= 0.6x the orjson floor", "jobs1_mbps", ">=", 0.6, "floor_mbps"),
    ("single core >= 1.3x ajv-cli", "jobs1_mbps", ">=", 1.3, "ajv_mbps"),
    ("single core >= 60x check-jsonschema", "jobs1_mbps", ">=", 60, "cjs_mbps"),
    ("--jobs 2 >= 1.8x one core", "jobs2_mbps", ">=", 1.8, "jobs1_mbps"),
    ("peak RSS < 250 MB (whole process tree)", "peak_tree_mb", "<", 250, None),
    ("start-up < 0.3 s", "startup_s", "<", 0.3, None),
)


@dataclass
class Run:
    """One measured command."""

    name: str
    files: int
    bytes: int
    wall: float
    cpu: float = 0.0
    peak_rss_kb: int = 0  # the largest single process (wait4)
    peak_tree_kb: int = 0  # sampled sum over the process tree
    note: str = ""
    exit_codes: list[int] = field(default_factory=list)

    @property
    def mbps(self) -> float:
        return self.bytes / MB / self.wall if self.wall else 0.0

    @property
    def files_per_s(self) -> float:
        return self.files / self.wall if self.wall else 0.0

    @property
    def cpu_mbps(self) -> float:
        """MB per CPU second (all processes): what load on a shared machine hardly changes."""
        return self.bytes / MB / self.cpu if self.cpu else 0.0


# --- the corpus ----------------------------------------------------------------------------

def corpus(args: argparse.Namespace) -> Path:
    """The corpus directory: given, or generated (once: the generator is deterministic)."""
    if args.corpus:
        return Path(args.corpus)
    target = OUT / f"corpus-p{args.packages}-s{args.seed}-b{args.broken}"
    if not (target / "corpus-manifest.json.txt").exists():
        from quizkit.generate import generate_corpus

        print(f"generating {target} ...", flush=True)
        if target.exists():
            shutil.rmtree(target)
        generate_corpus(target, packages=args.packages, seed=args.seed, broken=args.broken)
    return target


def documents(root: Path) -> list[tuple[Path, str | None]]:
    """(file, kind) for every input of the corpus, kinds from its manifest when it has one."""
    manifest = root / "corpus-manifest.json.txt"
    if manifest.exists():
        listed = orjson.loads(manifest.read_bytes())
        return [(root / f["file"], f.get("kind")) for f in listed["files"]]
    from quizkit.inputs.walk import expand
    from quizkit.model.kinds import detect_kind

    out = []
    for source in expand([str(root)]):
        path = Path(source.path)
        kind = None
        if path.suffix == ".json":
            with contextlib.suppress(orjson.JSONDecodeError):
                kind = detect_kind(orjson.loads(path.read_bytes()))
        out.append((path, kind))
    return out


def link_farm(files: list[Path], count: int) -> Path:
    """A directory of ``count`` hard links cycling over ``files`` (many files, little disk)."""
    target = OUT / f"many-{count}"
    if target.exists() and sum(1 for _ in target.iterdir()) == count:
        return target
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for i in range(count):
        src = files[i % len(files)]
        os.link(src, target / f"{i:06}-{src.name}")
    return target


# --- measuring a child process -------------------------------------------------------------

def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(c) for c in text.split()]


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants now."""
    found, stack = [], [pid]
    while stack:
        p = stack.pop()
        found.append(p)
        stack.extend(_children(p))
    return found


def _tree_rss_kb(pid: int) -> int:
    page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
    total = 0
    for p in _tree(pid):
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += int(Path(f"/proc/{p}/statm").read_text().split()[1]) * page_kb
    return total


def tree_pss_kb(pid: int) -> int:
    """KB ``pid`` and its descendants hold now, a page shared by forked processes counted
    once (the proportional set size, PSS; 0 where /proc has none)."""
    total = 0
    for p in _tree(pid):
        with contextlib.suppress(OSError, IndexError, ValueError):
            rollup = Path(f"/proc/{p}/smaps_rollup").read_text()
            total += int(rollup.split("\nPss:", 1)[1].split()[0])
    return total


def installed_env() -> dict[str, str]:
    """The environment quizkit is run in, as installed: a PYTHONDONTWRITEBYTECODE in the shell
    would make every run compile quizkit's modules anew, a start-up no user has."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def measure(cmd: list[str], *, cwd: Path = ROOT) -> tuple[float, float, int, int, int]:
    """(wall s, CPU s, peak RSS KB of one process, peak RSS KB of the tree, exit code)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=installed_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    tree_peak = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        tree_peak = max(tree_peak, _tree_rss_kb(proc.pid))
        time.sleep(0.01)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return (wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, max(tree_peak, usage.ru_maxrss),
            proc.returncode)


def best_of(name: str, cmds: list[list[str]], files: int, size: int, repeat: int,
            note: str = "") -> Run:
    """Run the commands (one after the other) ``repeat`` times; keep the fastest round."""
    best: Run | None = None
    for _ in range(repeat):
        run = Run(name, files, size, 0.0, note=note)
        for cmd in cmds:
            wall, cpu, rss, tree, code = measure(cmd)
            run.wall += wall
            run.cpu += cpu
            run.peak_rss_kb = max(run.peak_rss_kb, rss)
            run.peak_tree_kb = max(run.peak_tree_kb, tree)
            run.exit_codes.append(code)
        if best is None or run.wall < best.wall:
            best = run
    assert best is not None
    return best


# --- what is measured ----------------------------------------------------------------------

def quizkit_exe() -> str:
    exe = Path(sys.executable).parent / "quizkit"
    return str(exe) if exe.exists() else shutil.which("quizkit") or "quizkit"


def quizkit_run(root: Path, jobs: int, files: int, size: int, repeat: int) -> Run:
    report = OUT / f"report-jobs{jobs}.json"
    cmd = [quizkit_exe(), "validate", "--jobs", str(jobs), "--format", "json", "-o", str(report),
           str(root)]
    return best_of(f"quizkit validate --jobs {jobs}", [cmd], files, size, repeat,
                   note="JSON report written")


def _parse(path: Path) -> None:
    with open(path, "rb") as fh:
        data = fh.read()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    chunks = data.split(b"\n") if path.name.endswith((".jsonl", ".jsonl.gz")) else [data]
    for chunk in chunks:
        with contextlib.suppress(orjson.JSONDecodeError):
            orjson.loads(chunk)


def _best_in_process(name: str, note: str, paths: list[Path], repeat: int,
                     one_pass: Callable[[], object]) -> Run:
    """The best of ``repeat`` calls of ``one_pass`` (a pass over ``paths``), by wall time."""
    size = sum(p.stat().st_size for p in paths)
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        cpu = time.process_time()
        one_pass()
        run = Run(name, len(paths), size, time.perf_counter() - start,
                  cpu=time.process_time() - cpu, note=note)
        if best is None or run.wall < best.wall:
            best = run
    assert best is not None
    return best


def floor(paths: list[Path], repeat: int) -> Run:
    """orjson read + parse of every file, one core, in this process (the floor)."""
    def one_pass() -> None:
        for p in paths:
            _parse(p)

    return _best_in_process("orjson read + parse (floor)", "one core, in process", paths,
                            repeat, one_pass)


def stack_floor(paths: list[Path], repeat: int) -> Run:
    """What no rule can avoid, one core, in this process: quizkit's own read, parse and
    write-back check (``quizkit.inputs.intake``), kind detection and the jsonschema-rs verdict
    (``bench_stages.py``'s "fixed" stage).

    The gap between this and ``quizkit validate --jobs 1`` is what the structural checks,
    the report and start-up cost; the gap between the floor and this is the price of the
    stack (orjson, jsonschema-rs) itself.
    """
    from bench_stages import stage_pass

    from quizkit.inputs.sources import Source
    from quizkit.model.schemas import SchemaBook

    schemas = SchemaBook().warm()
    sources = [Source(str(p)) for p in paths]
    return _best_in_process("quizkit's fixed costs (no rules)",
                            "read, parse, write-back check, kind, jsonschema-rs; in process",
                            paths, repeat, lambda: stage_pass("fixed", sources, schemas))


def by_kind(docs: list[tuple[Path, str | None]]) -> dict[str, list[Path]]:
    groups: dict[str, list[Path]] = defaultdict(list)
    for path, kind in docs:
        if kind and path.suffix == ".json":
            groups[kind].append(path)
    return dict(groups)


def _batches(paths: list[Path], limit: int = 500_000) -> list[list[Path]]:
    """Split long file lists so that one command line stays well under ARG_MAX."""
    out: list[list[Path]] = [[]]
    length = 0
    for p in paths:
        if length + len(str(p)) > limit and out[-1]:
            out.append([])
            length = 0
        out[-1].append(p)
        length += len(str(p)) + 4
    return out


def ajv_run(groups: dict[str, list[Path]], repeat: int) -> Run | None:
    if not AJV.exists() or not shutil.which("node"):
        return None
    cmds = []
    for kind, paths in sorted(groups.items()):
        for batch in _batches(paths):
            cmds.append([str(AJV), "validate", "--spec=draft2020", "-c", "ajv-formats",
                         "-s", str(SCHEMAS / "documents" / f"{kind}.json"),
                         "-r", str(SCHEMAS / "records" / "*.json"),
                         *[a for p in batch for a in ("-d", str(p))]])
    files = sum(len(v) for v in groups.values())
    size = sum(p.stat().st_size for v in groups.values() for p in v)
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    return best_of("ajv-cli (ajv-formats)", cmds, files, size, repeat,
                   note=f"node {node}; {len(cmds)} invocations, one per kind")


def check_jsonschema_run(groups: dict[str, list[Path]], subset_mb: float) -> Run | None:
    exe = Path(sys.executable).parent / "check-jsonschema"
    found = str(exe) if exe.exists() else shutil.which("check-jsonschema")
    if not found:
        return None
    total = sum(p.stat().st_size for v in groups.values() for p in v)
    share = min(1.0, subset_mb * MB / total) if total else 1.0
    cmds, files, size = [], 0, 0
    for kind, paths in sorted(groups.items()):
        step = max(1, round(1 / share))
        picked = paths[::step] or paths[:1]
        files += len(picked)
        size += sum(p.stat().st_size for p in picked)
        schema = SCHEMAS / "documents" / f"{kind}.json"
        cmds.append([found, "--base-uri", schema.resolve().as_uri(), "--schemafile", str(schema),
                     *map(str, picked)])
    note = (f"subset: {files} files, {size / MB:.1f} MB (every {round(1 / share)}th file "
            "of each kind), MB/s scale to the corpus" if share < 1 else "whole corpus")
    return best_of("check-jsonschema", cmds, files, size, 1, note=note)


def startup(repeat: int) -> tuple[float, float, float]:
    """Best wall s and CPU s of `quizkit validate` on one small file; wall s of `python -c pass`."""
    small = ROOT / "samples" / "banner.json"
    runs = [measure([quizkit_exe(), "validate", str(small)]) for _ in range(repeat)]
    p = min(measure([sys.executable, "-c", "pass"])[0] for _ in range(repeat))
    return min(r[0] for r in runs), min(r[1] for r in runs), p


def check_costs(docs: list[tuple[Path, str | None]], limit_mb: float) -> list[tuple[str, float]]:
    """CPU seconds per MB of each rule's check (with the versions listed and indexed once per
    document, counted apart), findings check and fact collector, in this process.

    For the rules' authors: which checks cost what, on (about ``limit_mb`` MB of) the corpus.
    """
    from quizkit.model.kinds import detect_kind
    from quizkit.model.schemas import SchemaBook
    from quizkit.rules import REGISTRY
    from quizkit.rules.navigate import DocumentFacts, versions_of

    spent: dict[str, float] = defaultdict(float)
    size = 0
    schemas = SchemaBook()

    def emit(*_: object) -> None:
        pass

    def timed(name: str, fn: Callable[..., object], *args: object) -> object:
        start = time.process_time()
        out = fn(*args)
        spent[name] += time.process_time() - start
        return out

    for path, _ in docs:
        if path.suffix != ".json" or size > limit_mb * MB:
            continue
        data = path.read_bytes()
        try:
            doc = orjson.loads(data)
        except orjson.JSONDecodeError:
            continue
        size += len(data)
        kind = detect_kind(doc)
        if kind is None:
            continue
        valid = timed("(schema: jsonschema-rs is_valid)", schemas.validator(kind).is_valid, doc)
        # as the engine indexes them: a valid document's ids are known to be strings
        versions = timed("(versions listed and indexed)", versions_of, kind, doc, True, valid)
        facts = DocumentFacts(kind, doc, versions)
        for check in REGISTRY.of("rule", kind):
            timed(f"{check.__module__}.{check.__name__}", check, facts, emit)
        for fcheck in REGISTRY.of("findings", kind):
            timed(f"{fcheck.__module__}.{fcheck.__name__}", fcheck, versions, (), emit, None)
        for collect in REGISTRY.of("facts", kind):
            timed(f"{collect.__module__}.{collect.__name__}", list, collect(doc))
        start = time.process_time()
        del doc, versions, facts
        spent["(freeing the document)"] += time.process_time() - start
    return sorted(((name, t / (size / MB)) for name, t in spent.items()), key=lambda x: -x[1])


# --- output --------------------------------------------------------------------------------

def table(runs: list[Run], floor_mbps: float) -> str:
    head = (f"{'run':30} {'files':>6} {'MB':>6} {'wall s':>6} {'MB/s':>6} {'files/s':>7} "
            f"{'CPU s':>6} {'MB/CPUs':>7} {'RSS MB':>6} {'tree MB':>7} {'x floor':>7}")
    lines = [head, "-" * len(head)]
    for r in runs:
        lines.append(
            f"{r.name:30} {r.files:>6} {r.bytes / MB:>6.1f} {r.wall:>6.2f} {r.mbps:>6.1f} "
            f"{r.files_per_s:>7.0f} {r.cpu:>6.2f} {r.cpu_mbps:>7.1f} {r.peak_rss_kb / 1024:>6.0f} "
            f"{r.peak_tree_kb / 1024:>7.0f} {r.mbps / floor_mbps if floor_mbps else 0:>7.2f}")
        if r.note:
            lines.append(f"{'':36}{r.note}")
    return "\n".join(lines)


def budget(figures: dict[str, float]) -> str:
    """The single-core targets as time per MB, against what the stack alone costs."""
    need = max(170.0, 0.6 * figures["floor_mbps"])
    fixed = 1000 / figures["fixed_mbps"]
    jobs1 = 1000 / figures["jobs1_mbps"] if figures.get("jobs1_mbps") else float("nan")
    return (f"single-core budget: the targets allow {1000 / need:.2f} ms/MB end to end "
            f"({need:.0f} MB/s); the floor costs {1000 / figures['floor_mbps']:.2f}, quizkit's "
            f"fixed costs (no rules) {fixed:.2f}, leaving {1000 / need - fixed:.2f} ms/MB for "
            f"every structural check, the report and start-up; they take "
            f"{jobs1 - fixed:.2f} ms/MB now")


def verdicts(figures: dict[str, float]) -> list[str]:
    out = []
    for label, metric, op, factor, ref in TARGETS:
        if metric not in figures or (ref and ref not in figures):
            out.append(f"  n/a   {label}  (not measured)")
            continue
        value = figures[metric]
        bound = factor * figures[ref] if ref else factor
        ok = value >= bound if op == ">=" else value < bound
        out.append(f"  {'ok  ' if ok else 'MISS'}  {label}  ({value:.3g}, needs {op} {bound:.3g})")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", help="an existing corpus directory (default: generate one)")
    ap.add_argument("--packages", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--broken", type=float, default=0.0)
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (best kept)")
    ap.add_argument("--jobs", type=int, nargs="*", default=None,
                    help="--jobs values to measure besides 1 (default: 2)")
    ap.add_argument("--files", type=int, default=0,
                    help="memory mode: validate this many files (hard links over the corpus)")
    ap.add_argument("--no-peers", action="store_true", help="skip ajv-cli and check-jsonschema")
    ap.add_argument("--peer-subset-mb", type=float, default=6.0,
                    help="check-jsonschema runs on about this many MB of the corpus")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--check-costs", action="store_true",
                    help="also time each structural check (in process, on ~50 MB)")
    args = ap.parse_args(argv)

    OUT.mkdir(parents=True, exist_ok=True)
    root = corpus(args)
    docs = documents(root)
    if args.files:
        root = link_farm([p for p, _ in docs], args.files)
        docs = [(p, None) for p in sorted(root.iterdir())]
    paths = [p for p, _ in docs]
    size = sum(p.stat().st_size for p in paths)
    load = os.getloadavg()
    print(f"corpus   {root}: {len(paths)} files, {size / MB:.1f} MB")
    print(f"machine  nproc={os.cpu_count()} python={platform.python_version()} "
          f"{platform.machine()} load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(flush=True)

    base = floor(paths, args.repeat)
    runs = [base]
    figures: dict[str, float] = {"floor_mbps": base.mbps, "floor_cpu_mbps": base.cpu_mbps}
    fixed = stack_floor(paths, args.repeat)
    runs.append(fixed)
    figures["fixed_mbps"] = fixed.mbps
    figures["fixed_cpu_mbps"] = fixed.cpu_mbps
    for jobs in [1, *(args.jobs if args.jobs is not None else [2])]:
        run = quizkit_run(root, jobs, len(paths), size, args.repeat)
        runs.append(run)
        figures[f"jobs{jobs}_mbps"] = run.mbps
        figures[f"jobs{jobs}_cpu_mbps"] = run.cpu_mbps
        figures["peak_tree_mb"] = max(figures.get("peak_tree_mb", 0), run.peak_tree_kb / 1024)
    if not args.no_peers and not args.files:
        groups = by_kind(docs)
        ajv = ajv_run(groups, args.repeat)
        if ajv:
            runs.append(ajv)
            figures["ajv_mbps"] = ajv.mbps
            figures["ajv_cpu_mbps"] = ajv.cpu_mbps
        else:
            print("ajv-cli: not installed (npm install --prefix .tools ajv-cli@5 ajv-formats@3)")
        cjs = check_jsonschema_run(groups, args.peer_subset_mb)
        if cjs:
            runs.append(cjs)
            figures["cjs_mbps"] = cjs.mbps
            figures["cjs_cpu_mbps"] = cjs.cpu_mbps
        else:
            print("check-jsonschema: not installed")
    q_start, q_start_cpu, py_start = startup(max(args.repeat, 5))
    figures["startup_s"] = q_start
    figures["startup_cpu_s"] = q_start_cpu

    print(table(runs, base.mbps))
    print()
    print(f"start-up: quizkit validate samples/banner.json {q_start:.3f} s, "
          f"CPU {q_start_cpu:.3f} s (python -c pass {py_start:.3f} s)")
    jobs1 = figures.get("jobs1_mbps", 0)
    for peer, key in (("ajv-cli", "ajv_mbps"), ("check-jsonschema", "cjs_mbps")):
        if figures.get(key):
            print(f"quizkit --jobs 1 is {jobs1 / figures[key]:.1f}x {peer}")
    for jobs in args.jobs if args.jobs is not None else [2]:
        if figures.get(f"jobs{jobs}_mbps") and jobs1:
            extra = figures["jobs1_cpu_mbps"] / figures[f"jobs{jobs}_cpu_mbps"]
            print(f"quizkit --jobs {jobs} is {figures[f'jobs{jobs}_mbps'] / jobs1:.2f}x --jobs 1 "
                  f"(wall); it spends {extra:.2f}x the CPU of --jobs 1, so on {jobs} idle cores "
                  f"it could reach at most {jobs / extra:.2f}x")
    print(budget(figures))
    codes = {r.name: sorted(set(r.exit_codes)) for r in runs if r.exit_codes}
    print(f"exit codes: {codes}")
    print("\ntargets, on wall-clock figures:")
    print("\n".join(verdicts(figures)))
    if load[0] > 0.5:
        print(f"\nthe machine was busy (load {load[0]:.1f}): the same targets on CPU-time figures "
              "(MB per CPU second, start-up CPU time; RSS unchanged; --jobs n/a):")
        cpu = {k.replace("_cpu", ""): v for k, v in figures.items() if "_cpu" in k}
        cpu["peak_tree_mb"] = figures["peak_tree_mb"]
        cpu.pop("jobs2_mbps", None)
        print("\n".join(verdicts(cpu)))
    if args.check_costs:
        print("\nCPU ms per MB of each check (in process; orjson parse is ~"
              f"{1000 / figures['floor_cpu_mbps']:.1f} ms/MB):")
        for name, cost in check_costs(docs, 50):
            print(f"  {cost * 1000:8.2f}  {name}")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "corpus": str(root), "files": len(paths), "bytes": size,
            "nproc": os.cpu_count(), "python": platform.python_version(), "load": load,
            "runs": [asdict(r) | {"mbps": r.mbps, "files_per_s": r.files_per_s} for r in runs],
            "figures": figures}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
