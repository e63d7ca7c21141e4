"""Deterministic generation of realistic quiz-service documents (samples and corpora)."""
