"""The result cache of ``validate``: an unchanged input's findings and facts, kept between runs.

:mod:`.location` picks the directory, :mod:`.stamps` tells an unchanged input,
:mod:`.codec` writes an outcome as data, :mod:`.store` keeps one file per entry
(docs/performance.md, "The result cache").
"""

from quizkit.cache.location import DEFAULT_NAME, choose
from quizkit.cache.stamps import Stamp
from quizkit.cache.store import ResultCache, run_key

__all__ = ["DEFAULT_NAME", "ResultCache", "Stamp", "choose", "run_key"]
