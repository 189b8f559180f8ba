"""The nits of lessons 02, 06 and 07's last walk (issue 32): what the student met, and what they read now."""

from support.panels import memory_panel, submit

from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.frames import count_noun
from course_lib.memory import WorkingMemory
from course_lib.memory_models import OfflineWriterClient


def test_a_count_is_said_with_its_noun_in_the_singular_or_the_plural_never_with_s_in_brackets():
    assert [count_noun(n, "fact") for n in (0, 1, 2)] == ["0 facts", "1 fact", "2 facts"]
    assert count_noun(2, "reply", "replies") == "2 replies"


async def test_the_extraction_report_counts_its_facts_in_words():
    memory = WorkingMemory()
    extraction = MemoryExtraction(memory, ChatFactWriter(OfflineWriterClient()))
    assert (await extraction.update("module=Billing")).diagnostic == "Admitted 1 fact: module."
    assert (await extraction.update("module=Billing; database=SQL Server 2022")).diagnostic == (
        "Admitted 2 facts: module, database."
    )


async def test_the_memory_panel_says_which_value_a_correction_replaced():
    panel = memory_panel()
    await submit(panel, "customer=Northwind; module=Billing")
    assert "replaced" not in panel.diagnostic.value
    await submit(panel, "customer=Contoso; module=Billing")
    said = panel.diagnostic.value
    assert 'customer: "Contoso" replaced "Northwind" (which the user said at turn 1). A correction keeps' in said
    assert 'module: "Billing" replaced' not in said  # declared again unchanged: nothing replaced


async def test_a_value_declared_again_unchanged_is_not_called_a_replacement():
    panel = memory_panel()
    await submit(panel, "module=Billing")
    await submit(panel, "module=Billing")
    said = panel.diagnostic.value.replace("&quot;", '"')
    assert 'replaced "' not in said and "A correction keeps" not in said
    assert "nothing was replaced, only its turn moved" in said  # said what happened instead


def test_the_empty_message_box_shows_an_example_that_reads_as_one():
    assert memory_panel().message.placeholder.startswith("e.g. ")
