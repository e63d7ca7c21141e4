"""Files that configure a run (config, profiles, baselines) are read safely: exit 2, never a hang
or a traceback, with the file and where in it. Through the real CLI as a subprocess."""

from __future__ import annotations

import json
import os

import pytest
from conftest import SAMPLES, run_script

BANNER = str(SAMPLES / "banner.json")


def validate(tmp_path, *args: str, timeout: float = 60):
    result = run_script("validate", *args, BANNER, cwd=tmp_path, timeout=timeout)
    err = result.stderr.decode()
    assert "Traceback" not in err
    return result.returncode, err


def test_invalid_pyproject_is_an_error_with_line_and_column(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = \n')
    code, err = validate(tmp_path)
    assert code == 2
    assert f"{tmp_path / 'pyproject.toml'}:3:" in err and "not valid TOML" in err


def test_invalid_quizkit_toml_names_line_and_column(tmp_path):
    (tmp_path / "quizkit.toml").write_text('ignore = ["C006"]\nselect = [S]\n')
    code, err = validate(tmp_path)
    assert code == 2 and f"{tmp_path / 'quizkit.toml'}:2:11:" in err


def test_bad_utf8_in_a_config_file(tmp_path):
    (tmp_path / "quizkit.toml").write_bytes(b'ignore = ["C006"]\n# caf\xe9\n')
    code, err = validate(tmp_path)
    assert code == 2 and "quizkit.toml:2:6" in err and "not UTF-8" in err


@pytest.mark.parametrize("option", ["--config", "--profile", "--baseline"])
def test_dev_zero_is_refused_at_once(tmp_path, option):
    code, err = validate(tmp_path, option, "/dev/zero")  # a read of it would never end
    assert code == 2 and "/dev/zero" in err and "not a regular file" in err


@pytest.mark.parametrize("option", ["--config", "--profile", "--baseline"])
def test_a_fifo_without_writer_is_refused_at_once(tmp_path, option):
    fifo = tmp_path / "settings.fifo"
    os.mkfifo(fifo)
    code, err = validate(tmp_path, option, str(fifo))  # a read of it would wait forever
    assert code == 2 and "named pipe" in err and str(fifo) in err


def test_a_config_file_larger_than_the_cap_is_refused(tmp_path):
    big = tmp_path / "quizkit.toml"
    with big.open("w") as fh:
        fh.write('ignore = ["C006"]\n')
        fh.write(("# " + "x" * 1022 + "\n") * (17 * 1024))  # 17 MiB of comments
    code, err = validate(tmp_path)
    assert code == 2 and "larger than 16 MiB" in err


@pytest.mark.parametrize(("text", "needles"), [
    ("enums = 5\n", ("enums", "a table", "an integer")),
    ('[enums]\ndifficulty = "easy"\n', ("enums.difficulty", "array of strings", "a string")),
    ("[service]\nlevels = 3\n", ("service",)),
])
def test_profile_of_the_wrong_type_names_the_key_and_the_type(tmp_path, text, needles):
    profile = tmp_path / "profile.toml"
    profile.write_text(text)
    code, err = validate(tmp_path, "--profile", str(profile))
    assert code == 2 and str(profile) in err
    for needle in needles:
        assert needle in err


@pytest.mark.parametrize(("text", "needles"), [
    ("exclude = 5\n", ("exclude", "array of strings", "an integer")),
    ("fail-on = true\n", ("fail-on", "a string", "a boolean")),
    ("profile = []\n", ("profile", "a string", "an array")),
])
def test_config_of_the_wrong_type_names_the_key_and_the_type(tmp_path, text, needles):
    (tmp_path / "quizkit.toml").write_text(text)
    code, err = validate(tmp_path)
    assert code == 2
    for needle in needles:
        assert needle in err


def test_a_baseline_that_is_not_json_names_line_and_column(tmp_path):
    baseline = tmp_path / "baseline.json"
    baseline.write_text('{"version": 1,\n "findings": [,]}\n')
    code, err = validate(tmp_path, "--baseline", str(baseline))
    assert code == 2 and f"{baseline}:2:" in err and "not JSON" in err


def test_100000_per_path_ignores_cost_seconds_not_minutes(tmp_path):
    """Each file's path meets 100,000 patterns (half literal, half globs); the old matcher
    (fnmatch per pattern per path) took over five minutes here, this one a few seconds."""
    exports = tmp_path / "exports"
    exports.mkdir()
    for name in ("question-duplicate-price.json", "banner-updated-before-created.json"):
        (exports / name).write_bytes((SAMPLES / "invalid" / "rules" / name).read_bytes())
    lines = ["[per-path-ignores]", '"exports/question-*.json" = ["C"]']
    lines += [f'"legacy/file{i}.json" = ["unknown-field"]' for i in range(50_000)]
    lines += [f'"old/{i}/**/*.json" = ["C", "T001"]' for i in range(50_000)]
    (tmp_path / "quizkit.toml").write_text("\n".join(lines) + "\n")
    result = run_script("validate", "--jobs", "1", "--format", "json", "exports",
                        cwd=tmp_path, timeout=240)  # the timeout: the old matcher's minutes
    report = json.loads(result.stdout)
    assert [(f["path"], f["rule"]) for f in report["findings"]] == [
        ("exports/banner-updated-before-created.json", "updated-before-created")]
