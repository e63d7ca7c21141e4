"""atheris fuzz target: any bytes, as a JSON file and as a JSON Lines file, through the engine.

The property is the one the tests check with hypothesis, for as long as you let it run: the
engine returns findings (with 1-based positions) and never raises. A Python exception is a
crash; so is a hang (use -timeout) or a blow-up (use -rss_limit_mb).

    pip install atheris
    python fuzz/fuzz_validate.py -max_len=4096 -timeout=10 -rss_limit_mb=2048 fuzz/corpus

See docs/limits.md.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    from quizkit.checks import engine
    from quizkit.model.schemas import SchemaBook

OPTIONS = engine.Options()
SCHEMAS = SchemaBook()


def check(data: bytes) -> None:
    for lines in (False, True):
        outcome = engine.check_bytes("fuzz.jsonl" if lines else "fuzz.json", data, lines, OPTIONS,
                                     SCHEMAS)
        for finding in outcome.findings:
            assert finding.line is None or finding.line >= 1, finding
            assert finding.column is None or finding.column >= 1, finding


def main() -> None:
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
