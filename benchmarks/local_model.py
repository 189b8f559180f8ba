"""The local model's figures for ``make bench``: generation speed, seconds per call per role, the qualification.

Measured on the real embedded server (``COURSE_LLM=local``, ``make local``); skipped with a note when it is not
installed. Wall-clock seconds (the model runs in llama.cpp's threads, not this process's CPU time), so on a shared
machine they are pessimistic: the load average is printed with them. Target: the qualification within 30 s on the
course's 2-core machine (issue 39; 60 s in issue 21, before the writer's worked examples stopped its loops).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import urllib.request
from typing import Any

from agent_framework import Agent

from course_lib.clients import course_backends, make_chat_client
from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.live import REUSE_VAR, LiveModelError, LiveSettingsError
from course_lib.memory import WorkingMemory
from course_lib.policies import SUMMARIZER_INSTRUCTIONS
from course_lib.prompts import summary_prompt
from course_lib.qualify import qualify
from course_lib.tracing import CallLog

QUALIFICATION_TARGET = 30.0
QUESTION = "module=Billing; database=SQL Server 2022. Which module and database are we on?"


def _tokens_per_second(base_url: str, model: str) -> float:
    """llama.cpp's own generation speed for one capped answer (``timings.predicted_per_second``)."""
    body = {"model": model, "messages": [{"role": "user", "content": "Describe a support ticket."}], "max_tokens": 128}
    request = urllib.request.Request(
        f"{base_url}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=300) as response:
        return float(json.loads(response.read())["timings"]["predicted_per_second"])


async def _once() -> dict[str, float]:
    live = course_backends().live
    assert live is not None and live.base_url is not None
    values = {"local: generation speed": _tokens_per_second(live.base_url, live.model)}
    start = time.perf_counter()
    await MemoryExtraction(WorkingMemory(), ChatFactWriter(make_chat_client("writer"))).update("module=Billing")
    values["local: seconds per writer call"] = time.perf_counter() - start
    start = time.perf_counter()
    await Agent(client=make_chat_client("reader"), instructions="Answer briefly.").run(QUESTION)
    values["local: seconds per reader call"] = time.perf_counter() - start
    start = time.perf_counter()
    summarizer = Agent(client=make_chat_client("summarizer"), instructions=SUMMARIZER_INSTRUCTIONS)
    try:
        await summarizer.run(summary_prompt("module=Reporting", "module=Billing", "Noted: module=Billing."))
    except LiveModelError as error:  # a summary cut at the output cap still took its seconds: it is timed too
        if error.kind != "cut_at_output_cap":
            raise
    values["local: seconds per summarizer call"] = time.perf_counter() - start
    log = CallLog()
    start = time.perf_counter()
    await qualify(make_chat_client("writer", log=log), log)
    values["local: qualification wall time"] = time.perf_counter() - start
    return values


def figures(repeats: int) -> list[Any]:
    """For ``benchmarks/run.py``: the local model's figures, or none (with a note) when it is not installed."""
    from figures import Figure, repeat  # benchmarks/figures.py, beside this file

    previous = {name: os.environ.get(name) for name in ("COURSE_LLM", REUSE_VAR)}
    os.environ["COURSE_LLM"] = "local"  # make bench runs offline; only this module asks for the local model
    os.environ[REUSE_VAR] = "0"  # a figure times the model's calls: a repeat must not be answered from the memo
    try:
        course_backends()
    except LiveSettingsError as error:
        print(f"(local_model: skipped: {error})", file=sys.stderr)
        _restore(previous)
        return []
    table = {
        "local: generation speed": Figure("local: generation speed", "tokens/s", at_most=False),
        "local: seconds per writer call": Figure("local: seconds per writer call", "s wall"),
        "local: seconds per reader call": Figure("local: seconds per reader call", "s wall"),
        "local: seconds per summarizer call": Figure("local: seconds per summarizer call", "s wall"),
        "local: qualification wall time": Figure(
            "local: qualification wall time", "s wall", target=QUALIFICATION_TARGET
        ),
    }
    try:
        return repeat(repeats, lambda: asyncio.run(_once()), table)
    finally:
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"(local_model: measured under load average {load})", file=sys.stderr)
        _restore(previous)


def _restore(previous: dict[str, str | None]) -> None:
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


if __name__ == "__main__":
    from figures import table as markdown

    print(markdown(figures(int(sys.argv[1]) if len(sys.argv) > 1 else 1)))
