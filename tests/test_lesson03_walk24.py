"""Lesson 03 walked again (issue 32, walk 24): the value rule is said where section 7's table first shows
``"P0."``, the code cells lean on the restart line at the top rather than on "needs section 2" comments, *role* is
defined where a table first shows it, the forget filter is said with the lesson's own example (computed), and the
opening says what "seed" and "half" mean in plain words."""

from __future__ import annotations

from support.lesson_cells import cell_outputs, cell_source, stored_lesson, words


def _cells() -> list[dict]:
    return stored_lesson("03")["cells"]


def _student_path() -> list[dict]:
    cells = _cells()
    hood = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("## Under the hood"))
    return cells[:hood]


def _markdown_before(cell_id: str) -> str:
    """The student's markdown from the top of the lesson up to (not including) the cell ``cell_id``."""
    said = []
    for cell in _cells():
        if cell.get("id") == cell_id:
            return words(" ".join(said))
        if cell["cell_type"] == "markdown":
            said.append("".join(cell["source"]))
    raise AssertionError(cell_id)


# --- finding 1: "P0." is explained where the table first shows it ---


def test_the_value_rule_is_said_just_before_section_7_s_table_shows_p0_with_its_period() -> None:
    assert 'priority = "P0."' in cell_outputs("03", "program-note-both")
    said = words(cell_source("03", "program-note-both-md"))
    assert "a value ends at `;` or at the end of the line" in said
    assert "`P0.`" in said and "period" in said
    # the first table holding the value is this one: no earlier output shows "P0."
    earlier = []
    for cell in _cells():
        if cell.get("id") == "program-note-both":
            break
        if cell["cell_type"] == "code":
            earlier.append(cell_outputs("03", cell["id"]))
    assert not any('"P0."' in out for out in earlier)


# --- finding 2: no "needs section 2's cell" comments; the restart line at the top says it for all ---


def test_no_code_cell_on_the_student_path_opens_with_a_needs_comment() -> None:
    for cell in _student_path():
        if cell["cell_type"] == "code":
            assert "# needs " not in "".join(cell["source"]), cell.get("id")
    opening = words(cell_source("03", "cell-00"))
    assert "After a restart, run the imports cell" in opening and "then the cells in order" in opening


# --- finding 4: *role* is defined where a table first shows it ---


def test_role_is_defined_before_the_first_table_with_a_role_column() -> None:
    before = _markdown_before("correction-sources")
    assert "`role`" not in _markdown_before("cell-09") and " role " not in _markdown_before("cell-09")
    assert "*role*" in before
    for who in ("`user`", "`assistant`", "`system`"):
        assert who in before, who
    assert ">role</th>" in cell_outputs("03", "correction-sources")
    later = " ".join(words("".join(c["source"])) for c in _student_path() if c.get("id") == "correction-sources-read")
    assert "*role*" not in later  # said once


# --- finding 5: the forget filter, with the lesson's own example, computed ---


def test_the_forget_filter_is_shown_on_the_operations_desk_s_old_reply() -> None:
    said = words(cell_source("03", "attach-filter-md"))
    assert "Here it is on the operations desk's old reply" in said  # walk 24 (second): the loop moved under the hood
    source = cell_source("03", "attach-filter")
    assert "redact_text" in source and 'before["operations"]' in source
    shown = cell_outputs("03", "attach-filter")
    assert "module=Billing" in shown  # what the old session still holds
    assert "module=[forgotten]" in shown  # what the filter sends in its place


def test_the_filter_line_is_what_the_desks_filter_computes() -> None:
    from course_lib.memory import FactCandidate, WorkingMemory
    from course_lib.providers import forget_filter

    memory = WorkingMemory()
    turn = memory.begin_turn("module=Billing")
    memory.apply(turn, [FactCandidate(key="module", value="Billing", evidence="module=Billing")])
    memory.forget("module")
    said = "From what I can see: module=Billing."
    assert forget_filter(memory).redact_text(said) == "From what I can see: module=[forgotten]."


# --- finding 6: the opening says "seed" and "half" in plain words ---


def test_the_opening_says_what_the_seed_is_without_this_half() -> None:
    opening = words(cell_source("03", "cell-00"))
    assert "this half" not in opening
    assert "lessons 01 to 04" in opening.lower()
    assert "French article" in opening and "*seed*" in opening
