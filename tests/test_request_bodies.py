"""Request bodies are partial updates; quizkit is silent on what the interface leaves open."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, cli_json

PARTIAL = [
    ("user-update", {"user": {"image": {"src": "https://cdn.example/a.png"}}}),
    ("user-update", {"user": {"image": {}}}),
    ("user-update", {"user": {"socialLinks": [{"url": "https://t.me/ann"}]}}),
    ("user-update", {"user": {"socialLinks": [{"provider": "telegram"}, {}]}}),
    ("user-update", {"user": {}}),
    ("banner-create", {"payload": {"value": "🎉"}}),
    ("banner-create", {"payload": {}, "slot": "profile"}),
    ("banner-create", {"current": True, "position": 2}),
]


@pytest.mark.parametrize("kind,body", PARTIAL, ids=[json.dumps(b) for _, b in PARTIAL])
def test_a_partial_request_body_is_clean(tmp_path: Path, kind: str, body: dict) -> None:
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body))
    code, report = cli_json(str(path))
    assert (code, report["findings"], report["files"][0]["kind"]) == (0, [], kind)


def test_a_request_body_still_has_types(tmp_path: Path) -> None:
    path = tmp_path / "body.json"
    path.write_text(json.dumps({"user": {"image": {"src": 5}, "socialLinks": [{"url": []}]}}))
    code, report = cli_json(str(path))
    assert code == 1
    assert {(f["rule"], f["pointer"]) for f in report["findings"]} == {
        ("wrong-type", "/user/image/src"), ("wrong-type", "/user/socialLinks/0/url")}


def test_the_values_of_id_maps_are_left_open(tmp_path: Path) -> None:
    doc = json.loads((SAMPLES / "version-created.json").read_text())
    doc["idMaps"]["rounds"] = {"r1": 17, "r2": None, "r3": {"id": "x"}, "r4": ["a"]}
    doc["idMaps"]["steps"] = {}
    path = tmp_path / "created.json"
    path.write_text(json.dumps(doc))
    code, report = cli_json(str(path))
    assert (code, report["findings"]) == (0, [])
