"""course_lib: the small, tested library behind the agent-memory and loop-engineering workbook."""

__version__ = "0.1.0"
"""The package version (pyproject.toml reads it from here: one source)."""
