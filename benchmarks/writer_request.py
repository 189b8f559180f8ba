"""The writer's request on the local model, each change against the last (issue 39): ``make bench-writer``.

The qualification battery (:data:`course_lib.qualify.BATTERY`) runs through the same host once per request, one
after the other in one process on one server, so the requests share the machine's load: today's instructions and
schema first, then the worked examples, then the bounded schema (the course's request now), then sampling settings
sent with the request. Per request: the cases as the contract says, cut at the output cap, rejected by the host,
wrong facts admitted (a fact the case's messages did not declare: always 0, the host sees to it) and wall time.

Apart from ``make bench`` and ``make test``: it loads the local model and takes a few minutes (``make local`` first).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field, WithJsonSchema

from course_lib.clients import make_chat_client
from course_lib.extraction import (
    WRITER_EXAMPLES,
    WRITER_INSTRUCTIONS,
    BatchRule,
    ChatFactWriter,
    FactBatch,
    careful_batch,
    counted,
)
from course_lib.live import REUSE_VAR, LiveSettingsError, load_course_settings
from course_lib.memory import FactCandidate
from course_lib.qualify import BATTERY, CAUSES, CaseResult, cause_of, score_battery
from course_lib.recordings import recorded_case, wrong_admitted
from course_lib.tracing import CallLog

EXAMPLES_AS_TEXT = (
    WRITER_INSTRUCTIONS
    + "\n\nExamples (their values are made up: never copy them):\n"
    + "\n".join(f"Message: {text}\nJSON: {json.dumps(careful_batch(text).model_dump())}" for text in WRITER_EXAMPLES)
)
"""The same worked examples written into the instructions instead of sent as turns (measured, not used)."""

_UNBOUNDED = {"type": "array", "items": FactCandidate.model_json_schema()}


class UnboundedBatch(FactBatch):
    """The writer's structured output: at most a handful of typed candidates."""  # the old schema's description

    facts: Annotated[list[FactCandidate], WithJsonSchema(_UNBOUNDED)] = Field(default_factory=list)


@dataclass(frozen=True)
class Request:
    """One way of asking the writer: instructions, example turns, the batch type (its schema), options per call."""

    name: str
    instructions: str
    examples: tuple[str, ...]
    batch: BatchRule
    options: Mapping[str, Any] = field(default_factory=dict)

    def factory(self) -> Callable[[Any], ChatFactWriter]:
        return lambda client: ChatFactWriter(
            client, self.instructions, examples=self.examples, batch=self.batch, options=self.options
        )


SERVER_SAMPLING = {"temperature": 0.8}
"""The server's own temperature, sent explicitly: the writer's role sampling (LOCAL_ROLE_SAMPLING) would apply else."""


def always(batch: type[FactBatch]) -> BatchRule:
    """The same schema whatever the message (every request before the count)."""
    return lambda _text: batch


UNBOUNDED, BOUNDED = always(UnboundedBatch), always(FactBatch)
REQUESTS = (
    Request("before: rules only, unbounded schema", WRITER_INSTRUCTIONS, (), UNBOUNDED, SERVER_SAMPLING),
    Request("(tried) the examples inside the instructions", EXAMPLES_AS_TEXT, (), UNBOUNDED, SERVER_SAMPLING),
    Request("+ examples as earlier turns", WRITER_INSTRUCTIONS, WRITER_EXAMPLES, UNBOUNDED, SERVER_SAMPLING),
    Request("+ bounded schema", WRITER_INSTRUCTIONS, WRITER_EXAMPLES, BOUNDED, SERVER_SAMPLING),
    Request("(tried) + temperature 0.2", WRITER_INSTRUCTIONS, WRITER_EXAMPLES, BOUNDED, {"temperature": 0.2}),
    Request("+ temperature 0", WRITER_INSTRUCTIONS, WRITER_EXAMPLES, BOUNDED),
    Request("+ the declared count: the course's request", WRITER_INSTRUCTIONS, WRITER_EXAMPLES, counted),
)


def _cut(result: CaseResult) -> bool:
    return cause_of(result.reason) == f"model: {CAUSES['cut_at_output_cap']}"


async def measure(request: Request) -> dict[str, Any]:
    log = CallLog()
    load = os.getloadavg()[0]
    start = time.perf_counter()
    print(f"({request.name}: running)", file=sys.stderr, flush=True)
    results = await score_battery(make_chat_client("writer", log=log), log, BATTERY, request.factory())
    return {
        "request": request.name,
        "as the contract says": sum(r.as_contract for r in results),
        "cut at the cap": sum(_cut(r) for r in results),
        "rejected": sum(r.outcome == "rejected" for r in results),
        "wrong admitted": sum(wrong_admitted(recorded_case(r)) for r in results),
        "wall s": round(time.perf_counter() - start, 1),
        "completion tokens": sum(c.output_tokens or 0 for c in log.calls),
        "load (1 min) at start-end": f"{load:.1f}-{os.getloadavg()[0]:.1f}",
    }


async def measure_all(requests: list[Request]) -> list[dict[str, Any]]:
    """One after the other in one event loop (the clients' connections close in the loop that opened them)."""
    return [await measure(request) for request in requests]


def main(names: list[str]) -> int:
    os.environ["COURSE_LLM"] = "local"
    os.environ[REUSE_VAR] = "0"  # every case asked: a figure times the model's calls
    try:
        load_course_settings()
    except LiveSettingsError as error:
        print(error, file=sys.stderr)
        return 2
    chosen = [r for r in REQUESTS if not names or any(n in r.name for n in names)]
    rows = asyncio.run(measure_all(chosen))
    header = list(rows[0])
    print("| " + " | ".join(header) + " |")
    print("| " + " | ".join("---" for _ in header) + " |")
    for row in rows:
        print("| " + " | ".join(str(row[h]) for h in header) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
