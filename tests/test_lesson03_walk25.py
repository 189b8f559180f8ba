"""Lesson 03's walk 25 (issue 32): passages before "Under the hood" that explained the port or ran ahead, and two
wordings a new student read twice.

1. Section 5 says the forget filter in one sentence and shows it; why a desk that forgets still needs it (a run under
   way, a loop) is under the hood, where the loop example already was.
2. The student path no longer names a *loop* it does not define: section 7 drops "and so does a loop (section 5)".
3. Section 8's printed note says the lesson's own fact (each path has one desk) without checking it against the seed;
   the seed's other desk is said under the hood. No output on the student path compares the lesson with the seed.
4. Section 2 says the router's case and whole-word rules plainly, with an example of the letters ``log`` inside a word
   that is not the word (not exercise 2's own words, which would give its answer away).
5. Section 3 says in one point why the facts block is a user message.
6. The intro's list of terms is headed "New words in these goals:".
"""

from __future__ import annotations

from support.lesson_cells import cell_outputs, cell_source, stored_lesson, student_path, words

from course_lib.providers import compare_injection, one_desk_note, route_by_topic


def _cells() -> list[dict]:
    return stored_lesson("03")["cells"]


def _hood_index() -> int:
    return next(i for i, c in enumerate(_cells()) if "".join(c["source"]).startswith("## Under the hood"))


def _hood() -> str:
    return " ".join(words("".join(c["source"])) for c in _cells()[_hood_index() :] if c["cell_type"] == "markdown")


def _student_outputs() -> str:
    return "\n".join(cell_outputs("03", c["id"]) for c in _cells()[: _hood_index()] if c["cell_type"] == "code")


# --- finding 1 ---


def test_section_5_says_the_forget_filter_in_one_sentence_and_shows_it() -> None:
    said = words(cell_source("03", "attach-filter-md"))
    assert said == (
        "`ProviderDesks.build` also adds lesson 02's *forget filter*, which writes `[forgotten]` in place of a "
        "forgotten value in anything still about to be sent. That includes the messages of a run that began "
        "before the forget, which a new session cannot clean. Under the hood shows the filter after `forget module` "
        "alone. "
        "Here it is on the operations desk's old reply. Section 4's last `forget` emptied the store (its facts; "
        "it still knows which values it forgot, which is how the filter can hide them). So both `database` and "
        "`module` come out as `[forgotten]`; after `forget module` alone, only `module` would."
    )  # second walk 25: why both values of the printed line are forgotten; fourth: what the store still knows
    assert "module=[forgotten]" in cell_outputs("03", "attach-filter")  # what the sentence says it does


def test_why_a_desk_that_forgets_needs_the_filter_is_under_the_hood() -> None:
    hood = words(cell_source("03", "hood-filter-loop"))
    assert "even after section 4 gave them new sessions" in hood
    assert "A new session can't clean a run that has already started: that run still holds the old messages." in hood
    assert "A *loop* is code that re-runs an agent until a check is met" in hood
    assert "with it, the call sends `module=[forgotten]`" in hood


# --- finding 2 ---


def test_the_student_path_names_no_loop_it_does_not_define() -> None:
    path = [words(cell) for cell in student_path("03")]
    assert not [cell[:80] for cell in path if "loop" in cell.lower()]
    assert "so does a loop" not in words(cell_source("03", "72291c68"))
    assert "MAF's history provider and the facts provider label theirs for you." in words(cell_source("03", "72291c68"))


# --- finding 3 ---


async def test_section_8_s_note_says_one_desk_per_path_without_the_seed() -> None:
    comparison = await compare_injection()
    note = one_desk_note(comparison)
    logs = comparison[comparison["line"] == "Where can I find logs?"]
    (n,) = {int(k) for k in logs["history messages after"]}
    assert note == (
        f"Each path has one desk, so the logs question goes to the same desk, and its history grows to {n} "
        "messages on both paths."
    )
    assert note in words(cell_outputs("03", "cell-20"))


async def test_a_script_whose_logs_line_reaches_a_history_of_another_size_is_said_with_it() -> None:
    """The note is computed from the table for whatever script it is given, not written for the seed's."""
    script = ("module=Billing", "Where can I find logs?")
    note = one_desk_note(await compare_injection(script))
    assert note.endswith("its history grows to 4 messages on both paths.")


def test_no_output_on_the_student_path_compares_the_lesson_with_the_seed() -> None:
    assert "seed" not in _student_outputs().lower()


def test_the_seed_s_other_desk_is_said_under_the_hood() -> None:
    hood = _hood()
    assert "the seed sends `Where can I find logs?` to the other desk" in hood
    assert "section 8" in hood.lower()


# --- finding 4 ---


def test_section_2_says_the_router_s_rules_plainly() -> None:
    said = words(cell_source("03", "da89f784"))
    assert "Case does not matter: `LOGS` counts as `logs`." in said
    assert "Only whole words count: `login` holds the letters `log` but is not the word `log`" in said
    assert "`log-in` is the two words `log` and `in`" in said
    assert "(`deployments` is not `deployment`)" in said
    assert "capitals or not alike" not in said and "run of letters" not in said
    # exercise 2 stays an exercise: section 2 does not say its question's words
    assert "catalog" not in said and "blog" not in said
    assert route_by_topic("LOGS please") == "operations"
    assert route_by_topic("login page broken") == "triage"
    assert route_by_topic("log-in page broken") == "operations"
    assert route_by_topic("deployments failed") == "triage" and route_by_topic("deployment failed") == "operations"


# --- finding 5 ---


def test_section_3_says_why_the_block_is_a_user_message_in_one_point() -> None:
    said = words(cell_source("03", "correction-sources-read"))
    assert (
        "The block's facts are only what the user said, their truth unchecked, so it is sent as a user message, "
        "never as instructions." in said
    )
    assert "no more say" not in said


# --- finding 6 ---


def test_the_intro_heads_its_terms_as_new_words() -> None:
    top = words(cell_source("03", "cell-00"))
    assert "New words in these goals:" in top and "The goals' words:" not in top
