"""The click commands, one module per command group."""
