"""The result cache of ``validate``: an unchanged input's findings and facts, kept between runs.

:mod:`.location` picks the directory, :mod:`.stamps` tells an unchanged input,
:mod:`.codec` writes an outcome as data, :mod:`.pack` is the file that holds the entries of
one input directory, :mod:`.store` looks entries up and keeps them (docs/cache.md).
"""

from quizkit.cache.location import DEFAULT_NAME, choose
from quizkit.cache.stamps import Stamp
from quizkit.cache.store import ResultCache, run_key

__all__ = ["DEFAULT_NAME", "ResultCache", "Stamp", "choose", "run_key"]
