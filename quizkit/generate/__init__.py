"""Deterministic generation of realistic quiz-service documents (samples and corpora).

``generate_corpus(out_dir, packages=..., seed=..., broken=...)`` is the Python API behind
``quizkit samples generate``; see ``docs/samples.md``.
"""

from __future__ import annotations

from quizkit.generate.corpus import MANIFEST, Summary, generate_corpus

__all__ = ["MANIFEST", "Summary", "generate_corpus"]
