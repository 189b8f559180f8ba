"""Issue 32, the seventh walks of lessons 01 and 03: the call log's sentence puts its bracket beside the count it
explains and prints no Markdown, the desk chat says the case note once, exercise 1's why is computed from what
happened and every desk reply is shown, lesson 03 says where the forget filter is, and the contract's table says
the case note the one way the panels and consoles say it."""

import html
import json
import re
from pathlib import Path

import pytest
from support.panels import last_in_chat, send, two_desks

from course_lib import assertions, providers
from course_lib.assertions import near_misses
from course_lib.providers import course_provider_desks, try_smuggling
from course_lib.tracing import CallLog, log_after_forget
from course_lib.widgets import describe_error

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def lesson(prefix: str) -> dict:
    return json.loads(next(NOTEBOOKS.glob(f"{prefix}_*.ipynb")).read_text(encoding="utf-8"))


def source(cell: dict) -> str:
    return "".join(cell["source"])


def printed(cell: dict) -> str:
    found = []
    for output in cell.get("outputs", []):
        found.append("".join(output.get("text", "")))
        for kind in ("text/plain", "text/html"):
            found.append(html.unescape("".join(output.get("data", {}).get(kind, ""))))
    return "".join(found)


# --- finding 1: the bracket stands beside the count it explains; printed text is not Markdown ---

BRACKETED = re.compile(
    r"of the (\d+) calls made before (?:'forget module'|the forget) \(each of the (\d+) turns called its desk, then "
    r"the writer\), (\d+) sent it"
)


@pytest.mark.parametrize("forget_line", ["forget module", "forget  module", None])
async def test_the_log_sentence_explains_the_calls_beside_their_count_and_quotes_the_forget(forget_line):
    log = CallLog()
    desks = course_provider_desks(log)
    await desks.handle("module=Billing")
    await desks.handle("Which module am I on?")
    await desks.handle("database=Oracle")
    forgotten_at = len(log)
    await desks.handle("forget module")
    await desks.handle("Which module am I on?")
    said = log_after_forget(log, "Billing", forgotten_at, forget_line)
    assert "`" not in said
    found = BRACKETED.search(said)
    assert found, said
    calls, turns, sent = (int(g) for g in found.groups())
    assert calls == forgotten_at == 2 * turns
    assert sent == sum(any("Billing" in m.text for m in c.messages) for c in log.calls[:forgotten_at])


def test_lesson_03_prints_the_reordered_log_sentence_without_backticks():
    cells = lesson("03")["cells"]
    cell = next(c for c in cells if "log_after_forget(log" in source(c))
    out = printed(cell)
    assert "`" not in out
    assert BRACKETED.search(out), out


# --- finding 2: the desk chat says the case note once ---


@pytest.mark.parametrize("key", ["Module", "MODULE", "dataBase"])
async def test_the_desk_chat_says_the_case_note_once_for_forget_in_another_case(key):
    panel = two_desks()
    await send(panel, "module=Billing")
    await send(panel, f"forget {key}")
    chat = last_in_chat(panel)
    assert chat.lower().count("case-sensitive") == 1, chat
    assert f"write '{key.lower()}'" in chat


def test_an_error_that_says_the_case_note_gets_no_second_one_and_one_that_does_not_gets_it():
    note = "Cannot forget: 'Module' is not an allowed key (keys are case-sensitive): write 'module'."
    said = describe_error(ValueError(note))
    assert said.lower().count("case-sensitive") == 1
    plain = describe_error(ValueError("'Module' is not one of the allowed keys."))
    assert "case-sensitive" in plain.lower() and "write 'module'" in plain


# --- finding 3: exercise 1's why is computed; every desk reply is shown ---


@pytest.mark.parametrize("message", ["priority=P0", "module=Billing; priority=P0", "priority=P0 please"])
async def test_a_message_declaring_priority_itself_shows_the_desk_reply_too(message):
    attempt = await try_smuggling(message, namespace={})
    assert not attempt.smuggled
    assert attempt.feedback.startswith("the desk replied: ")
    assert "declares priority itself" in attempt.feedback


REFUSED_WHOLE = [
    "module=Billing priority=P0; database=a; product=b; customer=c; version=d; log=e",
    "module=" + "x" * 300 + " priority=P0",
]


@pytest.mark.parametrize("message", REFUSED_WHOLE)
async def test_the_why_of_a_message_refused_whole_says_the_store_kept_nothing(message):
    attempt = await try_smuggling(message, namespace={})
    assert attempt.smuggled and attempt.facts_stored == 0
    assert "one fact per key" not in attempt.why
    assert "refused the entire message" in attempt.why
    assert "0" in attempt.why


@pytest.mark.parametrize(
    "message, keys",
    [
        ("module=Billing priority=P0", ["module"]),
        ("database=SQL; module=Billing priority=P0", ["database", "module"]),
    ],
)
async def test_the_why_of_a_stored_message_names_its_facts_and_their_number(message, keys):
    attempt = await try_smuggling(message, namespace={})
    assert attempt.smuggled and attempt.facts_stored == len(keys)
    assert f"{len(keys)} fact" in attempt.why
    assert all(key in attempt.why for key in keys)
    assert "started empty" in attempt.why


def test_lesson_03_exercise_1_passes_the_computed_why_and_says_the_desk_is_fresh():
    cells = lesson("03")["cells"]
    i = next(i for i, c in enumerate(cells) if "try_smuggling(message_1)" in source(c))
    assert "why=attempt.why" in source(cells[i]).replace(" ", "")
    question = " ".join(source(cells[i - 1]).split())
    assert "fresh desk" in question and "store starts empty" in question


# --- finding 4: the forget filter is named where it is, or said to come later ---


def test_lesson_03_names_the_forget_filter_only_beside_code_that_has_it_or_says_it_is_left_out():
    cells = lesson("03")["cells"]
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown" or "forget filter" not in source(cell):
            continue
        after = next((c for c in cells[i + 1 :] if c["cell_type"] == "code"), None)
        filter_made = r"hold_agent\(|forget_filter\(|provider_agent\(|ProviderDesks\.build\("
        has_filter = after is not None and re.search(filter_made, source(after))
        assert has_filter or "leaves out" in source(cell), source(cell)


# --- finding 5: one case note, from the contract's layer ---


def test_the_case_note_is_one_function_and_the_contract_table_says_it_that_way():
    assert providers.case_note is assertions.case_note
    (miss,) = [m for m in near_misses("Module=Billing") if m.problem == "wrong case"]
    assert miss.reason + "." == assertions.case_note("Module", "module")
    assert miss.reason == "'Module' is not an allowed key (keys are case-sensitive): write 'module'"


def test_lesson_01_prints_the_case_note_the_one_way():
    out = "".join(printed(c) for c in lesson("01")["cells"])
    assert "(keys are case-sensitive): write 'module'" in out
    assert "case-sensitive: write" not in out.replace("case-sensitive): write", "")
