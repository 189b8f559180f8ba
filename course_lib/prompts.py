"""Prompt formats that the host writes and an offline model reads, each defined once.

Keeping the writer and the reader of a format side by side means a change to one cannot silently
break the other: the offline model parses exactly what the policy sends.
"""

from __future__ import annotations

__all__ = [
    "read_summary_prompt",
    "summary_prompt",
]


PREVIOUS_SUMMARY, NEW_TURN = "## Previous summary", "## New turn"
"""The summarizer prompt's two sections."""


def summary_prompt(previous: str, user_text: str, answer: str) -> str:
    """What :class:`course_lib.policies.SummaryPolicy` asks the summarizer after each turn."""
    return f"{PREVIOUS_SUMMARY}\n{previous}\n\n{NEW_TURN}\nUser: {user_text}\nAssistant: {answer}"


def read_summary_prompt(prompt: str) -> tuple[list[str], str]:
    """The reverse of :func:`summary_prompt`: the previous summary's non-blank lines and the user's words."""
    head, _, turn = prompt.partition("\n\n" + NEW_TURN + "\n")
    previous = head.removeprefix(PREVIOUS_SUMMARY).strip("\n")
    user_text = turn.removeprefix("User: ").partition("\nAssistant: ")[0]
    return [line for line in previous.splitlines() if line.strip()], user_text
