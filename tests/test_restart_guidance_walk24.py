"""Lesson 03's walk 24, finding 4: after a restart, a cell run before the imports cell showed a raw NameError.

The cause is shared by every lesson: the guidance ("X is not defined in this kernel yet ... Run the cells above
first") is installed by ``setup_display()``, which only the imports cell calls. A cell run first after a restart
runs no course code, so Python's own traceback shows; once the imports cell has run, the same mistake in the same
kernel gets the guidance. ``course_lib.exercises`` is therefore also an IPython extension: a kernel that loads it at
its start (``--ext=course_lib.exercises``, or the course's kernel config) says the guidance from its first cell.
"""

from __future__ import annotations

from typing import Any

from tests.support.lesson_cells import cell_source

GUIDANCE = "desks is not defined in this kernel yet: a cell above imports or creates it."


def _first_cell(source: str, *arguments: str) -> tuple[list[dict[str, Any]], str]:
    """Run ``source`` as the first cell of a new kernel started with ``arguments``: its error messages and text."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3", extra_arguments=list(arguments))
    try:
        request = client.execute(source)
        errors, shown = [], []
        while True:
            msg = client.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") != request:
                continue
            if msg["content"].get("execution_state") == "idle":
                break
            if msg["msg_type"] == "error":
                errors.append(msg["content"])
            shown.append(msg["content"].get("text", ""))
        return errors, "".join(shown)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_a_kernel_that_loads_the_extension_says_the_guidance_from_its_first_cell() -> None:
    errors, shown = _first_cell(cell_source("03", "cell-10"), "--ext=course_lib.exercises")
    assert GUIDANCE in shown and "Run the cells above first" in shown
    assert errors == []  # no red traceback


def test_the_imports_cell_after_the_extension_keeps_one_guidance() -> None:
    """setup_display installs the same handler again: one transformer, the same words."""
    from IPython.core.interactiveshell import InteractiveShell

    from course_lib.exercises import explain_unquoted_names, hedged_answer_lines, load_ipython_extension

    shell = InteractiveShell.instance()
    load_ipython_extension(shell)
    explain_unquoted_names(shell)
    assert shell.input_transformers_cleanup.count(hedged_answer_lines) == 1
    assert shell.custom_exceptions == (NameError, SyntaxError)
