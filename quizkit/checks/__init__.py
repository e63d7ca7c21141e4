"""Documents in, findings out: the engine, the runner of a validation, baselines, snippets."""
