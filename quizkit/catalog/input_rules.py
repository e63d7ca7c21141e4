"""Rules about reading input: files that cannot be read, parsed, or recognised."""

from __future__ import annotations

from quizkit.catalog.findings import Severity
from quizkit.catalog.rule import rule

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
    "top-level fields, by the same rule in `validate` and `load`: a kind is a candidate when "
    "the document has at least half of its required fields (a request body: one of its "
    "fields), and the candidate the document fits best wins. A record missing a few fields is "
    "still that record, with findings for what is missing. When no kind is a candidate, or two "
    "fit equally (`{}` is a valid body of both requests), the finding names the closest kinds "
    "and the `--kind` to pass to check the document as one of them.",
    bad='{"id": "b1"}   # one field: a banner? a version? a game?',
    good='quizkit validate --kind banner b1.json',
    group=GROUP,
)

BAD_ENCODING = rule(
    "P004", "bad-encoding", Severity.ERROR,
    "The text is not UTF-8.",
    "JSON exchanged between systems must be UTF-8 (RFC 8259). UTF-16 and UTF-32 files are "
    "recognised by their byte order mark or by the NUL bytes between ASCII characters; for "
    "other text the finding gives the position of the first byte that is not UTF-8. Nothing "
    "in the file (or the JSON Lines record) was checked, and the run exits with code 3.",
    bad="Out-File exports/pkg.json   # Windows PowerShell 5 writes UTF-16",
    good="iconv -f UTF-16 -t UTF-8 pkg.json > pkg.utf8.json",
    group=GROUP,
)

BYTE_ORDER_MARK = rule(
    "P005", "byte-order-mark", Severity.INFO,
    "The file starts with a UTF-8 byte order mark.",
    "RFC 8259 says JSON text must not begin with a byte order mark, and some parsers refuse "
    "one. quizkit accepts it, checks the file as usual, and says so.",
    bad="EF BB BF 7B 22 69 64 22 ...   # BOM, then {\"id\"",
    good="7B 22 69 64 22 ...            # {\"id\"",
    group=GROUP,
)

EMPTY_INPUT = rule(
    "P006", "empty-input", Severity.ERROR,
    "The file holds no JSON document.",
    "An empty file, or one with only whitespace, is not a JSON document (nor a JSON Lines "
    "file with a record). This is usually a failed or interrupted export. The run exits with "
    "code 3.",
    bad="exports/pkg.json   # 0 bytes",
    good='{"id": "p1", ...}',
    group=GROUP,
)

DUPLICATE_KEY = rule(
    "P007", "duplicate-key", Severity.ERROR,
    "An object has the same key twice.",
    "JSON parsers disagree on duplicate keys: quizkit (like most) reads the last value, others "
    "the first or refuse the document, so what was checked may not be what a consumer reads. "
    "The finding points at the second key and names the line and column of the first.",
    bad='{"id": "p1", "name": "Capitals", "id": "p2"}',
    good='{"id": "p1", "name": "Capitals"}',
    group=GROUP,
)

INTEGER_OUT_OF_RANGE = rule(
    "P008", "integer-out-of-range", Severity.ERROR,
    "An integer does not fit in 64 bits.",
    "Integers from -2**63 to 2**64-1 are read exactly; larger ones are read as floating-point "
    "numbers, which loses digits, and most services cannot produce or consume them at all. "
    "The document is still checked (with the approximate value).",
    bad='{"meta": {"starts": 123456789012345678901234567890}}',
    good='{"meta": {"starts": 1234}}',
    group=GROUP,
)

TOO_DEEP = rule(
    "P009", "too-deep", Severity.ERROR,
    "The document is nested deeper than the limit.",
    "Arrays and objects nested deeper than `--max-depth` (default and most 1024, the parser's "
    "own limit) are refused before anything else is checked: no export of the service nests "
    "more than a few levels, and deep nesting is a classic way to crash parsers. The run exits "
    "with code 3.",
    bad="[[[[[[ ... 100000 levels ... ]]]]]]",
    good='{"rounds": [{"themes": [...]}]}',
    group=GROUP,
)

INPUT_TOO_LARGE = rule(
    "P010", "input-too-large", Severity.ERROR,
    "The input exceeds a size limit.",
    "A file larger than `--max-file-size`, or a `.gz` whose content is larger than "
    "`--max-decompressed-size` (a gzip bomb stops there), is not read further. Raise the "
    "limit to check it. The run exits with code 3.",
    bad="quizkit validate dump.json.gz   # 10 MB that inflates to 50 GB",
    good="quizkit validate --max-decompressed-size 4GB dump.json.gz",
    group=GROUP,
)

FINDINGS_CAPPED = rule(
    "P011", "findings-capped", Severity.INFO,
    "The file has more findings than the cap; the rest are counted, not listed.",
    "A file lists at most `--max-findings` findings (default 1000; `--max-findings 0` lifts "
    "the cap): a document whose every element is wrong would otherwise take memory and time "
    "in proportion to its findings, not its size. This finding says how many more there were "
    "and of which rules; its severity is the worst of theirs, so the exit code is the one "
    "they would give. Fix the first findings (usually one defect repeated) or raise the cap.",
    bad="quizkit validate dump.json   # questions: [0, 0, 0, ... 500,000 zeros]",
    good="quizkit validate --max-findings 0 dump.json   # every finding, however many",
    group=GROUP,
)
