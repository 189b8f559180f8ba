"""The panels, driven without a browser: set values, click, and check the store, tables and diagnostics."""

import pytest

from course_lib.clients import OfflineWriterClient
from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.loop_demos import run_seed_demo
from course_lib.memory import WorkingMemory
from course_lib.policies import generate_timeline, load_timeline
from course_lib.providers import offline_provider_desks
from course_lib.tracing import CallLog
from course_lib.widgets import DeskPanel, LoopStepper, MemoryPanel, PolicyExplorer


def memory_panel(misbehaviour=None):
    return MemoryPanel(MemoryExtraction(WorkingMemory(), ChatFactWriter(OfflineWriterClient(misbehaviour))))


async def submit(panel, text):
    panel.message.value = text
    panel.submit_button.click()
    await panel.idle()


async def test_submitting_declarations_fills_the_table_and_the_ticket():
    panel = memory_panel()
    await submit(panel, "module=Billing; database=SQL Server 2022")
    assert [f.key for f in panel.memory.facts] == ["database", "module"]
    assert "SQL Server 2022" in panel.table.value and "module=Billing" in panel.table.value
    assert "accepted" in panel.diagnostic.value and panel.ticket.value == "Ticket: epoch 0, turn 1"
    assert panel.key.options == ("database", "module")


async def test_a_rejected_batch_shows_its_diagnostic_and_leaves_the_table_unchanged():
    panel = memory_panel()
    await submit(panel, "module=Billing")
    table = panel.table.value
    panel.extraction.writer = ChatFactWriter(OfflineWriterClient("paraphrase"))
    await submit(panel, "module=Reporting")
    assert "rejected" in panel.diagnostic.value and "exact quote" in panel.diagnostic.value
    assert panel.table.value == table and panel.memory.facts[0].value == "Billing"


async def test_the_panel_cannot_bypass_the_contract():
    panel = memory_panel("infer")
    await submit(panel, "Our database is Oracle.")
    assert panel.memory.facts == () and "No semantic guess" in panel.diagnostic.value


async def test_forget_key_and_forget_all_buttons():
    panel = memory_panel()
    await submit(panel, "module=Billing; database=SQL Server 2022")
    panel.key.value = "module"
    panel.forget_key_button.click()
    assert [f.key for f in panel.memory.facts] == ["database"] and "Billing" not in panel.table.value
    assert panel.ticket.value == "Ticket: epoch 1, turn 1"
    panel.forget_all_button.click()
    assert panel.memory.facts == () and "No facts" in panel.table.value and panel.key.options == ()


async def test_an_empty_message_is_refused_in_place():
    panel = memory_panel()
    await submit(panel, "   ")
    assert "empty" in panel.diagnostic.value and panel.memory.turn == 0


async def test_desk_panel_routes_shows_the_desk_and_forget_replaces_both_sessions():
    desks = offline_provider_desks(CallLog(), ("triage", "operations"))
    panel = DeskPanel(desks)
    for line in ["module=Billing; database=SQL Server 2022", "Where can I find logs?", "mem"]:
        panel.line.value = line
        panel.send_button.click()
        await panel.idle()
    assert "[operations]" in panel.chat.value and "[triage]" in panel.chat.value
    assert "Billing" in panel.memory_panel.table.value
    old = dict(desks.sessions)
    panel.memory_panel.key.value = "module"
    panel.memory_panel.forget_key_button.click()
    assert [f.key for f in desks.memory.facts] == ["database"]
    assert all(desks.sessions[name] is not old[name] for name in old)


async def test_memory_panel_inside_the_desk_submits_a_full_desk_turn():
    desks = offline_provider_desks(CallLog(), ("triage", "operations"))
    panel = DeskPanel(desks)
    await submit(panel.memory_panel, "module=Billing")
    assert "[triage]" in panel.chat.value and "accepted" in panel.memory_panel.diagnostic.value


async def test_loop_stepper_walks_the_trace():
    trace, _ = await run_seed_demo()
    stepper = LoopStepper(trace)
    assert "Step 1: LLM" in stepper.view.value and "[4]Response message from LLM." in stepper.view.value
    stepper.next_button.click()
    assert "Step 2: Evaluator" in stepper.view.value and "Feedback for iteration 1" in stepper.view.value
    stepper.slider.value = 6
    assert "stop" in stepper.view.value
    stepper.next_button.click()
    assert stepper.slider.value == 6
    with pytest.raises(ValueError, match="empty"):
        LoopStepper(type(trace)())


async def test_policy_explorer_updates_the_table_and_the_plot():
    explorer = PolicyExplorer(load_timeline())
    explorer.policies.value = ("full history", "facts")
    explorer.rule.value = "earliest"
    explorer.run_button.click()
    await explorer.idle()
    assert "full history" in explorer.table.value and "last 3" not in explorer.table.value
    assert explorer.plot.outputs and "image/png" in explorer.plot.outputs[0]["data"]


async def test_policy_explorer_applies_the_window_and_bound():
    explorer = PolicyExplorer(generate_timeline(8))
    explorer.policies.value = ("last 3 turns",)
    explorer.window.value = 8
    explorer.run_button.click()
    await explorer.idle()
    assert "last 8 turns" in explorer.table.value
