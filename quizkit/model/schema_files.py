"""The bundled schemas by name, and written out for other tools (``quizkit schema``)."""

from __future__ import annotations

import os
from pathlib import Path

from quizkit.inputs.configfiles import ConfigError
from quizkit.model.entities import KIND_NAMES
from quizkit.model.enums import dumps_schema
from quizkit.model.profiles import read_profile_file
from quizkit.model.schemas import BASE_URI, SchemaBook, bundled, schema_id
from quizkit.outputs.writer import atomic_write, make_directory, refuse_inputs


def schema_list(records: bool = False) -> list[tuple[str, str, str]]:
    """(name, ``$id``, description) of each document kind's schema, and with ``records`` of
    each record schema too (named ``record:NAME``)."""
    everything = bundled()
    out = [(kind, schema_id(kind), everything[schema_id(kind)]["description"])
           for kind in KIND_NAMES]
    if records:
        out += [(f"record:{uri.rsplit('/', 1)[1].removesuffix('.json')}", uri, s["title"])
                for uri, s in sorted(everything.items())
                if uri.startswith(BASE_URI + "records/")]
    return out


def schema_named(name: str) -> dict:
    """The schema of a document kind, or of a record given as ``record:NAME``."""
    if name.startswith("record:"):
        uri = f"{BASE_URI}records/{name.removeprefix('record:')}.json"
    else:
        uri = schema_id(name)
    everything = bundled()
    if uri not in everything:
        raise ConfigError(f"unknown schema {name!r}; kinds: {', '.join(KIND_NAMES)} (records: "
                          "record:NAME, see `quizkit schema list --all`)")
    return everything[uri]


def write_schemas(out: str | os.PathLike[str], profile: str | os.PathLike[str] | None = None
                  ) -> tuple[list[Path], tuple[str, ...]]:
    """Write the bundled schemas (records/, documents/) into ``out``, a profile's enums
    closed; the files written and the enums the profile closed."""
    loaded = read_profile_file(profile)
    root = Path(out)
    written = []
    for uri, s in sorted(SchemaBook(loaded.enums).schemas.items()):
        target = root / uri.removeprefix(BASE_URI)
        make_directory(target.parent)
        if profile is not None:
            refuse_inputs([target], [profile])
        with atomic_write(target) as fh:
            fh.write(dumps_schema(s).decode())
        written.append(target)
    return written, tuple(name for name, _ in loaded.enums)
