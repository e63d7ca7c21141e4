"""Write a deterministic corpus of documents: files, JSON Lines batches, gzip, manifest.

Work is split by package and by user. Each unit draws from its own seeded random sources
(:mod:`quizkit.generate.synth`), so the bytes written do not depend on the number of worker
processes; units are written (or batched) in index order.
"""

from __future__ import annotations

import gzip
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from quizkit.generate import synth
from quizkit.generate.defects import TRUNCATED_WHAT, break_document, truncate
from quizkit.outputs.interrupts import worker_started
from quizkit.outputs.writer import make_directory, write_bytes

OUR_DIRS = ("packages", "games", "versions", "users", "banners", "batches")
BATCH_SIZE = 1000
#: How documents are written: each file indented by two spaces (as the service exports
#: them), each file compact (one line, as most services write), or every document one line
#: of one JSON Lines file (``batches/documents-0001.jsonl``).
SHAPES = ("indented", "compact", "lines")
# Not a document: a suffix quizkit does not walk, so ``quizkit validate DIR`` leaves it out.
MANIFEST = "corpus-manifest.json.txt"
LEGACY_MANIFEST = "manifest.json"  # the name before; --force removes it too


@dataclass(frozen=True)
class CorpusOptions:
    out_dir: str
    packages: int
    seed: int
    broken: float
    gzip_share: float
    jsonl: bool
    shape: str = "indented"
    #: The run's categories (made once from the seed; every package picks from them).
    categories: tuple[dict[str, Any], ...] = ()

    @property
    def users(self) -> int:
        return max(1, self.packages // 3 + 1)


@dataclass
class Summary:
    """What :func:`generate_corpus` wrote."""

    out_dir: Path
    files: int = 0
    documents: int = 0
    bytes: int = 0
    broken: int = 0
    seconds: float = 0.0
    kinds: dict[str, int] = field(default_factory=dict)

    @property
    def megabytes(self) -> float:
        return self.bytes / 1_000_000

    def to_dict(self) -> dict[str, Any]:
        return {"outDir": str(self.out_dir), "files": self.files, "documents": self.documents,
                "bytes": self.bytes, "broken": self.broken, "seconds": round(self.seconds, 3),
                "kinds": dict(sorted(self.kinds.items()))}


@dataclass
class Rendered:
    """One document after serialization (and breaking, if it was chosen)."""

    name: str
    kind: str
    data: bytes | None  # None once written to disk
    size: int
    case: dict[str, Any] | None
    batch: str | None


def _author_of(seed: int, index: int, users: int) -> int:
    return synth.stream(seed, "author", index).randrange(users)


def _render(opts: CorpusOptions, doc: synth.Doc) -> Rendered:
    rng = synth.stream(opts.seed, "defect", doc.name)
    batch = "documents" if opts.shape == "lines" else doc.batch
    as_line = batch is not None and (opts.jsonl or opts.shape == "lines")
    body, case = doc.body, None
    cut = False
    if opts.broken and rng.random() < opts.broken:
        body, defect = break_document(rng, doc.kind, doc.body)
        if defect is None:
            cut = True
            case = {"rule": "invalid-json", "pointer": "", "what": TRUNCATED_WHAT,
                    "defect": "truncated"}
        else:
            case = {"rule": defect.rule, "pointer": defect.pointer, "what": defect.what,
                    "defect": defect.rule}
    option = 0 if as_line or opts.shape == "compact" else orjson.OPT_INDENT_2
    data = orjson.dumps(body, option=option) + (b"" if as_line else b"\n")
    if cut:
        data = truncate(rng, data)
    if as_line:
        return Rendered(doc.name, doc.kind, data, len(data) + 1, case, batch)
    name = doc.name
    path = Path(opts.out_dir, name)
    size = len(data)
    if opts.gzip_share and synth.stream(opts.seed, "gzip", name).random() < opts.gzip_share:
        name += ".gz"
        data = gzip.compress(data, compresslevel=6, mtime=0)
        path = Path(opts.out_dir, name)
    write_bytes(path, data, durable=False)
    return Rendered(name, doc.kind, None, size, case, None)


def _package_unit(opts: CorpusOptions, index: int) -> list[Rendered]:
    docs = synth.package_documents(opts.seed, index, _author_of(opts.seed, index, opts.users),
                                   opts.users, list(opts.categories))
    return [_render(opts, d) for d in docs]


def _user_unit(opts: CorpusOptions, index: int, pkg_count: int) -> list[Rendered]:
    return [_render(opts, d) for d in synth.user_documents(opts.seed, index, pkg_count)]


def _run_package(args: tuple[CorpusOptions, int]) -> list[Rendered]:
    return _package_unit(*args)


def _run_user(args: tuple[CorpusOptions, int, int]) -> list[Rendered]:
    return _user_unit(*args)


def _prepare(out: Path, overwrite: bool) -> None:
    make_directory(out)
    if any(out.iterdir()):
        if not overwrite:
            raise FileExistsError(f"{out} is not empty (use overwrite/--force to replace a "
                                  "corpus written before)")
        for name in OUR_DIRS:
            shutil.rmtree(out / name, ignore_errors=True)
        (out / MANIFEST).unlink(missing_ok=True)
        (out / LEGACY_MANIFEST).unlink(missing_ok=True)
    for name in OUR_DIRS[:-1]:
        make_directory(out / name)


def _write_batches(opts: CorpusOptions, lines: dict[str, list[Rendered]]
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """JSON Lines files of up to BATCH_SIZE records: (index entries, cases, bytes written)."""
    make_directory(Path(opts.out_dir, "batches"))
    index: list[dict[str, Any]] = []
    cases: list[dict[str, Any]] = []
    total = 0
    size = BATCH_SIZE if opts.shape != "lines" else max(1, sum(map(len, lines.values())))
    for batch in sorted(lines):
        records = lines[batch]
        for start in range(0, len(records), size):
            chunk = records[start:start + size]
            name = f"batches/{batch}-{start // size + 1:04d}.jsonl"
            data = b"".join(r.data + b"\n" for r in chunk if r.data is not None)
            total += len(data)
            if opts.gzip_share and (synth.stream(opts.seed, "gzip", name).random()
                                    < opts.gzip_share):
                name += ".gz"
                data = gzip.compress(data, compresslevel=6, mtime=0)
            write_bytes(Path(opts.out_dir, name), data, durable=False)
            kinds = sorted({r.kind for r in chunk})
            index.append({"file": name, "kind": kinds[0] if len(kinds) == 1 else kinds,
                          "records": len(chunk)})
            cases += [{"file": name, "kind": r.kind, **r.case, "record": number}
                      for number, r in enumerate(chunk, start=1) if r.case is not None]
    return index, cases, total


def generate_corpus(out_dir: str | os.PathLike[str], packages: int = 100, seed: int = 0,
                    broken: float = 0.0, gzip_share: float = 0.0, jsonl: bool = False,
                    workers: int | None = None, overwrite: bool = False,
                    shape: str = "indented") -> Summary:
    """Write a corpus of ``packages`` packages and their games, versions, users and banners.

    The same arguments always give the same bytes. ``broken`` is the share of documents that
    get one defect each; ``gzip_share`` the share of files written gzip-compressed (``.gz``);
    ``jsonl`` puts games, users and banners into JSON Lines batches under ``batches/``;
    ``shape`` (:data:`SHAPES`) writes the files indented or compact, or every document into
    one JSON Lines file.
    ``DIR/corpus-manifest.json.txt`` (JSON, named so that validating ``DIR`` skips it) lists
    every file with its kind, and every broken document with the rule and pointer a validator
    should report.
    """
    if packages < 0 or not 0.0 <= broken <= 1.0 or not 0.0 <= gzip_share <= 1.0:
        raise ValueError("packages must be >= 0; broken and gzip_share between 0 and 1")
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {', '.join(SHAPES)}")
    started = time.perf_counter()
    out = Path(out_dir)
    _prepare(out, overwrite)
    opts = CorpusOptions(str(out), packages, seed, broken, gzip_share, jsonl, shape,
                   tuple(synth.categories(seed)))
    rendered = _render_all(opts, workers)
    lines: dict[str, list[Rendered]] = {}
    files: list[Rendered] = []
    for r in rendered:
        if r.batch is not None and r.data is not None:
            lines.setdefault(r.batch, []).append(r)
        else:
            files.append(r)
    summary = Summary(out)
    for r in rendered:
        summary.kinds[r.kind] = summary.kinds.get(r.kind, 0) + 1
    summary.documents = len(rendered)
    index = [{"file": r.name, "kind": r.kind} for r in files]
    cases = [{"file": r.name, "kind": r.kind, **r.case} for r in files if r.case is not None]
    summary.bytes = sum(r.size for r in files)
    if lines:
        batch_index, batch_cases, batch_bytes = _write_batches(opts, lines)
        index += batch_index
        cases += batch_cases
        summary.bytes += batch_bytes
    for case in cases:
        if case["rule"] == "invalid-json" and "record" not in case:
            case["kind"] = None  # a file that cannot be parsed has no kind
    summary.files = len(index)
    summary.broken = len(cases)
    write_bytes(out / MANIFEST, orjson.dumps(_manifest(opts, summary, cases, index),
                                             option=orjson.OPT_INDENT_2))
    summary.seconds = time.perf_counter() - started
    return summary


def _render_all(opts: CorpusOptions, workers: int | None) -> list[Rendered]:
    """Every document of the corpus, rendered: the packages, then the users (whose package
    counts follow from the packages' authors); in processes for a large corpus."""
    pkg_counts = [0] * opts.users
    for i in range(opts.packages):
        pkg_counts[_author_of(opts.seed, i, opts.users)] += 1
    package_jobs = [(opts, i) for i in range(opts.packages)]
    user_jobs = [(opts, j, pkg_counts[j]) for j in range(opts.users)]
    if workers is None:
        workers = min(os.cpu_count() or 1, 8) if opts.packages >= 40 else 1
    if workers > 1:
        with ProcessPoolExecutor(workers, initializer=worker_started) as pool:
            results = [*pool.map(_run_package, package_jobs, chunksize=8),
                       *pool.map(_run_user, user_jobs, chunksize=32)]
    else:
        results = [*map(_run_package, package_jobs), *map(_run_user, user_jobs)]
    return [r for unit in results for r in unit]


def _manifest(opts: CorpusOptions, summary: Summary, cases: list[dict], index: list[dict]) -> dict:
    """``corpus-manifest.json.txt``: the arguments, the kinds, every broken document with the
    rule a validator should report, every file."""
    return {
        "generator": "quizkit samples generate",
        "seed": opts.seed, "packages": opts.packages, "broken": opts.broken,
        "gzipShare": opts.gzip_share, "jsonl": opts.jsonl, "shape": opts.shape,
        "documents": summary.documents,
        "kinds": dict(sorted(summary.kinds.items())),
        "cases": [{k: c[k] for k in ("file", "what", "rule", "pointer", "kind", "record",
                                     "defect") if k in c} for c in cases],
        "files": index,
    }
