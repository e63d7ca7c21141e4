"""``check``: the document rules of ``validate`` and the configuration's own checks
(``[[checks]]``, docs/checks.md) in one run and one report."""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterable
from functools import partial

from quizkit.analysis.check_run import FAILURES_LIMIT, CheckResult, run_check
from quizkit.api.database import duckdb_session
from quizkit.api.validating import validate


def check(paths: Iterable[str] | str = (), *, db: str | os.PathLike[str] | None = None,
          parquet: str | os.PathLike[str] | None = None,
          store_failures: str | os.PathLike[str] | None = None,
          failures_limit: int = FAILURES_LIMIT, memory_limit: str | None = None,
          threads: int | None = None, **options: object) -> CheckResult:
    """The document rules and the configuration's own checks (``quizkit check``) over
    ``paths``, or the team's checks over ``db`` or the dataset ``parquet``; ``options`` are
    :func:`validate`'s. ``store_failures``: a directory for each ``sql`` check's failing
    rows (``CODE.parquet``, at most ``failures_limit``). ``CheckResult.report`` is the one
    report; the exit code is ``settings(...).exit_code(result.report)``."""
    return validate(paths, run=partial(  # type: ignore[arg-type, return-value]
        run_check, db=db, parquet=parquet, store_failures=store_failures,
        failures_limit=failures_limit, session=duckdb_session(memory_limit, threads)),
        **options)


check.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
    *(p for p in inspect.signature(check).parameters.values() if p.name != "options"),
    *(p for p in inspect.signature(validate).parameters.values()
      if p.name not in ("paths", "run"))])
