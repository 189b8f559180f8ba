"""Lesson 01's walk 22 (issue 32): density, not errors. Each finding checked at its rule.

forget is called by the cell and only described by a helper; tickets get their reason in section 2; the student's
path has no sentence over 35 words and no bracket inside a bracket; the order of the checks sits under the table it
names; the word list names each word once; a refusal in section 3's table shows a candidate as ``owner=alice``;
left_out says "is not an allowed key" for every key it refuses, with the key meant for a slip of one or two letters.
"""

from __future__ import annotations

import re

import pytest
from test_student_path import hood_index, lesson

from course_lib.assertions import case_note, left_out, near_misses, spelling_slip
from course_lib.memory import FactCandidate, InvalidFacts, WorkingMemory, forget_sentence

LESSON = "01_contract_and_store"


def _cells() -> list:
    return lesson(LESSON).cells


def _cell(cell_id: str):
    return next(c for c in _cells() if c.get("id") == cell_id)


def _student_markdown() -> list[str]:
    cells = _cells()
    return [c.source for c in cells[: hood_index(cells)] if c.cell_type == "markdown"]


def _plain(text: str) -> str:
    """Markdown as read: code spans one word, links their text."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"`[^`]*`", "X", text)
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)


def sentences(text: str) -> list[str]:
    """The sentences of a markdown cell: a paragraph or a bullet is split after ``.``, ``?`` or ``!``."""
    found = []
    for block in re.split(r"\n\s*\n|\n(?=\s*[-*] )|\n(?=#)", _plain(text)):
        said = " ".join(block.split())
        found += [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z*(\"'])", said) if s]
    return found


def bracket_in_bracket(sentence: str) -> bool:
    depth = 0
    for char in sentence:
        if char in "([":
            depth += 1
            if depth > 1:
                return True
        elif char in ")]":
            depth = max(0, depth - 1)
    return False


def _owner_batch() -> tuple[WorkingMemory, list[FactCandidate], InvalidFacts]:
    memory = WorkingMemory()
    text = "module=Billing; owner=alice"
    batch = [
        FactCandidate(key="module", value="Billing", evidence="module=Billing"),
        FactCandidate(key="owner", value="alice", evidence="owner=alice"),
    ]
    with pytest.raises(InvalidFacts) as caught:
        memory.apply(memory.begin_turn(text), batch)
    return memory, batch, caught.value


# 1. forget is the cell's own call; the helper only describes it


def test_the_forget_sentence_describes_and_changes_nothing():
    memory = WorkingMemory()
    said = "module=Billing; database=SQL Server 2022"
    memory.apply(
        memory.begin_turn(said),
        [
            FactCandidate(key="module", value="Billing", evidence="module=Billing"),
            FactCandidate(key="database", value="SQL Server 2022", evidence="database=SQL Server 2022"),
        ],
    )
    epoch_before, facts_before = memory.epoch, memory.facts
    removed = memory.forget("module")
    after = (memory.epoch, memory.facts)
    sentence = forget_sentence(memory, "module", removed, facts_before, epoch_before)
    assert (memory.epoch, memory.facts) == after  # describing a forget forgets nothing more
    assert sentence == (
        'forget("module") removed 1 fact (module=Billing); the epoch went from 0 to 1; '
        "the store still holds database=SQL Server 2022."
    )


def test_the_lesson_calls_forget_itself_and_prints_the_description():
    cell = _cell("forget-one-key")
    assert 'removed = two_facts.forget("module")' in cell.source
    assert "forget_key_sentence" not in cell.source
    printed = "".join(o.get("text", "") for o in cell.outputs)
    assert 'forget("module") removed 1 fact (module=Billing); the epoch went from 0 to 1' in printed


def test_no_sentence_helper_of_the_store_runs_forget():
    import course_lib.memory as memory

    assert not hasattr(memory, "forget_key_sentence")


# 2. section 2 says why tickets exist


def test_section_2_gives_the_reason_for_tickets():
    words = " ".join(_cell("cell-08").source.split())
    assert "Extraction by a model takes time" in words
    assert "refuse a write that arrives too late" in words


# 3. short sentences, one bracket level, through the student's path


def test_no_sentence_of_the_students_path_is_long_or_nests_brackets():
    bad = [s for src in _student_markdown() for s in sentences(src) if len(s.split()) > 35 or bracket_in_bracket(s)]
    assert bad == []


def test_the_objective_on_tickets_and_the_scenario_hold_one_bracket_at_most():
    intro = _cell("cell-00").source
    ticket_line = next(line for line in intro.splitlines() if "ticket" in line)
    assert ticket_line.count("(") <= 1
    scenario = intro[intro.index("Scenario") :]
    for sentence in sentences(scenario):
        assert sentence.count("(") <= 1, sentence


def test_the_evidence_puzzle_is_said_in_short_sentences():
    source = _cell("cell-20").source
    assert all(len(s.split()) <= 25 for s in sentences(source.split("\n\n")[0])), source


# 4. the order of the checks comes under the table


def test_the_order_of_the_checks_is_said_once_under_the_first_table():
    cells = _cells()
    order = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and "order of the checks" in c.source]
    table = next(i for i, c in enumerate(cells) if c.get("id") == "cell-11")
    assert order and all(i > table for i in order)
    assert "order of the checks" not in _cell("cell-10").source
    # third walk 23: the order itself is under the hood; the path keeps one sentence pointing there
    text = " ".join(_cell("hood-rule-order").source.split())
    assert text.count("the last row of section 3's first table") == 1


# 5, 6. the word list


def test_the_word_list_names_each_word_once():
    source = _cell("8deb2299").source
    heads = [h for line in source.splitlines() if (h := re.match(r"- \*\*(.+?)\*\*", line))]
    words = [w.strip() for h in heads for w in h.group(1).split(",")]
    assert len(words) == len(set(words)), words
    maf = [line for line in source.splitlines() if "**MAF**" in line]
    assert not maf or "(from lesson 02)" in maf[0]


def test_the_word_list_points_to_the_glossary_plainly():
    words = " ".join(_cell("8deb2299").source.split())
    assert (
        "The glossary has the full list, with translations of the French and Chinese passages the lessons quote."
        in (_plain(words))
    )


# 7. the table shows a candidate as key=value


def test_a_refusal_shows_its_candidate_as_key_equals_value():
    _, _, error = _owner_batch()
    # second walk 22: the contract's own message writes the pair so (tests/test_lesson01_second_walk22.py)
    assert error.reason.startswith("Invalid fact #2 (owner=alice): unknown key; allowed keys are")


def test_section_3s_table_shows_no_quoted_pair():
    html = "".join(o.get("data", {}).get("text/html", "") for o in _cell("cell-11").outputs)
    assert "Invalid fact #2 (owner=alice)" in html
    assert "&#39;owner&#39;=&#39;alice&#39;" not in html


# 8. one wording for a key that is not allowed, with the key meant


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("modul", "module"), ("modules", "module"), ("priorty", "priority"), ("databse", "database"), ("MODUL", "module")],
)
def test_a_slip_of_one_or_two_letters_names_the_key_meant(typed, meant):
    assert spelling_slip(typed) == meant
    assert left_out(f"{typed}=Billing") == [f"'{typed}' is not an allowed key: write '{meant}'"]


@pytest.mark.parametrize("typed", ["owner", "module", "Module", "x", "region", "customers_id"])
def test_a_key_far_from_every_allowed_key_or_an_allowed_one_is_no_slip(typed):
    assert spelling_slip(typed) is None


def test_every_refused_key_is_not_an_allowed_key():
    assert left_out("Module=Billing") == ["'Module' is not an allowed key (keys are case-sensitive): write 'module'"]
    assert left_out("owner=alice") == ["'owner' is not an allowed key"]
    assert case_note("Module", "module") == "'Module' is not an allowed key (keys are case-sensitive): write 'module'."
    [miss] = near_misses("modul=Billing")
    assert miss.reason == "'modul' is not an allowed key: write 'module'"


def test_lesson_01s_table_says_not_an_allowed_key_for_every_key():
    text = "".join(o.get("data", {}).get("text/plain", "") for o in _cell("cell-03").outputs)
    assert "is not a key" not in text
    assert "'Module' is not an allowed key (keys are case-sensitive): write 'module'" in text
