"""The result cache through the CLI: where it lives, what it never does (write inside an
input, cache stdin, fail a run), and that a broken or shared cache still gives the report a
run without it gives."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import INVALID, SAMPLES, console_script

#: Inputs with findings, cross-file facts and several kinds.
INPUTS = [SAMPLES / "game.json", SAMPLES / "games.jsonl", SAMPLES / "banners.jsonl",
          SAMPLES / "user-self.json", SAMPLES / "version.json",
          INVALID / "package-truncated.json", INVALID / "banners-broken-line.jsonl",
          INVALID / "version-negative-price.json", INVALID / "user-without-pkgcount.json"]


def quizkit(*args: str, cwd: Path, env: dict | None = None,
            input: bytes | None = None) -> subprocess.CompletedProcess:
    """The console script in ``cwd``, with no cache directory set in the environment unless
    ``env`` sets one."""
    full = {k: v for k, v in os.environ.items() if k != "QUIZKIT_CACHE_DIR"}
    full.update({"CI": "true", **(env or {})})
    return subprocess.run([console_script(), *args], cwd=cwd, env=full, input=input,
                          capture_output=True, timeout=300)


def report(*args: str, cwd: Path, env: dict | None = None) -> tuple[int, dict, str]:
    proc = quizkit("validate", "--format", "json", *args, cwd=cwd, env=env)
    return proc.returncode, json.loads(proc.stdout), proc.stderr.decode()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A directory of inputs, with a second copy of one package's version (cross-file)."""
    folder = tmp_path / "data"
    folder.mkdir()
    for path in INPUTS:
        shutil.copyfile(path, folder / path.name)
    shutil.copyfile(SAMPLES / "version.json", folder / "version-copy.json")
    return folder


def entries(cache: Path) -> list[Path]:
    """The entry files of a cache directory."""
    return [p for p in cache.rglob("*") if p.is_file() and p.parent.parent.parent == cache]


def test_the_default_cache_is_in_the_current_directory_and_ignored_by_git(tmp_path, data):
    uncached = report("--no-cache", str(data), cwd=tmp_path)
    assert not (tmp_path / ".quizkit_cache").exists()
    first = report(str(data), cwd=tmp_path)
    cache = tmp_path / ".quizkit_cache"
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172")
    assert len(entries(cache)) == len(list(data.iterdir()))
    proc = quizkit("validate", "--format", "json", "-v", str(data), cwd=tmp_path)
    n = len(list(data.iterdir()))
    assert f"result cache: {n} of {n} files unchanged" in proc.stderr.decode()
    assert first == uncached == (proc.returncode, json.loads(proc.stdout), uncached[2])
    assert first[0] == 3 and first[1]["findings"]  # the inputs have findings of every sort
    assert any(f["code"].startswith("B") for f in first[1]["findings"])


def test_cache_dir_env_and_config_move_the_cache_in_this_order(tmp_path, data):
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "quizkit.toml").write_text('cache-dir = "from-config"\n')
    args = ("--config", str(tmp_path / "conf" / "quizkit.toml"), str(data))
    report(*args, cwd=tmp_path)
    assert entries(tmp_path / "conf" / "from-config")  # relative to the config file
    report(*args, cwd=tmp_path, env={"QUIZKIT_CACHE_DIR": str(tmp_path / "from-env")})
    assert entries(tmp_path / "from-env")
    report("--cache-dir", "from-flag", *args, cwd=tmp_path,
           env={"QUIZKIT_CACHE_DIR": str(tmp_path / "unused")})
    assert entries(tmp_path / "from-flag") and not (tmp_path / "unused").exists()
    assert not (tmp_path / ".quizkit_cache").exists()


def test_no_cache_neither_reads_nor_writes(tmp_path, data):
    report(str(data), cwd=tmp_path)
    cache = tmp_path / ".quizkit_cache"
    for entry in entries(cache):
        entry.write_bytes(b"not an entry")
    proc = quizkit("validate", "--no-cache", str(data), cwd=tmp_path)
    assert proc.returncode == 3
    assert {e.read_bytes() for e in entries(cache)} == {b"not an entry"}


def test_a_corrupt_or_foreign_entry_is_a_miss_and_is_replaced(tmp_path, data):
    uncached = report("--no-cache", str(data), cwd=tmp_path)
    report(str(data), cwd=tmp_path)
    cache = tmp_path / ".quizkit_cache"
    found = sorted(entries(cache))
    others = [e.read_bytes() for e in found]
    breakages = [
        lambda b: b[: len(b) // 2],  # cut short
        lambda b: b"\x00\xff" * 40,  # not JSON
        lambda b: b"[]",  # JSON of another shape
        lambda b: b.replace(b'"findings":[', b'"findings":[[1,2],', 1),  # a bad finding
        lambda b: b.replace(b'"result":["', b'"result":[7,"', 1),  # a bad result
        lambda b: b.replace(b'"Content"', b'"Unknown"'),  # a fact of no known type
        lambda b: b.replace(b'"stamp":[', b'"stamp":["x",', 1),  # a bad stamp
    ]
    for i, entry in enumerate(found):
        if i < len(breakages):
            entry.write_bytes(breakages[i](entry.read_bytes()))
        else:  # another input's entry (as if the names were swapped)
            entry.write_bytes(others[(i + 1) % len(others)])
    assert report(str(data), cwd=tmp_path) == uncached
    proc = quizkit("validate", "-v", str(data), cwd=tmp_path)
    n = len(list(data.iterdir()))
    assert f"result cache: {n} of {n} files unchanged" in proc.stderr.decode()


def test_an_entry_that_is_a_link_is_replaced_never_written_through(tmp_path, data):
    """A cache directory can be shared: an entry that is a link to a file elsewhere (a
    user's file) is a miss, and the run's entry replaces the link itself; the file it
    pointed to is left as it was."""
    uncached = report("--no-cache", str(data), cwd=tmp_path)
    report(str(data), cwd=tmp_path)
    precious = tmp_path / "precious.txt"
    precious.write_text("a user's file")
    linked = sorted(entries(tmp_path / ".quizkit_cache"))
    for entry in linked:
        entry.unlink()
        entry.symlink_to(precious)
    assert report(str(data), cwd=tmp_path) == uncached
    assert precious.read_text() == "a user's file"
    assert not any(entry.is_symlink() for entry in linked)
    assert all(entry.is_file() for entry in linked)


def test_an_entry_that_is_a_fifo_or_a_device_is_a_miss_not_a_hang(tmp_path, data):
    """A FIFO or a link to a device at an entry's name (a shared cache directory may hold
    anything) is a miss: the run neither blocks on it nor reads without end."""
    uncached = report("--no-cache", str(data), cwd=tmp_path)
    report(str(data), cwd=tmp_path)
    found = sorted(entries(tmp_path / ".quizkit_cache"))
    for i, entry in enumerate(found):
        entry.unlink()
        if i % 2:
            os.mkfifo(entry)
        else:
            entry.symlink_to("/dev/zero")
    assert report(str(data), cwd=tmp_path) == uncached  # the helper's timeout catches a hang


def test_a_cache_that_cannot_be_written_is_one_warning(tmp_path, data):
    uncached = report("--no-cache", str(data), cwd=tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    code, findings, stderr = report("--cache-dir", str(blocker), str(data), cwd=tmp_path)
    assert (code, findings) == uncached[:2]
    warnings = [line for line in stderr.splitlines() if "cache" in line]
    assert len(warnings) == 1 and "cannot write the result cache" in warnings[0], stderr
    assert blocker.read_text() == "not a directory"


def test_the_cache_is_never_written_inside_an_input_directory(tmp_path, data):
    uncached = report("--no-cache", ".", cwd=data)
    xdg = tmp_path / "xdg"
    before = sorted(p.name for p in data.iterdir())
    # The default place would be inside the input: the user's cache directory is used.
    assert report(".", cwd=data, env={"XDG_CACHE_HOME": str(xdg)}) == uncached
    assert entries(xdg / "quizkit")
    assert sorted(p.name for p in data.iterdir()) == before
    # A cache directory named inside an input: no cache, one warning.
    code, findings, stderr = report("--cache-dir", str(data / "cache"), str(data),
                                    cwd=tmp_path)
    assert (code, findings) == report("--no-cache", str(data), cwd=tmp_path)[:2]
    assert "is inside the input directory" in stderr and len(stderr.splitlines()) == 1
    assert sorted(p.name for p in data.iterdir()) == before


def test_stdin_is_not_cached(tmp_path):
    cache = tmp_path / "cache"
    sample = (INVALID / "version-negative-price.json").read_bytes()
    for _ in range(2):
        proc = quizkit("validate", "--cache-dir", str(cache), "-", cwd=tmp_path, input=sample)
        assert proc.returncode == 1
    assert not entries(cache)


def test_concurrent_runs_sharing_a_cache(tmp_path, data):
    for i in range(12):  # more files, so that the runs overlap while writing
        shutil.copyfile(SAMPLES / "game.json", data / f"game-{i}.json")
    uncached = report("--no-cache", str(data), cwd=tmp_path)
    cache = tmp_path / "shared"
    command = [console_script(), "validate", "--format", "json", "--jobs", "1",
               "--cache-dir", str(cache), str(data)]
    for _ in range(2):  # cold, then with every entry rewritten at once by both runs
        procs = [subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE) for _ in range(2)]
        outs = [p.communicate(timeout=300) for p in procs]
        for proc, (out, err) in zip(procs, outs, strict=True):
            assert (proc.returncode, json.loads(out), err.decode()) == uncached
        for entry in entries(cache):
            entry.write_bytes(entry.read_bytes().replace(b'"stamp":[', b'"stamp":[0,', 1))
    assert report("--cache-dir", str(cache), str(data), cwd=tmp_path) == uncached
    assert not [p for p in cache.rglob("*.tmp")]


def test_load_takes_its_findings_from_the_cache_the_configuration_names(tmp_path, data):
    (tmp_path / "cached.toml").write_text('cache-dir = "cache"\n')
    (tmp_path / "plain.toml").write_text("")
    query = "SELECT file, record, pointer, line, col, rule, message FROM findings ORDER BY ALL"
    tables = []
    for config, db in (("plain.toml", "plain.duckdb"), ("cached.toml", "cold.duckdb"),
                       ("cached.toml", "warm.duckdb")):
        proc = quizkit("load", "--config", config, str(data), "--db", db, cwd=tmp_path)
        assert proc.returncode == 3, proc.stderr  # an input cannot be parsed
        out = quizkit("query", "--db", db, query, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        tables.append(out.stdout)
    assert tables[0] == tables[1] == tables[2] and b"conflicting-duplicate" in tables[0]
    assert len(entries(tmp_path / "cache")) == len(list(data.iterdir()))
    assert not (tmp_path / ".quizkit_cache").exists()


def test_the_api_caches_only_when_asked(tmp_path, data, monkeypatch):
    from quizkit import api

    monkeypatch.chdir(tmp_path)
    plain = api.validate([str(data)], config=False, jobs=1)
    assert not (tmp_path / ".quizkit_cache").exists()
    for _ in range(2):
        cached = api.validate([str(data)], config=False, jobs=1, cache_dir="api-cache")
        assert [f.to_dict() for f in cached.findings] == [f.to_dict() for f in plain.findings]
    assert len(entries(tmp_path / "api-cache")) == len(list(data.iterdir()))
    api.validate([str(data)], config={"cache-dir": "other"}, jobs=1, cache=False)
    assert not (tmp_path / "other").exists()
