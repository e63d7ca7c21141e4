"""The version of quizkit (one place; the CLI's ``--version`` and the wheel read it)."""

__version__ = "0.1.0"
