"""JSON Lines: one finding per line, on the stream before the run ends."""

from __future__ import annotations

import io
import json
import os
import select
import threading

from test_report_data import drive, make_report, sample_findings, sample_report

from quizkit.catalog.findings import Report
from quizkit.reporters import REPORTERS
from quizkit.reporters.json_report import report_dict
from quizkit.reporters.jsonl import JsonLinesReporter


def test_lines_are_the_json_reports_findings() -> None:
    out = io.StringIO()
    report = sample_report()
    drive(JsonLinesReporter(out), report)
    lines = out.getvalue().splitlines()
    assert [json.loads(line) for line in lines] == report_dict(report)["findings"]


def test_keeps_nothing_in_memory() -> None:
    assert REPORTERS["jsonl"].needs_findings is False
    reporter = JsonLinesReporter(io.StringIO())
    reporter.start()
    for f in sample_findings():
        reporter.finding(f)
    # finish with an empty report (what an engine that kept nothing would pass)
    reporter.finish(Report())
    assert len(reporter.stream.getvalue().splitlines()) == len(sample_findings())


def test_first_line_is_readable_while_the_run_goes_on() -> None:
    """A reader of the pipe gets the first finding while the run is still blocked."""
    read_fd, write_fd = os.pipe()
    writer = os.fdopen(write_fd, "w", encoding="utf-8")
    reporter = JsonLinesReporter(writer)
    findings = sample_findings()
    may_go_on = threading.Event()
    produced_all = threading.Event()

    def run() -> None:
        reporter.start()
        reporter.finding(findings[0])
        may_go_on.wait(10)  # the "engine" is busy with a slow file
        for f in findings[1:]:
            reporter.finding(f)
        reporter.finish(make_report(findings=findings))
        produced_all.set()
        writer.close()

    thread = threading.Thread(target=run)
    thread.start()
    try:
        ready, _, _ = select.select([read_fd], [], [], 5)
        assert ready, "no output while the run was still going"
        first = b""
        while not first.endswith(b"\n"):
            first += os.read(read_fd, 1)
        assert not produced_all.is_set()
        assert json.loads(first) == findings[0].to_dict()
    finally:
        may_go_on.set()
        thread.join(10)
    rest = b""
    while chunk := os.read(read_fd, 65536):
        rest += chunk
    os.close(read_fd)
    assert len(rest.decode().splitlines()) == len(findings) - 1
