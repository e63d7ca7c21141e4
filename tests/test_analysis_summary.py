"""`quizkit summary sizes|starts|overview` on a generated corpus, checked against plain Python.

Every expected number is computed here from the JSON files (test_analysis_data.read_documents),
not taken from quizkit's output.
"""

from __future__ import annotations

import csv
import io
import math
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from test_analysis_data import current_version, nearest_rank, read_documents

from quizkit.cli import main
from quizkit.generate import generate_corpus

SIZE_KEYS = {"size_text": "text", "size_images": "images", "size_audio": "audio",
             "size_video": "video"}


class Corpus:
    def __init__(self, root: Path, db: Path) -> None:
        self.root = root
        self.db = db
        docs = read_documents(root)
        self.packages = {d["id"]: d for _, k, d in docs if k == "package-full"}
        self.games = {d["id"]: d for _, k, d in docs if k == "game"}
        self.docs = docs

    def size(self, p: dict, measure: str) -> int:
        s = p["meta"]["size"]
        return sum(s.values()) if measure == "size_total" else s[SIZE_KEYS[measure]]

    def current_steps(self, p: dict) -> list[dict]:
        v = current_version(p["versions"])
        return v["steps"] if v else []


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    base = tmp_path_factory.mktemp("summary")
    root = base / "corpus"
    generate_corpus(root, packages=40, seed=5, gzip_share=0.25, jsonl=True, workers=1)
    db = base / "c.duckdb"
    result = CliRunner().invoke(main, ["load", str(root), "--db", str(db), "--no-findings"])
    assert result.exit_code == 0, result.output
    c = Corpus(root, db)
    assert len(c.packages) == 40 and len(c.games) > 10
    return c


def summary(corpus: Corpus, *args: str, source: str = "db") -> dict[str, list[dict[str, Any]]]:
    where = ["--db", str(corpus.db)] if source == "db" else [str(corpus.root)]
    result = CliRunner().invoke(main, ["summary", *args, *where, "--format", "json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def test_size_distribution(corpus: Corpus) -> None:
    rows = {r["measure"]: r for r in summary(corpus, "sizes")["distribution"]}
    assert list(rows) == ["size_total", "size_text", "size_images", "size_audio", "size_video"]
    for measure, row in rows.items():
        values = [corpus.size(p, measure) for p in corpus.packages.values()]
        assert row["packages"] == len(values)
        assert row["total"] == sum(values)
        assert row["min"] == min(values) and row["max"] == max(values)
        assert row["p50"] == nearest_rank(values, 0.5)
        assert row["p90"] == nearest_rank(values, 0.9)
        assert row["p99"] == nearest_rank(values, 0.99)
        assert row["mean"] == pytest.approx(sum(values) / len(values))


def test_largest_packages_with_media_counts_from_steps(corpus: Corpus) -> None:
    rows = summary(corpus, "sizes", "--top", "5")["largest"]
    ranked = sorted(corpus.packages.values(),
                    key=lambda p: (-corpus.size(p, "size_total"), p["id"]))[:5]
    assert [r["id"] for r in rows] == [p["id"] for p in ranked]
    for row, p in zip(rows, ranked, strict=True):
        steps = corpus.current_steps(p)
        media = Counter(s["payload"].get("media", {}).get("type") for s in steps)
        assert row["size_total"] == corpus.size(p, "size_total")
        assert row["size_audio"] == p["meta"]["size"]["audio"]
        assert row["author"] == p["user"]["username"]
        assert row["steps"] == len(steps)
        assert row["image_steps"] == media["image"]
        assert row["audio_steps"] == media["audio"]
        assert row["video_steps"] == media["video"]
        assert row["text_steps"] == sum(1 for s in steps if s["payload"].get("text"))
        assert row["background_steps"] == sum(1 for s in steps
                                              if "backgroundMedia" in s["payload"])


def test_top_zero_lists_every_package(corpus: Corpus) -> None:
    assert len(summary(corpus, "sizes", "--top", "0")["largest"]) == len(corpus.packages)


def test_media_section(corpus: Corpus) -> None:
    rows = {r["media"]: r for r in summary(corpus, "sizes")["media"]}
    pkgs = list(corpus.packages.values())
    for media, key in (("text", "text"), ("image", "images"), ("audio", "audio"),
                       ("video", "video")):
        row = rows[media]
        assert row["meta_size"] == sum(p["meta"]["size"][key] for p in pkgs)
        assert row["packages_with_size"] == sum(1 for p in pkgs if p["meta"]["size"][key] > 0)
        if media == "text":
            def has(s: dict) -> bool:
                return bool(s["payload"].get("text"))
        else:
            def has(s: dict, media: str = media) -> bool:
                return s["payload"].get("media", {}).get("type") == media
        per_pkg = [sum(1 for s in corpus.current_steps(p) if has(s)) for p in pkgs]
        assert row["steps"] == sum(per_pkg)
        assert row["packages_with_steps"] == sum(1 for n in per_pkg if n)
    assert rows["audio"]["background_steps"] == sum(
        1 for p in pkgs for s in corpus.current_steps(p)
        if s["payload"].get("backgroundMedia", {}).get("type") == "audio")


def test_size_histogram_and_media_per_package(corpus: Corpus) -> None:
    out = summary(corpus, "sizes", "--by", "type")
    sizes = sorted(corpus.size(p, "size_total") for p in corpus.packages.values())
    bins = out["size_histogram"]
    assert len(bins) == 20 and sum(b["packages"] for b in bins) == len(sizes)
    assert bins[0]["bin_start"] == sizes[0] and bins[-1]["bin_end"] == sizes[-1]
    width = (sizes[-1] - sizes[0]) / 20  # equal-width bins, the last one closed
    counts = [0] * 20
    for s in sizes:
        counts[min(math.floor((s - sizes[0]) / width), 19)] += 1
    assert [b["packages"] for b in bins] == counts
    want: dict[tuple[str, int], int] = defaultdict(int)
    for p in corpus.packages.values():
        steps = corpus.current_steps(p)
        for media in ("image", "audio", "video"):
            n = sum(1 for s in steps if (s["payload"].get("media") or {}).get("type") == media)
            want[(media, n)] += 1
    got = {(r["media"], r["steps"]): r["packages"] for r in out["media_per_package"]}
    assert got == dict(want)


def test_size_groups(corpus: Corpus) -> None:
    out = summary(corpus, "sizes", "--top", "0", "--by", "type", "--by", "category")
    assert set(out) == {"distribution", "size_histogram", "media_per_package", "largest",
                        "media", "by_type", "by_category"}
    want: dict[str, list[int]] = defaultdict(list)
    for p in corpus.packages.values():
        want[p["type"]].append(corpus.size(p, "size_total"))
    got = {r["type"]: r for r in out["by_type"]}
    assert set(got) == set(want)
    for t, sizes in want.items():
        assert got[t]["packages"] == len(sizes)
        assert got[t]["size_total"] == sum(sizes)
        assert got[t]["max"] == max(sizes)
        assert got[t]["p50"] == nearest_rank(sizes, 0.5)
    totals = [r["size_total"] for r in out["by_type"]]
    assert totals == sorted(totals, reverse=True)
    by_cat: dict[str | None, int] = defaultdict(int)
    for p in corpus.packages.values():
        for c in p["categories"] or [None]:
            by_cat[c["categoryId"] if c else None] += 1
    assert {r["category_id"]: r["packages"] for r in out["by_category"]} == by_cat


def test_starts(corpus: Corpus) -> None:
    out = summary(corpus, "starts", "--top", "3")
    pkgs = list(corpus.packages.values())
    starts = [p["meta"]["starts"] for p in pkgs]
    (totals,) = out["totals"]
    assert totals["packages"] == len(pkgs) and totals["starts"] == sum(starts)
    assert totals["p90"] == nearest_rank(starts, 0.9) and totals["max"] == max(starts)
    assert totals["packages_started"] == sum(1 for s in starts if s > 0)
    top = sorted(pkgs, key=lambda p: (-p["meta"]["starts"], p["id"]))[:3]
    assert [r["id"] for r in out["top"]] == [p["id"] for p in top]
    games_of = Counter(g["packageId"] for g in corpus.games.values())
    assert [r["games"] for r in out["top"]] == [games_of[p["id"]] for p in top]
    by_author: dict[str, int] = defaultdict(int)
    for p in pkgs:
        by_author[p["userId"]] += p["meta"]["starts"]
    best = sorted(by_author.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    assert [(r["user_id"], r["starts"]) for r in out["by_author"]] == best


def status(g: dict) -> str:
    if g["completedAt"] is not None:
        return "completed"
    return "stopped" if g["stoppedAt"] is not None else "open"


def test_games(corpus: Corpus) -> None:
    out = summary(corpus, "starts", "--top", "0")
    games = list(corpus.games.values())
    per_pkg = Counter(g["packageId"] for g in games)
    assert {r["package_id"]: r["games"] for r in out["games_per_package"]} == per_pkg
    per_version = Counter(g["versionId"] for g in games)
    assert {r["version_id"]: r["games"] for r in out["games_per_version"]} == per_version
    states = Counter(status(g) for g in games)
    got = {r["status"]: r for r in out["game_status"]}
    for s in ("completed", "stopped", "open"):
        assert got[s]["games"] == states[s]
        assert got[s]["percent"] == pytest.approx(100 * states[s] / len(games))
    durations = [sum(h["duration"] for h in g["history"]) for g in games if g["history"]]
    (everything,) = [r for r in out["game_durations"] if r["status"] == "all"]
    assert everything["games"] == len(games)
    assert everything["games_with_history"] == len(durations)
    assert everything["history_entries"] == sum(len(g["history"]) for g in games)
    assert everything["total_duration"] == pytest.approx(sum(durations))
    assert everything["p50"] == nearest_rank(durations, 0.5)
    assert everything["max"] == max(durations)


def test_overview(corpus: Corpus) -> None:
    out = summary(corpus, "overview")
    entities = {r["entity"]: r["rows"] for r in out["entities"]}
    assert entities["packages"] == len(corpus.packages)
    assert entities["games"] == len(corpus.games)
    assert entities["game_history"] == sum(len(g["history"]) for g in corpus.games.values())
    versions: dict[str, dict] = {}
    for p in corpus.packages.values():
        for v in p["versions"]:
            versions.setdefault(v["id"], v)
    for _, k, d in corpus.docs:
        if k in ("version", "version-list"):
            versions.setdefault(d["id"], d)
        elif k == "version-created":
            versions.setdefault(d["version"]["id"], d["version"])
    assert entities["versions"] == len(versions)
    states = {(r["entity"], r["state"]): r for r in out["states"]}
    published = sum(1 for v in versions.values() if v["published"] is True)
    deleted = sum(1 for v in versions.values() if v["deletedAt"] is not None)
    assert states[("versions", "published")]["count"] == published
    assert states[("versions", "deleted")]["count"] == deleted
    assert states[("versions", "deleted")]["percent"] == pytest.approx(
        100 * deleted / len(versions))
    assert 0 < published < len(versions)


def test_files_and_db_give_the_same_summary(corpus: Corpus) -> None:
    for name in ("sizes", "starts", "overview"):
        from_db = summary(corpus, name)
        from_files = summary(corpus, name, source="files")
        if name == "overview":  # the in-memory load has no findings, and loads no file twice
            from_db.pop("findings"), from_files.pop("findings")
        assert from_files == from_db, name


def test_output_formats(corpus: Corpus) -> None:
    runner = CliRunner()
    base = ["summary", "sizes", "--db", str(corpus.db), "--top", "4"]
    as_json = orjson.loads(runner.invoke(main, [*base, "--format", "json"]).stdout)
    one = runner.invoke(main, [*base, "--format", "csv", "--section", "largest"]).stdout
    rows = list(csv.DictReader(io.StringIO(one)))
    assert [r["id"] for r in rows] == [r["id"] for r in as_json["largest"]]
    assert [int(r["size_total"]) for r in rows] == [r["size_total"] for r in as_json["largest"]]
    every = runner.invoke(main, [*base, "--format", "csv"]).stdout
    assert [line for line in every.splitlines() if line.startswith("# ")] == [
        f"# {name}" for name in as_json]
    md = runner.invoke(main, [*base, "--format", "markdown"]).stdout
    assert "## Largest packages (top 4)" in md
    header = next(line for line in md.splitlines() if line.startswith("| id |"))
    assert header.count("|") == len(as_json["largest"][0]) + 1
    table = runner.invoke(main, [*base, "--format", "table"]).stdout
    first_id = as_json["largest"][0]["id"]
    assert any(line.startswith(first_id) for line in table.splitlines())


@pytest.mark.parametrize("args, message", [
    (["summary", "sizes"], "give export files to read, or --db FILE"),
    (["summary", "sizes", "x.json", "--db", "y.duckdb"], "not both"),
    (["summary", "sizes", "--db", "DB", "--section", "nope"], "no section 'nope'"),
    (["summary", "starts", "--db", "DB", "--by", "colour"], "Invalid value for '--by'"),
    (["summary", "overview", "--db", "missing.duckdb"], "no such database file"),
])
def test_usage_errors_exit_2(corpus: Corpus, args: list[str], message: str) -> None:
    args = [str(corpus.db) if a == "DB" else a for a in args]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_summary_through_python_dash_m(corpus: Corpus) -> None:
    proc = subprocess.run([sys.executable, "-m", "quizkit", "summary", "overview",
                           "--db", str(corpus.db), "--format", "json", "--section", "entities"],
                          capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr
    rows = orjson.loads(proc.stdout)  # one section: a bare list of rows
    assert {r["entity"]: r["rows"] for r in rows}["packages"] == 40
