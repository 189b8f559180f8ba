"""Lesson 07's twelfth walk (issue 32): the evicted keys of a "why" in the order they went, each with its turn; the
misreads' kinds printed from the tags the table uses; a value submitted again unchanged says only its turn moved; a
double click on Submit leaves the first result on screen."""

from __future__ import annotations

from course_lib.capstone import _lost, capstone_policies, compare_repairs
from course_lib.policies import generate_timeline

# region 1. The keys a store lost, in the order it lost them


def test_lost_keys_are_listed_in_eviction_order_each_with_its_turn_whatever_order_they_come_in():
    evicted = {"module": 11, "database": 10, "constraint": 6}
    for keys in (["module", "database"], ["database", "module"]):
        assert _lost(keys, evicted) == (
            "the store lost the database and module facts (evicted: database at turn 10, module at turn 11)"
        )
    assert _lost(["module", "database", "constraint"], evicted) == (
        "the store lost the constraint, database and module facts "
        "(evicted: constraint at turn 6, database at turn 10, module at turn 11)"
    )
    assert _lost(["constraint"], evicted) == "the store lost the constraint fact (evicted at turn 6)"


async def test_the_generated_timeline_s_why_names_the_database_first_since_it_went_first():
    runs = await compare_repairs(generate_timeline(12), capstone_policies(max_facts=5), ["earliest"], max_facts=5)
    full = next(r for r in runs if r.policy == "full history")
    assert full.evicted["database"] < full.evicted["module"]
    assert full.why == (
        "the store lost the database and module facts (evicted: database at turn 10, module at turn 11), "
        "so nothing contradicts database=PostgreSQL and module=Reporting"
    )


# endregion
