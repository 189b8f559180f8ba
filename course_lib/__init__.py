"""course_lib: the small, tested library behind the agent-memory and loop-engineering workbook."""

__version__ = "0.1.0"
