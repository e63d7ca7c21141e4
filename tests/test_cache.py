"""The result cache through the CLI: where it lives, what it never does (write inside an
input, cache stdin, fail a run), and that a broken or shared cache still gives the report a
run without it gives."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import tracemalloc
from pathlib import Path

import pytest
from conftest import INVALID, SAMPLES, console_script

from quizkit.cache import pack as packfile

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


def packs(cache: Path) -> list[Path]:
    """The pack files of a cache directory (one per run key and input directory)."""
    return sorted(p for p in cache.glob("*/*") if not p.name.endswith(".tmp"))


def files(cache: Path) -> list[Path]:
    """Every file a cache directory holds, temporary files included."""
    return sorted(p for p in cache.rglob("*") if not p.is_dir())


def read_pack(path: Path) -> tuple[dict, dict[str, bytes]]:
    """A pack's index (without its entries) and its entries' bytes, by name."""
    data = path.read_bytes()
    _mark, length, _check = packfile.TRAILER.unpack(data[-packfile.TRAILER.size:])
    index = json.loads(data[-packfile.TRAILER.size - length:-packfile.TRAILER.size])
    blobs = {name: data[o:o + n] for name, (o, n, _c) in index.pop("entries").items()}
    return index, blobs


def write_pack(path: Path, index: dict, blobs: dict[str, bytes],
               checksums: dict[str, int] | None = None) -> None:
    """Write a pack of ``blobs`` (with their own checksums unless ``checksums`` says
    otherwise)."""
    out = bytearray()
    entries = {}
    for name, blob in blobs.items():
        check = (checksums or {}).get(name, packfile.checksum(blob))
        entries[name] = [len(out), len(blob), check]
        out += blob
    raw = json.dumps({**index, "entries": entries}).encode()
    path.write_bytes(bytes(out) + raw + packfile.TRAILER.pack(
        packfile.TRAILER_MAGIC, len(raw), packfile.checksum(raw)))


def unchanged(cwd: Path, *args: str) -> str:
    """What ``-v`` says of the result cache."""
    proc = quizkit("validate", "-v", *args, cwd=cwd)
    return [line for line in proc.stderr.decode().splitlines() if "result cache" in line][-1]


def test_the_default_cache_is_in_the_current_directory_and_ignored_by_git(tmp_path, data):
    uncached = report("--no-cache", str(data), cwd=tmp_path)
    assert not (tmp_path / ".quizkit_cache").exists()
    first = report(str(data), cwd=tmp_path)
    cache = tmp_path / ".quizkit_cache"
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172")
    assert len(packs(cache)) == 1  # one input directory
    assert len(read_pack(packs(cache)[0])[1]) == len(list(data.iterdir()))
    proc = quizkit("validate", "--format", "json", "-v", str(data), cwd=tmp_path)
    n = len(list(data.iterdir()))
    assert f"result cache: {n} of {n} files unchanged" in proc.stderr.decode()
    assert first == uncached == (proc.returncode, json.loads(proc.stdout), uncached[2])
    assert first[0] == 3 and first[1]["findings"]  # the inputs have findings of every sort
    assert any(f["code"].startswith("B") for f in first[1]["findings"])


def test_a_cold_run_creates_a_few_files_not_one_per_input(tmp_path):
    """The inputs of a directory share one pack: a cold run over 80 inputs in two
    directories leaves four files (two packs, .gitignore, CACHEDIR.TAG), whatever the
    number of inputs."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        for i in range(40):
            source = INPUTS[i % len(INPUTS)]
            shutil.copyfile(source, tmp_path / folder / f"{i:02d}-{source.name}")
    args = ("--cache-dir", str(tmp_path / "cache"), str(tmp_path / "a"), str(tmp_path / "b"))
    uncached = report("--no-cache", *args[2:], cwd=tmp_path)
    assert report(*args, cwd=tmp_path) == uncached
    assert len(files(tmp_path / "cache")) == 4, files(tmp_path / "cache")
    assert len(packs(tmp_path / "cache")) == 2
    assert unchanged(tmp_path, *args) == \
        f"result cache: 80 of 80 files unchanged since their last check, in {tmp_path / 'cache'}"


def test_checking_part_of_a_directory_keeps_the_others_entries(tmp_path, data):
    """A run over some inputs of a directory rewrites its pack with the entries of the
    others carried over: new entries, entries whose stat was refreshed, and the rest."""
    names = sorted(p.name for p in data.iterdir())
    n = len(names)
    cache = tmp_path / "cache"
    args = ("--cache-dir", str(cache))
    first, second = names[: n // 2], names[n // 2:]
    report(*args, *(str(data / name) for name in first), cwd=tmp_path)
    report(*args, *(str(data / name) for name in second), cwd=tmp_path)
    assert len(packs(cache)) == 1
    assert unchanged(tmp_path, *args, str(data)) == \
        f"result cache: {n} of {n} files unchanged since their last check, in {cache}"
    # One input's stat changes (not its bytes), another one's bytes: both are written again.
    touched, changed = data / first[0], data / second[0]
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns - 10**9))
    changed.write_bytes(changed.read_bytes() + b"\n")
    before = packs(cache)[0].stat().st_ino
    assert unchanged(tmp_path, *args, str(touched), str(changed)) == \
        f"result cache: 1 of 2 files unchanged since their last check, in {cache}"
    assert packs(cache)[0].stat().st_ino != before  # the pack was written again
    assert unchanged(tmp_path, *args, str(data)) == \
        f"result cache: {n} of {n} files unchanged since their last check, in {cache}"
    assert report(*args, str(data), cwd=tmp_path) == report("--no-cache", str(data),
                                                            cwd=tmp_path)


def test_cache_dir_env_and_config_move_the_cache_in_this_order(tmp_path, data):
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "quizkit.toml").write_text('cache-dir = "from-config"\n')
    args = ("--config", str(tmp_path / "conf" / "quizkit.toml"), str(data))
    report(*args, cwd=tmp_path)
    assert packs(tmp_path / "conf" / "from-config")  # relative to the config file
    report(*args, cwd=tmp_path, env={"QUIZKIT_CACHE_DIR": str(tmp_path / "from-env")})
    assert packs(tmp_path / "from-env")
    report("--cache-dir", "from-flag", *args, cwd=tmp_path,
           env={"QUIZKIT_CACHE_DIR": str(tmp_path / "unused")})
    assert packs(tmp_path / "from-flag") and not (tmp_path / "unused").exists()
    assert not (tmp_path / ".quizkit_cache").exists()


def test_no_cache_neither_reads_nor_writes(tmp_path, data):
    report(str(data), cwd=tmp_path)
    cache = tmp_path / ".quizkit_cache"
    for found in packs(cache):
        found.write_bytes(b"not a pack")
    proc = quizkit("validate", "--no-cache", str(data), cwd=tmp_path)
    assert proc.returncode == 3
    assert {p.read_bytes() for p in packs(cache)} == {b"not a pack"}


def test_a_corrupt_or_foreign_pack_is_a_miss_and_is_replaced(tmp_path, data):
    uncached = report("--no-cache", str(data), cwd=tmp_path)
    n = len(list(data.iterdir()))
    cache = tmp_path / "cache"
    report("--cache-dir", str(cache), str(data), cwd=tmp_path)
    [target] = packs(cache)
    good = target.read_bytes()
    # The same directory's pack for another run key, and another directory's pack.
    report("--cache-dir", str(tmp_path / "other-key"), "--max-depth", "77", str(data),
           cwd=tmp_path)
    [other_key] = packs(tmp_path / "other-key")
    assert other_key.name == target.name and other_key.parent.name != target.parent.name
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(data, elsewhere)
    report("--cache-dir", str(tmp_path / "other-dir"), str(elsewhere), cwd=tmp_path)
    [other_dir] = packs(tmp_path / "other-dir")
    index, blobs = read_pack(target)
    wrong_shapes = [raw + packfile.TRAILER.pack(packfile.TRAILER_MAGIC, len(raw),
                                                packfile.checksum(raw))
                    for raw in (b"[]", json.dumps({**index, "entries": []}).encode(),
                                json.dumps({**index, "entries": {"x": [0, 5, 0]}}).encode())]
    breakages = [
        good[: len(good) // 2],  # cut short
        good[:-1],  # the trailer cut
        b"",
        b"\x00\xff" * 40,  # no pack
        good[:-30] + b"x" + good[-29:],  # the index changed behind its checksum
        *wrong_shapes,  # an index of another shape, or an entry outside the blobs
        other_key.read_bytes(),  # another run's
        other_dir.read_bytes(),  # another directory's
    ]
    for broken in breakages:
        target.write_bytes(broken)
        assert report("--cache-dir", str(cache), str(data), cwd=tmp_path) == uncached
        assert unchanged(tmp_path, "--cache-dir", str(cache), str(data)) == \
            f"result cache: {n} of {n} files unchanged since their last check, in {cache}"
    assert read_pack(target)[0] == index and read_pack(target)[1].keys() == blobs.keys()


def test_a_corrupt_or_foreign_entry_is_a_miss_and_is_replaced(tmp_path, data):
    uncached = report("--no-cache", str(data), cwd=tmp_path)
    report(str(data), cwd=tmp_path)
    [target] = packs(tmp_path / ".quizkit_cache")
    index, blobs = read_pack(target)
    names = sorted(blobs)
    breakages = [
        lambda b: b[: len(b) // 2],  # cut short
        lambda b: b"\x00\xff" * 40,  # not JSON
        lambda b: b"[]",  # JSON of another shape
        lambda b: b.replace(b'"findings":[', b'"findings":[[1,2],', 1),  # a bad finding
        lambda b: b.replace(b'"result":["', b'"result":[7,"', 1),  # a bad result
        lambda b: b.replace(b'"Content"', b'"Unknown"'),  # a fact of no known type
        lambda b: b.replace(b'"stamp":[', b'"stamp":["x",', 1),  # a bad stamp
        lambda b: b.replace(b'"magic":"', b'"magic":"x', 1),  # not this cache's
    ]
    broken, checksums = {}, {}
    for breakage in breakages:  # each on an entry it changes
        name = next(n for n in names if n not in broken and breakage(blobs[n]) != blobs[n])
        broken[name] = breakage(blobs[name])
    rest = [name for name in names if name not in broken]
    broken[rest[0]] = blobs[rest[0]].replace(b'"display":"', b'"display":"x', 1)
    checksums[rest[0]] = packfile.checksum(blobs[rest[0]])  # changed behind its checksum
    for name in rest[1:]:  # another input's entry (as if the names were swapped)
        broken[name] = blobs[names[(names.index(name) + 1) % len(names)]]
    assert all(broken[name] != blobs[name] for name in names)
    write_pack(target, index, broken, checksums)
    assert report(str(data), cwd=tmp_path) == uncached
    n = len(list(data.iterdir()))
    assert f"result cache: {n} of {n} files unchanged" in unchanged(tmp_path, str(data))


def test_a_pack_that_is_a_link_is_replaced_never_written_through(tmp_path, data):
    """A cache directory can be shared: a pack that is a link to a file elsewhere (a user's
    file, or a sound pack) is a miss, and the run's pack replaces the link itself; the file
    it pointed to is left as it was."""
    uncached = report("--no-cache", str(data), cwd=tmp_path)
    report(str(data), cwd=tmp_path)
    [target] = packs(tmp_path / ".quizkit_cache")
    sound = tmp_path / "sound-pack"
    shutil.copyfile(target, sound)
    precious = tmp_path / "precious.txt"
    precious.write_text("a user's file")
    n = len(list(data.iterdir()))
    for pointed in (precious, sound):
        kept = pointed.read_bytes()
        target.unlink()
        target.symlink_to(pointed)
        assert unchanged(tmp_path, str(data)).startswith(f"result cache: 0 of {n} files")
        assert pointed.read_bytes() == kept
        assert not target.is_symlink() and target.is_file()
    assert report(str(data), cwd=tmp_path) == uncached


def test_a_pack_that_is_a_fifo_or_a_device_is_a_miss_not_a_hang(tmp_path, data):
    """A FIFO or a link to a device at a pack's name (a shared cache directory may hold
    anything) is a miss: the run neither blocks on it nor reads without end."""
    uncached = report("--no-cache", str(data), cwd=tmp_path)
    report(str(data), cwd=tmp_path)
    [target] = packs(tmp_path / ".quizkit_cache")
    for plant in (os.mkfifo, lambda p: p.symlink_to("/dev/zero")):
        target.unlink()
        plant(target)
        assert report(str(data), cwd=tmp_path) == uncached  # the timeout catches a hang
        assert target.is_file() and not target.is_symlink()


def test_a_cache_that_cannot_be_written_is_one_warning(tmp_path, data):
    uncached = report("--no-cache", str(data), cwd=tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    code, findings, stderr = report("--cache-dir", str(blocker), str(data), cwd=tmp_path)
    assert (code, findings) == uncached[:2]
    warnings = [line for line in stderr.splitlines() if "cache" in line]
    assert len(warnings) == 1 and "cannot write the result cache" in warnings[0], stderr
    assert blocker.read_text() == "not a directory"
    # A run key's folder that cannot be made (a file at its name): the same, and nothing
    # written or left behind.
    cache = tmp_path / "cache"
    report("--cache-dir", str(cache), str(data), cwd=tmp_path)
    [target] = packs(cache)
    shutil.rmtree(target.parent)
    target.parent.write_text("not a folder")
    code, findings, stderr = report("--cache-dir", str(cache), str(data), cwd=tmp_path)
    assert (code, findings) == uncached[:2]
    warnings = [line for line in stderr.splitlines() if "cache" in line]
    assert len(warnings) == 1 and "cannot write the result cache" in warnings[0], stderr
    assert files(cache) == sorted([cache / ".gitignore", cache / "CACHEDIR.TAG", target.parent])
    assert target.parent.read_text() == "not a folder"


def test_the_cache_is_never_written_inside_an_input_directory(tmp_path, data):
    uncached = report("--no-cache", ".", cwd=data)
    xdg = tmp_path / "xdg"
    before = sorted(p.name for p in data.iterdir())
    # The default place would be inside the input: the user's cache directory is used.
    assert report(".", cwd=data, env={"XDG_CACHE_HOME": str(xdg)}) == uncached
    assert packs(xdg / "quizkit")
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
    assert not packs(cache)


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
        [target] = packs(cache)
        index, blobs = read_pack(target)
        write_pack(target, index, {name: blob.replace(b'"stamp":[', b'"stamp":[0,', 1)
                                   for name, blob in blobs.items()})
    assert report("--cache-dir", str(cache), str(data), cwd=tmp_path) == uncached
    n = len(list(data.iterdir()))
    assert f"result cache: {n} of {n} files unchanged" in \
        unchanged(tmp_path, "--cache-dir", str(cache), str(data))
    assert not [p for p in cache.rglob("*.tmp")]


def test_an_interrupted_run_leaves_no_temporary_file_and_a_cache_to_read(tmp_path, data):
    """A run stopped (SIGINT) while a pack is being written removes its temporary file; the
    packs it finished before, and the ones it did not reach, are read by the next run."""
    later = tmp_path / "later"
    shutil.copytree(data, later)
    cache, marker = tmp_path / "cache", tmp_path / "paused"
    report("--cache-dir", str(cache), str(data), cwd=tmp_path)
    [first] = packs(cache)
    kept = first.read_bytes()
    env = {k: v for k, v in os.environ.items() if k != "QUIZKIT_CACHE_DIR"}
    proc = subprocess.Popen(
        [console_script(), "validate", "--jobs", "1", "--cache-dir", str(cache), str(data),
         str(later)], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**env, "CI": "true", "QUIZKIT_PAUSE_AT": f"cache-pack:{marker}"})
    try:
        while not marker.exists() and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert len([p for p in cache.rglob("*.tmp")]) == 1  # a pack under way
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert files(cache) == sorted([cache / ".gitignore", cache / "CACHEDIR.TAG", first])
    assert first.read_bytes() == kept
    n = len(list(data.iterdir()))
    args = ("--cache-dir", str(cache), str(data), str(later))
    assert unchanged(tmp_path, *args).startswith(f"result cache: {n} of {2 * n} files")
    assert unchanged(tmp_path, *args).startswith(f"result cache: {2 * n} of {2 * n} files")


def test_the_pack_writer_holds_the_index_not_the_entries(tmp_path):
    """Entries go to the temporary file as they come: the writer's memory grows with the
    number of entries (its index), not with their bytes."""
    tracemalloc.start()
    try:
        writer = packfile.PackWriter(str(tmp_path / "pack"))
        blob = b"x" * (1 << 16)
        base = tracemalloc.get_traced_memory()[0]
        for i in range(1024):  # 64 MB of entries
            writer.add(f"entry-{i}", blob)
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    # At most its buffer, and a few hundred bytes of index an entry: not 64 MB.
    assert writer.size == 64 << 20 and held < packfile.BUFFER + 1024 * 400, held
    writer.seal(None, {"magic": "m", "run": "r", "pack": "p"})
    writer.commit()
    reader = packfile.PackReader.open(str(tmp_path / "pack"), "r", "p", "m")
    assert len(reader.entries) == 1024 and reader.get("entry-1023") == blob
    reader.close()


def test_packs_finished_early_keep_every_entry(tmp_path, monkeypatch):
    """Beyond the packs a run may write at once, the oldest is finished early and a later
    entry of it starts a new one from it: every entry is kept."""
    from quizkit.cache import store
    from quizkit.checks import engine
    from quizkit.checks.runner import expand_paths

    paths = []
    for i in range(4):
        for folder in "abc":
            (tmp_path / folder).mkdir(exist_ok=True)
            name = INPUTS[i % len(INPUTS)]
            shutil.copyfile(name, tmp_path / folder / name.name)
            paths.append(str(tmp_path / folder / name.name))  # the directories in turns
    sources = expand_paths(paths, ())
    assert [os.path.dirname(s.path)[-1] for s in sources][:3] == ["a", "b", "c"]
    monkeypatch.setattr(store, "MAX_WRITERS", 1)
    warnings: list[str] = []
    for expected_hits in (0, len(paths)):
        cache = store.ResultCache(tmp_path / "cache", warnings.append)
        engine.run(sources, engine.Options(), jobs=1, cache=cache)
        assert cache.counts["hit"] == expected_hits
    assert not warnings and len(packs(tmp_path / "cache")) == 3
    assert not [p for p in (tmp_path / "cache").rglob("*.tmp")]


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
    [found] = packs(tmp_path / "cache")
    assert len(read_pack(found)[1]) == len(list(data.iterdir()))
    assert not (tmp_path / ".quizkit_cache").exists()


def test_the_api_caches_only_when_asked(tmp_path, data, monkeypatch):
    from quizkit import api

    monkeypatch.chdir(tmp_path)
    plain = api.validate([str(data)], config=False, jobs=1)
    assert not (tmp_path / ".quizkit_cache").exists()
    for _ in range(2):
        cached = api.validate([str(data)], config=False, jobs=1, cache_dir="api-cache")
        assert [f.to_dict() for f in cached.findings] == [f.to_dict() for f in plain.findings]
    [found] = packs(tmp_path / "api-cache")
    assert len(read_pack(found)[1]) == len(list(data.iterdir()))
    api.validate([str(data)], config={"cache-dir": "other"}, jobs=1, cache=False)
    assert not (tmp_path / "other").exists()
