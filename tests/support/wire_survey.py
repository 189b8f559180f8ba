"""Survey every way a live endpoint can fail, through the real course client, and time each (not part of `make test`).

    .venv/bin/python tests/support/wire_survey.py [--timeout 3] [--retries 1] [--drip 1.0]

For each fault the loopback server (``wire_server.py``) can play, plain and streamed, the desk assistant asks once;
the table shows the wall time, the call's deadline (``COURSE_LLM_TIMEOUT`` x attempts + backoff), the failure
kind and what the student reads. ``docs/live-endpoints.md`` quotes a run of it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_framework import Agent
from wire_server import FAULTS, loopback_server

from course_lib.clients import make_chat_client
from course_lib.live import LiveModelError, load_course_settings
from course_lib.live_client import LiveChatClient  # loaded before the clock starts: an import is not a wait

KEY = "sk-proj-" + "survey0123456789" * 8


async def ask(stream: bool) -> str:
    client = make_chat_client("assistant")
    assert isinstance(client, LiveChatClient)
    agent = Agent(client=client)
    if stream:
        run = agent.run("module=Billing", stream=True)
        async for _ in run:
            pass
        return (await run.get_final_response()).text
    return (await agent.run("module=Billing")).text


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def survey(timeout: float, retries: int, drip: float, only: list[str], stop_after: float) -> None:
    print("| fault | mode | wall (s) | deadline (s) | kind | the student reads |")
    print("| --- | --- | ---: | ---: | --- | --- |")
    for fault in only or (*FAULTS, "down"):
        for stream in (False, True):
            with loopback_server() as server:
                stopper = threading.Timer(stop_after, server.release.set)  # the server stops playing then
                stopper.start()
                os.environ.update(
                    COURSE_LLM="openai",
                    OPENAI_MODEL="local-model",
                    OPENAI_API_KEY=KEY,
                    OPENAI_BASE_URL=server.base_url if fault != "down" else f"http://127.0.0.1:{free_port()}/v1",
                    COURSE_LLM_TIMEOUT=str(timeout),
                    COURSE_LLM_MAX_RETRIES=str(retries),
                )
                server.fault = None if fault == "down" else fault
                server.drip, server.echo_pad = drip, 65
                deadline = load_course_settings().live.deadline  # type: ignore[union-attr]
                start = time.perf_counter()
                try:
                    text = await ask(stream)
                    kind, said = "(answer)", text
                except LiveModelError as error:
                    kind, said = error.kind, str(error).split(": ", 1)[1]
                except Exception as error:  # the survey reports whatever escapes
                    kind, said = type(error).__name__, str(error)
                wall = time.perf_counter() - start
                stopper.cancel()
            shown = said.replace("|", "\\|").replace("\n", " ")
            print(f"| {fault} | {'streamed' if stream else 'plain'} | {wall:.1f} | {deadline:g} | {kind} | {shown} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--retries", type=int, default=1)
    parser.add_argument("--drip", type=float, default=1.0, help="seconds between two bytes of a slow fault")
    parser.add_argument("--only", nargs="*", default=[], help="these faults only")
    parser.add_argument("--stop-after", type=float, default=120.0, help="seconds after which the server stops")
    args = parser.parse_args()
    asyncio.run(survey(args.timeout, args.retries, args.drip, args.only, args.stop_after))


if __name__ == "__main__":
    main()
