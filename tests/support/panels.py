"""The two panels a test drives as a student does: type a line, click, wait for the panel to finish.

Shared by the widget tests and the walk tests, so every test builds the same panel the lessons show.
"""

import html
import re

from course_lib.capstone_panel import CapstonePanel, violation_rows
from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.memory import WorkingMemory
from course_lib.memory_models import OfflineWriterClient, WriterMisbehaviour
from course_lib.providers import course_provider_desks
from course_lib.tracing import CallLog
from course_lib.widgets import DeskPanel, MemoryPanel


def memory_panel(misbehaviour: WriterMisbehaviour | None = None) -> MemoryPanel:
    """Lesson 02's memory panel on a fresh store, its offline writer misbehaving as ``misbehaviour`` says."""
    return MemoryPanel(MemoryExtraction(WorkingMemory(), ChatFactWriter(OfflineWriterClient(misbehaviour))))


async def submit(panel: MemoryPanel, text: str) -> None:
    """Type ``text`` into a memory panel's message box (lesson 02's, or lesson 07's capstone panel) and click Submit."""
    panel.message.value = text
    panel.submit_button.click()
    await panel.idle()


async def forget(panel: MemoryPanel, which: str) -> None:
    """Click Forget key (for ``module``) or Forget all, as a student does, and wait for the panel."""
    if which == "key":
        panel.key.value = "module"
        panel.forget_key_button.click()
    else:
        panel.forget_all_button.click()
    await panel.idle()


def said(panel: MemoryPanel) -> str:
    """What the panel's note under the box says, as a student reads it: tags dropped, one line per ``<br>``."""
    return html.unescape(re.sub(r"<[^>]+>", "", panel.diagnostic.value.replace("<br>", "\n")))


def two_desks() -> DeskPanel:
    """Lesson 03's desk panel: the triage and operations desks sharing one store through the provider."""
    return DeskPanel(course_provider_desks(CallLog(), ("triage", "operations")))


async def send(panel: DeskPanel, line: str) -> None:
    """Type ``line`` into the desk panel and click Send."""
    panel.line.value = line
    panel.send_button.click()
    await panel.idle()


def last_in_chat(panel: DeskPanel) -> str:
    """The desk panel's latest chat entry as a student reads it (a refused line's rule is said there, in full)."""
    return html.unescape(re.sub(r"<[^>]+>", "", panel.transcript[-1].replace("<br>", "\n")))


async def why_of(panel: CapstonePanel, answer: str) -> str:
    """Lesson 07's panel: check ``answer`` against the store and read the one violation's "why" column."""
    panel.answer.value = answer
    panel.check_button.click()
    await panel.idle()
    (row,) = violation_rows(panel.result)
    return row["why"]
