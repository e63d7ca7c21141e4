"""Rules: the schema-keyword rules and the structural checks JSON Schema cannot express."""

from __future__ import annotations


def load_rule_modules() -> None:
    """Import every module that declares rules (idempotent)."""
    from quizkit.rules import (  # noqa: F401
        batch,
        content,
        input_rules,
        references,
        schema_rules,
        time_order,
        uniqueness,
    )
