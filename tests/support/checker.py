"""What an exercise's checking cell prints, as the checker tests read it: through ``check`` and through a shell."""

from __future__ import annotations

from typing import Any

from IPython.core.interactiveshell import InteractiveShell

from course_lib.exercises import check, exercise, explain_unquoted_names


def said(lesson: str, label: str, answer: Any, expected: Any, line: str | None = None) -> str:
    """What a checking cell of ``lesson``'s ``label`` prints, as one line; ``line`` is the answer line typed."""
    cell = (line or f"answer_1 = {answer!r}") + f"\nprint(check({label!r}, answer_1, expected, hint))"
    hint = exercise(lesson, label).hint
    return " ".join(check(label, answer, expected, hint, namespace={"In": ["", cell]}).split())


def run_in_shell(capsys: Any, cell: str, **names: Any) -> str:
    """What a notebook cell prints in a shell set up as the lessons set it up, as one line."""
    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        shell.user_ns.update(check=check, exercise=exercise, **names)
        shell.run_cell(cell, store_history=True)
        return " ".join(capsys.readouterr().out.split())
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()
