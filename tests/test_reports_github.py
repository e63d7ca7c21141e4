"""GitHub Actions workflow commands: golden output and the runner's escaping rules."""

from __future__ import annotations

import io

import pytest
from test_report_data import drive, sample_report

from quizkit.reporters.github import GitHubReporter, escape_data, escape_property

GOLDEN = """\
::error file=exports/pkg.json,line=3,col=17,title=S001 wrong-type::expected a number, got a string (at /rounds/0/position)
::warning file=exports/pkg.json,line=4,col=5,title=S003 unknown-field::unknown field 'colour' (at /rounds/0/colour)
::error file=exports/pkg.json,line=7,col=5,title=S002 missing-field::missing field 'position' (at /rounds/1)
::error file=exports/games.jsonl,line=2,col=1,title=S002 missing-field::record 2: missing field 'id' (at /id)
::error file=exports/games.jsonl,line=5,col=40,title=S004 invalid-format::record 5: '22/11/2026' is not a date-time (at /stoppedAt)
::notice file=exports/odd name%2C v1%3A2.json,line=1,col=2,title=S003 unknown-field::note: 100%25 | odd%0Asecond line (at /title)
::error file=exports/broken.json,line=9,col=1,title=P002 invalid-json::unexpected end of data
::error file=exports/gone.json,title=P001 unreadable-input::No such file or directory
"""  # noqa: E501


def test_golden(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    drive(GitHubReporter(out), sample_report())
    assert out.getvalue() == GOLDEN


def test_absolute_paths_under_the_workspace_become_relative(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    report = sample_report()
    for item in (*report.findings, *report.files):
        item.path = str(tmp_path / item.path)
    out = io.StringIO()
    drive(GitHubReporter(out), report)
    assert out.getvalue() == GOLDEN


@pytest.mark.parametrize(("raw", "data", "prop"), [
    ("plain", "plain", "plain"),
    ("50%", "50%25", "50%25"),
    ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
    ("a:b,c", "a:b,c", "a%3Ab%2Cc"),
    ("%0A", "%250A", "%250A"),  # an encoded-looking input is encoded again, not passed on
    ("::error::x", "::error::x", "%3A%3Aerror%3A%3Ax"),
])
def test_escaping(raw: str, data: str, prop: str) -> None:
    assert escape_data(raw) == data
    assert escape_property(raw) == prop
