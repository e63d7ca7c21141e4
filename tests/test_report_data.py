"""A small, real report shared by the report tests (no tests of its own).

Findings are built like the engine builds them: real rule codes from the catalog, pointers,
positions, a JSON Lines file with record numbers, and an unreadable file.
"""

from __future__ import annotations

from quizkit.catalog.findings import FileResult, Finding, Report, Severity


def sample_findings() -> list[Finding]:
    return [
        Finding("exports/pkg.json", "/rounds/0/position", "S001", Severity.ERROR,
                "expected a number, got a string", line=3, column=17),
        Finding("exports/pkg.json", "/rounds/0/colour", "S003", Severity.WARNING,
                "unknown field 'colour'", line=4, column=5),
        Finding("exports/pkg.json", "/rounds/1", "S002", Severity.ERROR,
                "missing field 'position'", line=7, column=5),
        Finding("exports/games.jsonl", "/id", "S002", Severity.ERROR,
                "missing field 'id'", record=2, line=2, column=1),
        Finding("exports/games.jsonl", "/stoppedAt", "S004", Severity.ERROR,
                "'22/11/2026' is not a date-time", record=5, line=5, column=40),
        Finding("exports/odd name, v1:2.json", "/title", "S003", Severity.INFO,
                "note: 100% | odd\nsecond line", line=1, column=2),
        Finding("exports/broken.json", "", "P002", Severity.ERROR,
                "unexpected end of data", line=9, column=1),
        Finding("exports/gone.json", "", "P001", Severity.ERROR,
                "No such file or directory"),
    ]


def sample_report() -> Report:
    files = [
        FileResult("exports/pkg.json", "package-full", 1, 2048),
        FileResult("exports/games.jsonl", "game", 6, 4096),
        FileResult("exports/clean.json", "version", 1, 512),
        FileResult("exports/odd name, v1:2.json", "banner", 1, 64),
        FileResult("exports/broken.json", None, 0, 100, readable=False),
        FileResult("exports/gone.json", None, 0, 0, readable=False),
    ]
    return make_report(files, sample_findings())


def make_report(files: list[FileResult] | None = None,
                findings: list[Finding] | None = None) -> Report:
    """A Report as the engine fills it: files and findings added one by one."""
    report = Report()
    for fr in files or []:
        report.add_file(fr)
    for f in findings or []:
        report.add(f)
    return report


def drive(reporter, report: Report) -> None:
    """Call a reporter the way the engine does: start, findings per file, file_done, finish."""
    reporter.start()
    by_path: dict[str, list[Finding]] = {}
    for f in report.findings:
        by_path.setdefault(f.path, []).append(f)
    for fr in report.files:
        for f in by_path.get(fr.path, []):
            reporter.finding(f)
        reporter.file_done(fr.path)
    reporter.finish(report)
