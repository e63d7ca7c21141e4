"""Config keys that shape the inputs: ``exclude`` and ``profile``."""

from __future__ import annotations

import json
import shutil

from tests.conftest import SAMPLES, cli


def _tree(tmp_path):
    (tmp_path / "exports" / "old").mkdir(parents=True)
    shutil.copy(SAMPLES / "banner.json", tmp_path / "exports" / "banner.json")
    (tmp_path / "exports" / "old" / "broken.json").write_text("{")
    return tmp_path / "exports"


def test_config_exclude_adds_to_the_command_line(tmp_path, monkeypatch):
    exports = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli("validate", str(exports)).exit_code == 3
    (tmp_path / "quizkit.toml").write_text('exclude = ["old"]\n')
    result = cli("validate", "--format", "json", str(exports))
    assert result.exit_code == 0
    assert [f["path"] for f in json.loads(result.output)["files"]] == \
        [str(exports / "banner.json")]


def test_config_profile_is_relative_to_the_config_file(tmp_path, monkeypatch):
    exports = _tree(tmp_path)
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "profile.toml").write_text('[enums]\nbannerSlot = ["sidebar"]\n')
    (tmp_path / "conf" / "quizkit.toml").write_text('profile = "profile.toml"\n'
                                                    'exclude = ["old"]\n')
    monkeypatch.chdir(tmp_path)
    result = cli("validate", "--config", "conf/quizkit.toml", "--format", "json", str(exports))
    findings = json.loads(result.output)["findings"]
    assert result.exit_code == 1
    assert [(f["rule"], f["pointer"]) for f in findings] == [("unknown-enum-value", "/slot")]


def test_bad_config_exclude_is_a_usage_error(tmp_path, monkeypatch):
    exports = _tree(tmp_path)
    (tmp_path / "quizkit.toml").write_text('exclude = "old"\n')
    monkeypatch.chdir(tmp_path)
    result = cli("validate", str(exports))
    assert result.exit_code == 2 and "exclude" in result.output
