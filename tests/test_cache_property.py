"""The result cache changes nothing but speed: after any sequence of edits (a file changed,
also behind the same size and modification time; a record copied under another file name;
the configuration, the enum profile or the rule selection changed), a run with the cache
reports exactly what a run without it reports."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from conftest import INVALID, SAMPLES, cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: Small inputs of several kinds, valid and not (cross-file facts among them).
POOL = [SAMPLES / "game.json", SAMPLES / "banners.jsonl", SAMPLES / "user-self.json",
        SAMPLES / "banner.json", INVALID / "user-without-pkgcount.json",
        INVALID / "banner-updated-date-only.json", INVALID / "banners-broken-line.jsonl",
        INVALID / "version-negative-price.json"]
SLOTS = 4
CONFIGS = ["", 'select = ["S"]\n', 'ignore = ["R"]\n', '[severity]\nunknown-enum-value = "info"\n',
           'fail-on = "info"\n']
PROFILES = ["", '[enums]\nbannerSlot = ["a"]\n', '[enums]\nmediaType = ["image"]\n']
SELECTIONS = [[], ["--select", "S,B"], ["--ignore", "U"], ["--severity", "S=warning"]]

edits = st.one_of(
    st.tuples(st.just("swap"), st.integers(0, SLOTS - 1), st.integers(0, len(POOL) - 1)),
    st.tuples(st.just("same-size"), st.integers(0, SLOTS - 1), st.integers(0, 10_000)),
    st.tuples(st.just("copy"), st.integers(0, SLOTS - 1), st.integers(0, 3)),
    st.tuples(st.just("config"), st.integers(0, len(CONFIGS) - 1), st.just(0)),
    st.tuples(st.just("profile"), st.integers(0, len(PROFILES) - 1), st.just(0)),
    st.tuples(st.just("select"), st.integers(0, len(SELECTIONS) - 1), st.just(0)),
)


def _slot(data: Path, i: int) -> Path:
    return next(data.glob(f"slot{i}.*"))


def _apply(edit: tuple[str, int, int], root: Path, state: dict) -> None:
    what, a, b = edit
    data = root / "data"
    if what == "swap":
        _slot(data, a).unlink()
        source = POOL[b]
        shutil.copyfile(source, data / f"slot{a}{''.join(source.suffixes)}")
    elif what == "same-size":  # one digit changed; size and modification time kept
        path = _slot(data, a)
        text = bytearray(path.read_bytes())
        digits = [i for i, c in enumerate(text) if 48 <= c <= 57]
        if digits:
            st_before = path.stat()
            at = digits[b % len(digits)]
            text[at] = 48 + (text[at] - 48 + 1) % 10
            path.write_bytes(bytes(text))
            os.utime(path, ns=(st_before.st_atime_ns, st_before.st_mtime_ns))
    elif what == "copy":
        source = _slot(data, a)
        shutil.copyfile(source, data / f"copy{b}{''.join(source.suffixes)}")
    elif what == "config":
        (root / "quizkit.toml").write_text(CONFIGS[a])
    elif what == "profile":
        (root / "profile.toml").write_text(PROFILES[a])
    else:
        state["selection"] = SELECTIONS[a]


def _report(root: Path, state: dict, *cache: str) -> tuple[int, dict]:
    result = cli("validate", "--format", "json", "--jobs", "1",
                 "--config", str(root / "quizkit.toml"), "--profile", str(root / "profile.toml"),
                 *state["selection"], *cache, str(root / "data"))
    return result.exit_code, json.loads(result.stdout)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(edits, min_size=1, max_size=6))
def test_a_cached_run_reports_what_an_uncached_run_reports(sequence):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "data").mkdir()
        for i in range(SLOTS):
            shutil.copyfile(POOL[i], root / "data" / f"slot{i}{''.join(POOL[i].suffixes)}")
        (root / "quizkit.toml").write_text("")
        (root / "profile.toml").write_text("")
        state: dict = {"selection": []}
        cache = ("--cache-dir", str(root / "cache"))
        _report(root, state, *cache)  # a warm cache to start from
        for edit in sequence:
            _apply(edit, root, state)
            cached = _report(root, state, *cache)
            assert cached == _report(root, state, "--no-cache"), edit
            assert _report(root, state, *cache) == cached  # and again, all from the cache
