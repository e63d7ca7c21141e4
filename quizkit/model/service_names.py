"""The service's names for validation levels and entities, and a profile's ``[service]`` table.

quizkit's own names (levels ``error``/``warning``/``info``; entities ``package``, ``version``
and the version's collections) are mapped to the service's enum values by a profile's
``[service]`` table (docs/service.md). The structural checks of embedded reports read these
names (:mod:`quizkit.rules.embedded`), and the blocks that quizkit writes
(:mod:`quizkit.reporters.service_blocks`) spell them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from quizkit.catalog.findings import Severity
from quizkit.inputs.configfiles import ConfigError, read_toml
from quizkit.model.entities import COLLECTIONS

LEVELS = ("error", "warning", "info")
ENTITIES = ("package", "version", *COLLECTIONS.values())
#: The options of a profile's ``[service]`` table.
SERVICE_KEYS = {"level", "entity", "confirm-errors"}


@dataclass(frozen=True, slots=True)
class ServiceNames:
    """How the service spells levels and entities (a profile's ``[service]`` table).

    Pairs are (quizkit name, service value); a name not listed is written as quizkit's own.
    ``confirm_errors`` turns on the ``unconfirmed-validation-error`` check (see
    docs/service.md): only useful when the service checks no more than quizkit does.
    """

    level: tuple[tuple[str, str], ...] = ()
    entity: tuple[tuple[str, str], ...] = ()
    confirm_errors: bool = False

    def level_value(self, severity: Severity | str) -> str:
        name = str(severity)
        return dict(self.level).get(name, name)

    def entity_value(self, entity: str) -> str:
        return dict(self.entity).get(entity, entity)

    def read_level(self, value: Any) -> str | None:
        """quizkit's level for a value found in an embedded report, or None if unknown."""
        return _read(value, self.level, LEVELS)

    def read_entity(self, value: Any) -> str | None:
        """quizkit's entity kind for a value found in an embedded report, or None."""
        return _read(value, self.entity, ENTITIES)


def _read(value: Any, pairs: tuple[tuple[str, str], ...], names: tuple[str, ...]) -> str | None:
    # The profile's own spelling wins; otherwise quizkit's names, in any case.
    if type(value) is not str:
        return None
    for name, service_value in pairs:
        if value == service_value:
            return name
    lower = value.lower()
    return lower if lower in names else None


DEFAULT_NAMES = ServiceNames()


class ServiceTableError(ConfigError):
    """A ``[service]`` table that cannot be used (a configuration error)."""


def names_from_table(table: Any, enums: Any = None, where: str = "profile") -> ServiceNames:
    """A :class:`ServiceNames` from a ``[service]`` table (and the profile's ``[enums]``).

    When the profile also closes ``validationLevel``/``validationEntity``, every mapped value
    must be one of them, so the blocks quizkit writes validate against the profiled schema.
    """
    if not isinstance(table, dict):
        raise ServiceTableError(f"{where}: [service] must be a table")
    unknown = set(table) - SERVICE_KEYS
    if unknown:
        raise ServiceTableError(f"{where}: unknown key(s) in [service]: "
                                f"{', '.join(sorted(unknown))} (known: level, entity, "
                                "confirm-errors)")
    enums = enums if isinstance(enums, dict) else {}
    level = _pairs(table.get("level", {}), LEVELS, "level", where,
                   enums.get("validationLevel"))
    entity = _pairs(table.get("entity", {}), ENTITIES, "entity", where,
                    enums.get("validationEntity"))
    confirm = table.get("confirm-errors", False)
    if not isinstance(confirm, bool):
        raise ServiceTableError(f"{where}: service.confirm-errors must be true or false")
    return ServiceNames(level, entity, confirm)


def _pairs(mapping: Any, names: tuple[str, ...], key: str, where: str,
           allowed: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(mapping, dict):
        raise ServiceTableError(f"{where}: service.{key} must be a table, e.g. "
                                f"{key} = {{{names[0]} = \"{names[0].upper()}\"}}")
    out = []
    for name, value in mapping.items():
        if name not in names:
            raise ServiceTableError(f"{where}: service.{key}.{name}: unknown {key} "
                                    f"(known: {', '.join(names)})")
        if not isinstance(value, str) or not value:
            raise ServiceTableError(f"{where}: service.{key}.{name} must be a non-empty string")
        if isinstance(allowed, list) and value not in allowed:
            enum = "validationLevel" if key == "level" else "validationEntity"
            raise ServiceTableError(f"{where}: service.{key}.{name} = {value!r} is not one of "
                                    f"enums.{enum} ({', '.join(map(str, allowed))})")
        out.append((name, value))
    values = [v for _, v in out]
    if len(set(values)) != len(values):
        raise ServiceTableError(f"{where}: service.{key} maps two names to one value")
    return tuple(sorted(out))


def load_names(path: str) -> ServiceNames:
    """The ``[service]`` table of a TOML profile (quizkit's own names when it has none).

    Raises :class:`~quizkit.inputs.configfiles.ConfigError` (the file cannot be read safely, see
    :mod:`quizkit.inputs.configfiles`) or :class:`ServiceTableError`.
    """
    data = read_toml(path, "profile")
    if "service" not in data:
        return DEFAULT_NAMES
    return names_from_table(data["service"], data.get("enums"), f"profile {path}")
