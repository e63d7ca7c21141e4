"""Enum profiles: read a profile (TOML) that closes enums; inference is in enum_inference.py.

A profile is TOML::

    [enums]
    difficulty = ["easy", "medium", "hard"]
    chatPlatform = ["telegram", "discord"]

An enum the profile leaves out stays open. A run reads its profile once, with
:func:`quizkit.model.profiles.read_profile_file` (the enums and the ``[service]`` names).
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from quizkit.inputs.configfiles import ConfigError, read_toml, type_name
from quizkit.model.schemas import Profile, apply_profile, enum_definitions


class ProfileError(ConfigError):
    """The profile cannot be read or names an unknown enum (a configuration error)."""


def enum_names() -> list[str]:
    return sorted(enum_definitions())


# --- profiles ---------------------------------------------------------------------------------

def read_profile(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The tables of a TOML profile file, read safely (see :mod:`quizkit.inputs.configfiles`)."""
    data = read_toml(path, "profile")
    # [service] names validation levels and entities (read by
    # quizkit.model.service_names.names_from_table).
    unknown_tables = set(data) - {"enums", "service"}
    if unknown_tables:
        raise ProfileError(f"profile {path}: unknown table(s) {', '.join(sorted(unknown_tables))}"
                           " (expected [enums], [service])")
    return data


def profile_from_table(data: dict[str, Any], where: str) -> Profile:
    """The enum profile of a profile's tables; ``where`` names the profile in messages."""
    enums = data.get("enums", {})
    if not isinstance(enums, dict):
        raise ProfileError(f"{where}: enums must be a table of NAME = [values], "
                           f"not {type_name(enums)}")
    known = set(enum_names())
    out = []
    for name, values in sorted(enums.items()):
        if name not in known:
            raise ProfileError(f"{where}: unknown enum {name!r} "
                               f"(known: {', '.join(sorted(known))})")
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise ProfileError(f"{where}: enums.{name} must be an array of strings, "
                               f"not {type_name(values)}")
        out.append((name, tuple(values)))
    return tuple(out)


def dumps_schema(schema: dict) -> bytes:
    return orjson.dumps(schema, option=orjson.OPT_INDENT_2) + b"\n"


__all__ = ["Profile", "ProfileError", "apply_profile", "dumps_schema", "enum_names",
           "profile_from_table", "read_profile"]
