"""An enum profile file read once: its enums and its ``[service]`` names.

:func:`quizkit.settings.config.resolve` reads the profile a run names, so a profile that
cannot be read fails before any input is walked; the run then takes it from the settings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from quizkit.model.enums import profile_from_table, read_profile
from quizkit.model.schemas import Profile
from quizkit.model.service_names import DEFAULT_NAMES, ServiceNames, names_from_table


@dataclass(frozen=True)
class LoadedProfile:
    """An enum profile and its ``[service]`` names, read once from one file."""

    enums: Profile = ()
    service: ServiceNames = DEFAULT_NAMES
    #: The file it was read from (``None``: no profile).
    path: str | None = None


def read_profile_file(path: str | os.PathLike[str] | None) -> LoadedProfile:
    """The profile at ``path`` (nothing: every enum open, quizkit's own service names)."""
    if path is None:
        return LoadedProfile()
    data = read_profile(path)
    where = f"profile {path}"
    enums = profile_from_table(data, where)
    service = DEFAULT_NAMES if "service" not in data else \
        names_from_table(data["service"], data.get("enums"), where)
    return LoadedProfile(enums, service, os.fspath(path))
