"""Rules: the schema-keyword rules and the structural checks JSON Schema cannot express.

The one registry of rules and checks is built here, from the modules that declare them; a
new rule module is added to :data:`MODULES`.
"""

from __future__ import annotations

from quizkit.catalog import input_rules, schema_rules
from quizkit.rules import batch, content, embedded, references, time_order, uniqueness
from quizkit.rules.checks import Registry

MODULES = (batch, content, embedded, input_rules, references, schema_rules, time_order,
           uniqueness)

#: Every rule and check (immutable; built once, at import).
REGISTRY = Registry.collect(MODULES)

