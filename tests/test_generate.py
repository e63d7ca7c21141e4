"""The corpus generator: deterministic, counted, broken exactly as its manifest says, and
otherwise valid and referentially consistent (checked with the independent checker of
``test_samples.py``, not with the generator's own code)."""

from __future__ import annotations

import gzip
import importlib.util
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from quizkit.cli import main
from quizkit.commands.samples import samples
from quizkit.generate import MANIFEST, generate_corpus

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
_spec = importlib.util.spec_from_file_location("samples_checker", HERE / "test_samples.py")
assert _spec is not None and _spec.loader is not None
checker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(checker)

SCHEMA_WORDS = {"wrong-type": "expected|null", "missing-field": "missing",
                "unknown-field": "unknown", "invalid-format": "date-time",
                "out-of-range": "non-negative"}


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def raw_text(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def records(path: Path) -> list[bytes]:
    """The documents of a file: one, or one per line for JSON Lines."""
    data = raw_text(path)
    return data.splitlines() if ".jsonl" in path.name else [data]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("corpus")
    generate_corpus(out, packages=30, seed=11, broken=0.25, gzip_share=0.2, workers=1)
    return out, orjson.loads((out / MANIFEST).read_bytes())


def test_same_seed_same_bytes_any_workers(tmp_path: Path) -> None:
    generate_corpus(tmp_path / "a", packages=12, seed=5, broken=0.2, gzip_share=0.3, workers=1)
    generate_corpus(tmp_path / "b", packages=12, seed=5, broken=0.2, gzip_share=0.3, workers=2)
    a, b = tree(tmp_path / "a"), tree(tmp_path / "b")
    assert len(a) > 30
    assert a == b


def test_different_seed_different_corpus(tmp_path: Path) -> None:
    generate_corpus(tmp_path / "a", packages=5, seed=1)
    generate_corpus(tmp_path / "b", packages=5, seed=2)
    a, b = tree(tmp_path / "a"), tree(tmp_path / "b")
    assert set(a) != set(b)  # ids, hence file names, differ
    assert sorted(a.values()) != sorted(b.values())


def test_counts_match_manifest(corpus: tuple[Path, dict]) -> None:
    out, manifest = corpus
    on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    listed = [f["file"] for f in manifest["files"]]
    assert len(listed) == len(set(listed))
    assert on_disk - {MANIFEST} == set(listed)
    kinds = Counter(f["kind"] for f in manifest["files"])
    assert kinds["package-full"] == 30 == manifest["packages"]
    assert kinds == Counter(manifest["kinds"])
    assert manifest["documents"] == sum(manifest["kinds"].values()) == len(listed)
    assert set(kinds) == set(checker.SPECS)  # every kind appears
    assert any(name.endswith(".gz") for name in listed)


def test_valid_documents_are_consistent(corpus: tuple[Path, dict]) -> None:
    out, manifest = corpus
    broken = {c["file"] for c in manifest["cases"]}
    checked = 0
    for entry in manifest["files"]:
        if entry["file"] in broken:
            continue
        for record in records(out / entry["file"]):
            assert checker.problems(entry["kind"], orjson.loads(record)) == [], entry["file"]
            checked += 1
    assert checked > 60


def test_package_sizes_are_realistic(corpus: tuple[Path, dict]) -> None:
    out, manifest = corpus
    sizes = [len(raw_text(out / f["file"])) for f in manifest["files"]
             if f["kind"] == "package-full"]
    assert 80_000 < sum(sizes) / len(sizes) < 250_000
    assert max(sizes) > 2 * min(sizes)  # varied


def _assert_case(case: dict[str, Any], record: bytes) -> None:
    if case["rule"] == "invalid-json":
        with pytest.raises(orjson.JSONDecodeError):
            orjson.loads(record)
        return
    doc = orjson.loads(record)
    found = checker.problems(case["kind"], doc)
    pointer = case["pointer"]
    if case["rule"] in SCHEMA_WORDS:
        assert len(found) == 1, (case, found)
        assert found[0].startswith(f"{pointer}: "), (case, found)
        assert re.search(SCHEMA_WORDS[case["rule"]], found[0]), (case, found)
    elif case["rule"] == "dangling-reference":
        assert found == [f"{pointer}: dangling"], (case, found)
    elif case["rule"] == "duplicate-id":
        node: Any = doc
        for part in pointer.split("/")[1:]:
            node = node[int(part)] if isinstance(node, list) else node[part]
        assert found == [f"duplicate ids: [{node!r}]"], (case, found)
    else:
        pytest.fail(f"unexpected rule {case['rule']}")


def test_broken_documents_have_exactly_their_defect(corpus: tuple[Path, dict]) -> None:
    out, manifest = corpus
    cases = manifest["cases"]
    share = len(cases) / manifest["documents"]
    assert 0.12 < share < 0.4  # 25% requested; binomial spread over ~100 documents
    assert len({c["file"] for c in cases}) == len(cases)  # one defect per document
    for case in cases:
        _assert_case(case, records(out / case["file"])[0])
    assert len({c["rule"] for c in cases}) >= 5


def test_no_broken_documents_without_broken(tmp_path: Path) -> None:
    generate_corpus(tmp_path, packages=6, seed=3)
    assert orjson.loads((tmp_path / MANIFEST).read_bytes())["cases"] == []


def test_jsonl_batches(tmp_path: Path) -> None:
    generate_corpus(tmp_path, packages=20, seed=4, broken=0.3, jsonl=True, workers=1)
    manifest = orjson.loads((tmp_path / MANIFEST).read_bytes())
    batches = [f for f in manifest["files"] if f["file"].startswith("batches/")]
    assert {f["file"].split("/")[1].split("-")[0] for f in batches} == {"games", "users",
                                                                          "banners"}
    for f in batches:
        lines = records(tmp_path / f["file"])
        assert len(lines) == f["records"]
    line_cases = [c for c in manifest["cases"] if "record" in c]
    assert line_cases
    for case in line_cases:
        _assert_case(case, records(tmp_path / case["file"])[case["record"] - 1])


def test_cli_group_writes_and_refuses_non_empty_dir(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["generate", "--packages", "4", "--seed", "9", "--out", str(tmp_path / "c")]
    result = runner.invoke(samples, args)
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and "MB" in result.output
    assert (tmp_path / "c" / MANIFEST).exists()
    again = runner.invoke(samples, args)
    assert again.exit_code == 2 and "not empty" in again.output
    forced = runner.invoke(samples, [*args, "--force", "--broken", "0.5"])
    assert forced.exit_code == 0, forced.output


def _run(argv: list[str], hashseed: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": hashseed,
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_subprocess_output_independent_of_hash_seed(tmp_path: Path) -> None:
    """A real process per run; PYTHONHASHSEED differs, bytes do not."""
    code = "from quizkit.commands.samples import samples; samples()"
    for name, hashseed in (("a", "1"), ("b", "2")):
        args = ["-c", code, "generate", "--packages", "5", "--seed", "3", "--broken", "0.3",
                "--out", str(tmp_path / name)]
        proc = _run(args, hashseed)
        assert proc.returncode == 0, proc.stderr
    assert tree(tmp_path / "a") == tree(tmp_path / "b")


def test_python_m_quizkit_samples_generate(tmp_path: Path) -> None:
    proc = _run(["-m", "quizkit", "samples", "generate", "--packages", "3", "--out",
                 str(tmp_path)], "0")
    assert proc.returncode == 0, proc.stderr
    assert "wrote" in proc.stdout
    result = CliRunner().invoke(main, ["samples", "generate", "--packages", "2", "--out",
                                       str(tmp_path / "runner")])
    assert result.exit_code == 0, result.output


def test_clean_corpus_validates_without_warnings_through_the_cli(tmp_path: Path) -> None:
    """``--broken 0``: no errors or warnings, and the manifest is not taken for a document."""
    runner = CliRunner()
    out = tmp_path / "c"
    made = runner.invoke(main, ["samples", "generate", "--packages", "60", "--seed", "3",
                                "--out", str(out), "--broken", "0", "--workers", "1"])
    assert made.exit_code == 0, made.output
    assert (out / MANIFEST).exists() and not (out / "manifest.json").exists()
    result = runner.invoke(main, ["validate", str(out), "--format", "jsonl"])
    findings = [orjson.loads(line) for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 0, result.output
    assert [f for f in findings if f["severity"] != "info"] == []
    # infos only by design: a version written both in a version list and on its own
    assert {f["rule"] for f in findings} <= {"identical-duplicate"}
    assert all(f["path"].startswith(str(out / "versions")) for f in findings)


def _documents(root: Path) -> list[Any]:
    """Every document of a corpus, parsed, in a stable order."""
    docs: list[Any] = []
    for path in sorted(root.rglob("*.json*")):
        if path.name == MANIFEST:
            continue
        if path.suffix == ".jsonl":
            docs += [orjson.loads(line) for line in records(path)]
        else:
            docs.append(orjson.loads(path.read_bytes()))
    return sorted(docs, key=orjson.dumps)


def test_three_shapes_of_one_corpus(tmp_path: Path) -> None:
    """Indented files, compact files and one JSON Lines file hold the same documents."""
    shapes = {}
    for shape in ("indented", "compact", "lines"):
        result = CliRunner().invoke(samples, ["generate", "--packages", "6", "--seed", "5",
                                              "--shape", shape, "--out", str(tmp_path / shape)])
        assert result.exit_code == 0, result.output
        shapes[shape] = tmp_path / shape
    lines = list((shapes["lines"]).rglob("*.jsonl"))
    assert [p.name for p in lines] == ["documents-0001.jsonl"]
    assert not [p for p in shapes["lines"].rglob("*.json") if p.name != MANIFEST]
    compact = [p for p in shapes["compact"].rglob("*.json")]
    assert compact and all(p.read_bytes().count(b"\n") == 1 for p in compact)
    indented = [p for p in shapes["indented"].rglob("*.json")]
    assert all(p.read_bytes()[1:2] == b"\n" for p in indented)
    assert _documents(shapes["indented"]) == _documents(shapes["compact"]) == \
        _documents(shapes["lines"])
