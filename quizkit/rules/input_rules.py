"""Rules about reading input: files that cannot be read, parsed, or recognised."""

from __future__ import annotations

from quizkit.findings import Severity
from quizkit.rules.catalog import rule

GROUP = "input"

UNREADABLE = rule(
    "P001", "unreadable-input", Severity.ERROR,
    "The input could not be read.",
    "The file could not be opened or read (missing, a directory, no permission, not "
    "decompressible). Nothing in it was checked, and the run exits with code 3.",
    bad="quizkit validate exports/locked.json   # mode 000",
    good="chmod u+r exports/locked.json",
    group=GROUP,
)

INVALID_JSON = rule(
    "P002", "invalid-json", Severity.ERROR,
    "The document is not valid JSON.",
    "The text could not be parsed as JSON (RFC 8259): truncated text, a trailing comma, a "
    "comment, NaN, or bytes that are not UTF-8. The finding gives the line and column where the "
    "parser stopped. Nothing in the document was checked, and the run exits with code 3.",
    bad='{"id": "p1", "name": "Capitals",}',
    good='{"id": "p1", "name": "Capitals"}',
    group=GROUP,
)

UNKNOWN_KIND = rule(
    "P003", "unknown-kind", Severity.ERROR,
    "The document's kind could not be told from its shape.",
    "quizkit detects what a document is (a full package, a version list, a game, ...) from its "
    "top-level fields. When none fits, the finding names the kinds the document came closest to. "
    "Use `--kind` to force one.",
    bad='{"title": "Capitals", "entries": []}',
    good='{"user": {...}, "settings": {...}}   # a user-self response',
    group=GROUP,
)
