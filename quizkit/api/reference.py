"""``rules``, ``schemas``, ``schema``, ``export_schemas`` and ``generate``: what quizkit knows
(its rules and schemas) and the sample corpora it writes."""

from __future__ import annotations

import os
from pathlib import Path

from quizkit.catalog import rule_docs
from quizkit.generate import Summary, generate_corpus
from quizkit.model.schema_files import schema_list, schema_named, write_schemas
from quizkit.rules import REGISTRY
from quizkit.settings.config import ConfigError, ConfigSource, resolve


def schemas(*, records: bool = False) -> list[tuple[str, str, str]]:
    """(name, ``$id``, description) of each document kind's schema, and with ``records`` of
    each record schema too (named ``record:NAME``)."""
    return schema_list(records)


def schema(name: str) -> dict:
    """The schema of a document kind, or of a record given as ``record:NAME``."""
    return schema_named(name)


def export_schemas(out: str | os.PathLike[str], *,
                   profile: str | os.PathLike[str] | None = None
                   ) -> tuple[list[Path], tuple[str, ...]]:
    """Write the bundled schemas (records/, documents/) into ``out``, a profile's enums
    closed, for other tools; the files written and the enums the profile closed."""
    return write_schemas(out, profile)


def rules(rule: str | None = None, *, format: str = "text", config: ConfigSource = None) -> str:
    """The rule catalog, or one rule explained, as text, JSON or Markdown (``quizkit rules``),
    with the team's checks of the configuration (``config`` as for ``validate``)."""
    if format not in rule_docs.FORMATS:
        raise ConfigError(f"unknown format {format!r} (use {', '.join(rule_docs.FORMATS)})")
    team = resolve(config).team_rules
    if rule is None:
        return rule_docs.render([*REGISTRY.rules, *team], format)
    found = [r for r in team if rule in (r.name, r.code, r.code.lower())]
    try:
        return rule_docs.render_one(found[0] if found else REGISTRY.get(rule), format)
    except KeyError:
        raise ConfigError(f"no rule {rule!r} (see `quizkit rules`)") from None


def generate(out: str | os.PathLike[str], *, packages: int = 100, seed: int = 0,
             broken: float = 0.0, gzip_share: float = 0.0, jsonl: bool = False,
             workers: int | None = None, force: bool = False,
             shape: str = "indented") -> Summary:
    """Write a deterministic corpus (``quizkit samples generate``); ``force`` replaces a
    corpus written before in ``out``; ``shape``: indented, compact or lines."""
    try:
        return generate_corpus(out, packages=packages, seed=seed, broken=broken,
                               gzip_share=gzip_share, jsonl=jsonl, workers=workers,
                               overwrite=force, shape=shape)
    except FileExistsError as exc:
        raise ConfigError(str(exc)) from None
