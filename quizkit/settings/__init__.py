"""Config files and command-line options resolved into one settings object."""
