"""Inputs that must not make quizkit slow or huge out of proportion.

Prints the figures of docs/performance.md ("Inputs out of proportion"):

* ``copies``: ``quizkit validate -j 1`` over a generated corpus copied 1..N times (cross-file
  duplicate detection must grow linearly: seconds per copy about constant), and over two
  copies of one JSON Lines file of many records;
* ``ignores``: 100,000 per-path ignores in ``quizkit.toml``, and 100,000 ``exclude`` patterns;
* ``memory``: peak RSS of validating one large package-full export (built from a generated
  package by repeating its versions under new ids), as a multiple of the file size.

    python benchmarks/bench_inputs.py copies --copies 6
    python benchmarks/bench_inputs.py ignores
    python benchmarks/bench_inputs.py memory --mb 300
    python benchmarks/bench_inputs.py --baseline /tmp/main-src memory --mb 300   # before

Every run is a real ``quizkit`` process; peak RSS is the ``ru_maxrss`` that ``wait4`` gives for
that process (what ``/usr/bin/time -v`` reports as "Maximum resident set size").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

QUIZKIT = [sys.executable, "-m", "quizkit"]  # for the corpus generator
#: The environment of the measured runs; --baseline DIR puts another quizkit source tree first.
ENV = dict(os.environ)


#: Runs quizkit as its own child and prints the child's peak RSS (KiB). A process's
#: ``ru_maxrss`` starts from the high-water mark of the process that exec'd it: started from
#: this script, which builds a 300 MB package in memory, quizkit would be charged for that.
LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss, file=sys.stderr)
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def run(args: list[str], cwd: Path | None = None) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MiB, exit code) of one quizkit process."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        # Not in the source tree: `python -m` puts the working directory first on the path.
        proc = subprocess.Popen([sys.executable, "-c", LAUNCHER, "-m", "quizkit", *args],
                                cwd=cwd or tempfile.gettempdir(),
                                stdout=subprocess.DEVNULL, stderr=err, env=ENV)
        proc.wait()
        seconds = time.perf_counter() - start
        err.seek(0)
        stderr, _, peak = err.read().rstrip().rpartition(b"\n")
    maxrss = int(peak)
    # 1 is findings; a crash (an import error too) also exits 1, with a traceback.
    if proc.returncode not in (0, 1) or b"Traceback" in stderr:
        raise SystemExit(f"quizkit {' '.join(args)} failed ({proc.returncode}):\n"
                         f"{stderr.decode()[-2000:]}")
    return seconds, maxrss / 1024, proc.returncode


def generate(out: Path, packages: int, seed: int) -> None:
    subprocess.run([*QUIZKIT, "samples", "generate", "--packages", str(packages), "--seed",
                    str(seed), "--out", str(out)], check=True, stdout=subprocess.DEVNULL)


def copies(args: argparse.Namespace, tmp: Path) -> None:
    corpus = tmp / "corpus"
    generate(corpus, args.packages, 1)
    size = sum(f.stat().st_size for f in corpus.rglob("*") if f.is_file())
    print(f"corpus: --packages {args.packages} --seed 1, {size / 1e6:.1f} MB")
    print("| copies | wall s | s per copy | peak RSS MiB |")
    print("|---|---|---|---|")
    for n in range(1, args.copies + 1):
        root = tmp / f"copies{n}"
        for k in range(1, n + 1):
            shutil.copytree(corpus, root / f"copy{k}")
        best = min(run(["validate", "-q", "-j", "1", "-o", os.devnull, str(root)])
                   for _ in range(args.repeat))
        print(f"| {n} | {best[0]:.2f} | {best[0] / n:.2f} | {best[1]:.0f} |")
        shutil.rmtree(root)
    game = json.loads((Path(__file__).parent.parent / "samples" / "game.json").read_text())
    game["history"] = []
    lines = []
    for i in range(args.records):
        game["id"] = f"{i:024x}"
        lines.append(json.dumps(game))
    one = tmp / "a.jsonl"
    one.write_text("\n".join(lines) + "\n")
    shutil.copy(one, tmp / "b.jsonl")
    single = run(["validate", "-q", "-j", "1", "-o", os.devnull, str(one)])
    double = run(["validate", "-q", "-j", "1", "-o", os.devnull, str(one), str(tmp / "b.jsonl")])
    print(f"\nJSON Lines, {args.records} records ({one.stat().st_size / 1e6:.1f} MB): one file "
          f"{single[0]:.2f} s, two copies {double[0]:.2f} s ({double[0] / single[0]:.2f}x)")


def ignores(args: argparse.Namespace, tmp: Path) -> None:
    corpus = tmp / "c"
    generate(corpus, args.packages, 1)
    files = sum(1 for f in corpus.rglob("*.json"))
    n = args.patterns
    table = {f"gen/{i}/file{i}.json": ["S"] for i in range(n - 1)}
    table["c/games/*.json"] = ["unknown-field"]
    cases = {
        "no config": "",
        f"{n:,} per-path ignores": "[per-path-ignores]\n" + "".join(
            f'"{k}" = {json.dumps(v)}\n' for k, v in table.items()),
        f"{n:,} exclude patterns": "exclude = " + json.dumps(
            [f"gen/{i}/file{i}.json" for i in range(n - 2)] + ["**/tmp/*", "users/"]) + "\n",
    }
    print(f"corpus: --packages {args.packages} --seed 1, {files} files")
    print("| config | wall s | peak RSS MiB |")
    print("|---|---|---|")
    for name, text in cases.items():
        (tmp / "quizkit.toml").write_text(text)
        best = min(run(["validate", "-q", "-j", "1", "-o", os.devnull, "c"], cwd=tmp)
                   for _ in range(args.repeat))
        print(f"| {name} | {best[0]:.2f} | {best[1]:.0f} |")


_ID = re.compile(rb'"([0-9a-f]{24})"')


def big_package(out: Path, megabytes: int, tmp: Path, *, indented: bool = False) -> int:
    """A package-full export of about ``megabytes`` MB: the largest generated package with its
    versions repeated, every id inside a copy renamed consistently (so the copy is valid).
    ``indented``: written as the service writes (orjson, two spaces), and one version in 50
    has a stray field (an unknown-field finding), so positions are computed too."""
    corpus = tmp / "seed"
    if not corpus.exists():
        generate(corpus, 40, 1)
    source = max((corpus / "packages").iterdir(), key=lambda p: p.stat().st_size)
    package = orjson.loads(source.read_bytes())
    versions = [orjson.dumps(v) for v in package["versions"]]
    keep = package["id"].encode()
    copies = []
    total = 0
    while total < megabytes * 1_000_000:
        n = len(copies)
        prefix = f"{n:08x}".encode()
        text = _ID.sub(lambda m, p=prefix: m.group(0) if m.group(1) == keep
                       else b'"' + p + m.group(1)[8:] + b'"', versions[n % len(versions)])
        version = orjson.loads(text)
        if indented and n % 50 == 0:
            version["surplus"] = True
        copies.append(version)
        total += len(text) * (1.6 if indented else 1)
    package["versions"] = copies
    out.write_bytes(orjson.dumps(package, option=orjson.OPT_INDENT_2 if indented else 0))
    return out.stat().st_size


def memory(args: argparse.Namespace, tmp: Path) -> None:
    print("| export | MB | wall s | peak RSS MB | × file |")
    print("|---|---|---|---|---|")
    for name, indented in (("compact, clean", False), ("indented, with findings", True)):
        path = tmp / "big.json"
        size = big_package(path, args.mb, tmp, indented=indented)
        seconds, peak, code = run(["validate", "-q", "-j", "1", "--max-file-size", "2GB",
                                   "-o", os.devnull, str(path)])
        print(f"| {name} (exit {code}) | {size / 1e6:.0f} | {seconds:.1f} | "
              f"{peak * 1.048576:.0f} | {peak * 1024 * 1024 / size:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    c = sub.add_parser("copies")
    c.add_argument("--copies", type=int, default=6)
    c.add_argument("--packages", type=int, default=200)
    c.add_argument("--records", type=int, default=3000)
    c.add_argument("--repeat", type=int, default=1)
    i = sub.add_parser("ignores")
    i.add_argument("--patterns", type=int, default=100_000)
    i.add_argument("--packages", type=int, default=200)
    i.add_argument("--repeat", type=int, default=1)
    m = sub.add_parser("memory")
    m.add_argument("--mb", type=int, default=300)
    parser.add_argument("--baseline", metavar="DIR",
                        help="Measure the quizkit whose source tree is DIR (e.g. `git archive "
                        "main | tar -x -C DIR`) instead of the installed one.")
    args = parser.parse_args()
    if args.baseline:
        ENV["PYTHONPATH"] = os.path.abspath(args.baseline)
    with tempfile.TemporaryDirectory(prefix="quizkit-bench-inputs-") as tmp:
        {"copies": copies, "ignores": ignores, "memory": memory}[args.what](args, Path(tmp))


if __name__ == "__main__":
    main()
