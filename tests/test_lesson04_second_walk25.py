"""Lesson 04's second walk 25 (4/5: "one confusing pair of policy names and a few wordy sentences before Under the
hood"), one region per finding.

1. "last 3 turns" and "compaction (3 turns)" sounded the same but send 4 and 3 user messages: one bullet, before the
   reducer's, says what the numbers in the names count, with numbers a replay reproduces.
2. Section 3b's pointer to the recording's stop is cut (section 4's recording says it).
3. The first "fold" on the student path says it is a folded note and how to open it.
4. Section 3b's extractive summary kept the prohibition because the lines it dropped were declared first, not by
   chance: the timeline and the summarizer's rule say so.
"""

from __future__ import annotations

import re

from course_lib.memory_models import find_declarations
from course_lib.policies import course_policies, load_timeline, run_policy
from course_lib.recordings import load_policy_costs
from course_lib.tracing import CallLog
from tests.support.lesson_cells import cell_outputs, cell_source, plain_words, student_path, words
from tests.support.policy_runs import last_reader_call

# region Finding 1: what the numbers in the names count, as a replay counts it


async def test_one_bullet_says_what_the_numbers_in_the_names_count():
    window_users, window_exchanges = await last_reader_call("last 3 turns")
    reducer_users, reducer_exchanges = await last_reader_call("reducer (3 turns)")
    compaction_users, compaction_exchanges = await last_reader_call("compaction (3 turns)")
    assert (window_users, window_exchanges) == (reducer_users, reducer_exchanges)
    said = (  # third walk 25: a paragraph under the list, not a bullet between compaction and the reducer
        "The numbers in the names count different things. last 3 turns and the reducer (3 turns) send the "
        f"{window_exchanges} exchanges before the question, plus the question ({window_users} user messages). "
        f"compaction (3 turns) sends {compaction_users} user messages in all, the question included "
        f"({compaction_exchanges} exchanges plus the question)."
    )
    section = plain_words(cell_source("04", "cell-02"))
    assert said in section
    assert section.index(said) > section.index("- the reducer shortens the stored history")
    # the two explanations it replaces are gone: no "last three" left to read as compaction's three
    assert "sends the question plus the" not in section and "sends only the last three" not in section
    # third walk 25: the compaction bullet says what stays stored
    assert section.count("keeps the whole conversation stored in the session") == 1


# endregion

# region Finding 2: section 3b's pointer to the recording's stop is cut; section 4 still says it


def test_section_3b_no_longer_points_to_the_recordings_stop():
    assert "Section 4 shows how a small real model" not in words(cell_source("04", "44536822"))
    assert "The summary policy stopped at turn 1" in words(cell_outputs("04", "0dfdbc21"))


# endregion

# region Finding 3: the first fold on the student path is called a folded note, with how to open it


def test_the_first_fold_on_the_student_path_says_how_to_open_it():
    path = words(" ".join(student_path("04")))
    first = path.lower().index("fold")
    assert path[first:].startswith("folded note (click ▸ to open)"), path[first - 40 : first + 60]


# endregion

# region Finding 4: the dropped lines came first because they were declared first


async def test_the_extractive_summary_dropped_turn_1s_lines_because_they_were_declared_first():
    timeline, log = load_timeline(), CallLog()
    keys = [[d.key for d in find_declarations(turn.user)] for turn in timeline.turns[:2]]
    assert keys == [["product", "module", "database"], ["constraint"]]
    policy = course_policies(summary_mode="extractive")["summary"]("latest", log)
    await run_policy(timeline, policy, log, "latest")
    summaries = [call.reply.strip().split("\n") for call in log.calls if call.client == "summarizer"]
    before_question = summaries[: len(timeline.turns) - 1]
    dropped = [
        line
        for line in dict.fromkeys(line for lines in before_question for line in lines)
        if line not in before_question[-1]
    ]
    # the summary's lines stand in the order declared, and what its budget dropped is turn 1's, all of it
    assert [line.split("=")[0] for line in dropped] == keys[0]
    assert before_question[1][:4] == [*before_question[0], before_question[1][3]]
    said = words(cell_source("04", "b4954903"))
    assert "happened to come first" not in said
    assert (  # third walk 25: one "because"
        "the lines it dropped were older: turn 1's product, module and database, declared before the "
        "prohibition of turn 2."
    ) in said.replace("`", "")


# endregion


def test_the_recorded_stop_turn_is_the_one_section_4_prints():
    stopped = [run for run in load_policy_costs().runs if run.policy == "summary" and run.stopped]
    turn = re.search(r"after turn (\d+)", stopped[0].stopped)
    assert turn and f"stopped at turn {turn.group(1)}" in words(cell_outputs("04", "0dfdbc21"))
