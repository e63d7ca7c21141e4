"""The largest values the numeric options take (``docs/limits.md``, "Option values").

A value past its bound is a usage error (exit 2, one line) before any work: an option must
never ask for more processes than a machine allows, for threads whose stacks exhaust memory
(DuckDB aborts the process on a failed allocation), or for a corpus no memory holds.
"""

from __future__ import annotations

#: ``validate -j``, ``samples generate --workers``, ``jobs`` in a config file: processes.
MAX_JOBS = 256
#: ``load --threads``: DuckDB threads.
MAX_THREADS = 256
#: ``samples generate --packages``.
MAX_PACKAGES = 1_000_000
#: ``query --timeout`` and ``--wait-timeout``: seconds (a day).
MAX_SECONDS = 86400.0
#: ``query --limit``, ``summary --top``: rows (DuckDB's BIGINT).
MAX_ROWS = 2**63 - 1
