"""A value written flush against Chinese or Japanese text is a word of its own (walk 24: ``Reporting模块``).

Chinese and Japanese put no space between words, so a Latin value or key inside such a sentence touches letters of
another script. The answer check reads a change of script as a word boundary, as a space would be; inside one script
the old rule stays ("Reportings", "Reporting-free" and "submodule" are no mention).
"""

import pytest

from course_lib.answer_reader import mentions
from course_lib.capstone import BATTERY_ASK, check_answer, sample_store, verdict

MEMORY, SUPERSEDED = sample_store()


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Reporting模块", "module: Reporting"),
        ("模块是Reporting。", "module: Reporting"),
        ("モジュールはReportingです", "module: Reporting"),
        ("数据库用PostgreSQL。", "database: PostgreSQL"),
        ("这个module=Oracle", "module: Oracle"),
        ("这个module\uff1aOracle。", "module: Oracle"),
        ("database=Oracle\uff0c好的", "database: Oracle"),
        ("Billing模块\uff0cSQL Server 2022数据库。", "pass"),
        ("ReportingsモジュールとPostgreSQLite", "pass"),
        ("这个submodule是Reporting-free", "pass"),
    ],
)
def test_a_change_of_script_is_a_word_boundary(answer: str, expected: str) -> None:
    assert verdict(check_answer(MEMORY.facts, answer, BATTERY_ASK, SUPERSEDED)) == expected


def test_inside_one_script_a_longer_word_is_no_mention() -> None:
    assert mentions("Reporting", "Reportingモジュール") == [0]
    assert mentions("Reporting", "Reportings") == []
    assert mentions("报表", "报表模块") == []  # Chinese inside Chinese: no boundary to read, as before
    assert mentions("报表", "Billing报表") == [7]
