"""`make stress`, the live families (issue 33): hostile endpoints and settings at scale, with counts and breaks.

Each family draws seeded random inputs and counts those the course mishandles:

* ``key encodings``: a key of random characters (``+ / =``, spaces, ``%``) in the base URL's query, written into a
  text as it is sent and logged (httpx's own encoding of the request URL, percent- and form-encoding, either hex
  case): broken if any run of 8 characters of that form survives masking;
* ``stream masking``: an answer echoing pieces of the key, streamed in random chunks of 1-40 characters through
  :class:`~course_lib.live_client.StreamMask`: broken if what is shown differs from the whole answer masked at once,
  or shows a run of the key;
* ``reply shapes``: a completion reshaped as a hostile server might (choices as an object, content as a list, a
  number or an object, 2-3 choices, ``content_filter``, usage negative, fractional, huge or text), sent over loopback
  HTTP through the real openai SDK, streamed or not: broken if the student does not get the course's error naming
  that cause, or gets a count that is not a plausible one;
* ``settings``: keys with control or non-ASCII characters, ports from 0 to 200,000, non-finite or malformed bounds:
  broken if one is accepted though it cannot work, or refused with anything but a ``LiveSettingsError`` naming it.

Run alone: ``python tests/support/stress_live.py --examples 2000`` (seeded, so repeatable).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import re
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

sys.path.insert(0, str(Path(__file__).parent))

SEED = 20261201
KEY_ALPHABET = string.ascii_letters + string.digits + "+/= -_.~%&"


def runs(text: str, width: int = 8) -> set[str]:
    return {text[i : i + width] for i in range(len(text) - width + 1)} if len(text) >= width else {text}


def shown_runs(shown: str, secret: str) -> list[str]:
    return sorted(run for run in runs(secret) if run in shown)


def lower_hex(encoded: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), encoded)


def key_encodings(count: int) -> tuple[int, list[str]]:
    import httpx2

    from course_lib.live import LiveSettings

    rng, broken = random.Random(SEED), []
    for _ in range(count):
        key = "".join(rng.choice(KEY_ALPHABET) for _ in range(rng.randint(8, 48))).strip() or "k" * 8
        base = "http://127.0.0.1:8000/v1"
        url = f"{base}?api-key={quote(key, safe='')}"
        settings = LiveSettings(model="m", api_key="sk-other-0123456789", base_url=url)
        sent = str(httpx2.URL(f"{base}/chat/completions", params={"api-key": key})).split("api-key=", 1)[1]
        forms = [key, sent, quote(key, safe=""), quote_plus(key, safe=""), quote(key), lower_hex(quote(key, safe=""))]
        form = rng.choice(forms)
        text = f'HTTP Request: POST {base}/chat/completions?api-key={form} "HTTP/1.1 200 OK"'
        leaked = shown_runs(settings.mask(text), form)
        if leaked:
            broken.append(f"{form!r} shows {leaked[:2]}")
    return count, broken


def stream_masking(count: int) -> tuple[int, list[str]]:
    from agent_framework import ChatResponseUpdate, Content

    from course_lib.live import mask_secrets
    from course_lib.live_client import StreamMask

    rng, broken = random.Random(SEED), []
    for _ in range(count):
        key = "sk-" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(5, 60)))
        pieces = [key, key[: rng.randint(8, len(key))], key[-rng.randint(1, len(key)) :], key[2:11], "plain words "]
        answer = "".join(rng.choice(pieces) + rng.choice(["", " ", ", ", "\n"]) for _ in range(rng.randint(1, 8)))
        masker, shown, index = StreamMask([key]), [], 0
        while index < len(answer):
            size = rng.randint(1, 40)
            update = ChatResponseUpdate(contents=[Content.from_text(answer[index : index + size])])
            index += size
            masker.apply(update)
            shown.append("".join(c.text or "" for c in update.contents if c.type == "text"))
        shown.append(masker.flush())
        text, expected = "".join(shown), mask_secrets(answer, [key])
        if text != expected or shown_runs(text, key):
            broken.append(f"{answer!r} shown as {text!r}")
    return count, broken


def stream_scaling() -> dict[int, float]:
    """Seconds to mask streams of 500, 1,000 and 2,000 chunks of 20 characters (linear: 2x, 4x)."""
    from agent_framework import ChatResponseUpdate, Content

    from course_lib.live_client import StreamMask

    seconds = {}
    for chunks in (500, 1000, 2000):
        masker = StreamMask(["sk-test-0123456789-secret"])
        start = time.perf_counter()
        for index in range(chunks):
            masker.apply(ChatResponseUpdate(contents=[Content.from_text(f"{index:019d} ")]))
        masker.flush()
        seconds[chunks] = time.perf_counter() - start
    return seconds


def hostile_shape(rng: random.Random) -> tuple[str, Callable[[dict[str, Any]], dict[str, Any]], str | None]:
    """(name, reshape, the phrase the error must carry or None for an answer whose usage must be plausible)."""

    def on_choices(change: Callable[[dict[str, Any], list[dict[str, Any]]], None]):
        def reshape(payload: dict[str, Any]) -> dict[str, Any]:
            if payload.get("choices"):
                change(payload, payload["choices"])
            return payload

        return reshape

    def content(value: Any):
        def change(payload, choices):
            part = choices[0].get("message") or choices[0].get("delta") or {}
            if part.get("content"):
                part["content"] = value

        return change

    kind = rng.choice(["choices_object", "content", "n", "content_filter", "usage"])
    if kind == "choices_object":
        return kind, on_choices(lambda p, c: p.update(choices={"0": c[0]})), "'choices' is an object, not a list"
    if kind == "content":
        value = rng.choice([[{"type": "text", "text": "hi"}], 42, 4.5, {"text": "hi"}, True])
        return f"content={value!r}", on_choices(content(value)), "not text"
    if kind == "n":
        n = rng.randint(2, 3)
        return f"n={n}", on_choices(lambda p, c: c.extend({**c[0], "index": i} for i in range(1, n))), "choices"
    if kind == "content_filter":

        def stop(payload, choices):
            if choices[0].get("finish_reason"):
                choices[0]["finish_reason"] = "content_filter"

        return kind, on_choices(stop), "content filter"
    field = rng.choice(["prompt_tokens", "completion_tokens", "total_tokens"])
    value = rng.choice([-1, -(10**6), 10**12, 10**18, 2.5, 0.1, "seven", "", [1], {"n": 1}])

    def usage(payload: dict[str, Any]) -> dict[str, Any]:
        if payload.get("usage"):
            payload["usage"] = {**payload["usage"], field: value}
        return payload

    return f"usage {field}={value!r}", usage, None


async def reply_shapes(count: int) -> tuple[int, list[str]]:
    from agent_framework import Agent
    from wire_server import loopback_server, run_agent

    from course_lib.clients import make_chat_client
    from course_lib.live import LiveModelError
    from course_lib.tracing import CallLog

    rng, broken = random.Random(SEED), []
    with loopback_server() as server:
        os.environ.update(
            COURSE_LLM="openai",
            OPENAI_MODEL="m",
            OPENAI_API_KEY="sk-test-0123456789",
            OPENAI_BASE_URL=server.base_url,
            COURSE_LLM_TIMEOUT="10",
            COURSE_LLM_MAX_RETRIES="0",
        )
        server.reply_with = lambda body: "Noted: module=Billing."
        for _ in range(count):
            name, server.reshape, cause = hostile_shape(rng)
            stream, log = rng.random() < 0.5, CallLog()
            agent = Agent(client=make_chat_client("assistant", log=log))
            what = f"{name} ({'streamed' if stream else 'plain'})"
            try:
                await run_agent(agent, "module=Billing", stream=stream)
            except LiveModelError as error:
                if cause is None or cause not in str(error):
                    broken.append(f"{what}: {str(error)[:160]}")
                continue
            except Exception as error:
                broken.append(f"{what}: {type(error).__name__}: {str(error)[:120]}")
                continue
            if cause is not None:
                broken.append(f"{what}: shown as an answer")
                continue
            counts = [getattr(log.calls[0], f) for f in ("input_tokens", "output_tokens", "total_tokens")]
            try:
                log.usage_by_role()
            except Exception as error:
                broken.append(f"{what}: usage_by_role raised {type(error).__name__}")
                continue
            if any(c is not None and (type(c) is not int or not 0 <= c <= 10**8) for c in counts):
                broken.append(f"{what}: usage shown as {counts}")
    return count, broken


def settings_family(count: int) -> tuple[int, list[str]]:
    from course_lib.live import LiveSettingsError, load_course_settings

    rng, broken = random.Random(SEED), []
    base = {"COURSE_LLM": "openai", "OPENAI_MODEL": "m", "OPENAI_API_KEY": "sk-test-0123456789"}
    for _ in range(count):
        env = dict(base, OPENAI_BASE_URL="http://127.0.0.1:8000/v1")
        kind = rng.choice(["key", "port", "timeout", "retries"])
        if kind == "key":
            bad = rng.choice(["\n", "\r", "\x1b", "\t", "\x7f", "é", "\u2013", "\u200b", "ß"])
            at = rng.randint(1, 15)
            env["OPENAI_API_KEY"] = "sk-test-0123456789"[:at] + bad + "sk-test-0123456789"[at:]
            valid, variable = False, "OPENAI_API_KEY"
        elif kind == "port":
            port = rng.choice([0, rng.randint(1, 65535), rng.randint(65536, 200000)])
            env["OPENAI_BASE_URL"] = f"http://127.0.0.1:{port}/v1"
            valid, variable = 1 <= port <= 65535, "OPENAI_BASE_URL"
        elif kind == "timeout":
            text = rng.choice(["nan", "NaN", "inf", "-inf", "1e400", "soon", "", str(rng.uniform(-5, 900))])
            env["COURSE_LLM_TIMEOUT"] = text
            try:
                number = float(text)
                valid = math.isfinite(number) and 0 < number <= 600
            except ValueError:
                valid = False
            valid, variable = valid, "COURSE_LLM_TIMEOUT"
        else:
            text = rng.choice(["1e3", "2.0", "two", str(rng.randint(-3, 9))])
            env["COURSE_LLM_MAX_RETRIES"] = text
            valid, variable = text.lstrip("-").isdigit() and 0 <= int(text) <= 5, "COURSE_LLM_MAX_RETRIES"
        saved = dict(os.environ)
        os.environ.update(env)
        try:
            load_course_settings(env_file=Path("/nonexistent/.env"))
            if not valid:
                broken.append(f"{variable}={env.get(variable)!r} accepted")
        except LiveSettingsError as error:
            if valid or variable not in str(error):
                broken.append(f"{variable}={env.get(variable)!r}: {str(error)[:120]}")
        except Exception as error:
            broken.append(f"{variable}={env.get(variable)!r}: {type(error).__name__}: {str(error)[:100]}")
        finally:
            os.environ.clear()
            os.environ.update(saved)
    return count, broken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=10_000, help="inputs per pure family")
    parser.add_argument("--wire", type=int, default=200, help="replies sent over loopback HTTP")
    args = parser.parse_args()
    families: list[tuple[str, Callable[[], tuple[int, list[str]]]]] = [
        ("key encodings", lambda: key_encodings(args.examples)),
        ("stream masking", lambda: stream_masking(args.examples)),
        ("settings", lambda: settings_family(args.examples)),
        ("reply shapes (wire)", lambda: asyncio.run(reply_shapes(args.wire))),
    ]
    total = 0
    for name, family in families:
        start = time.perf_counter()
        tried, broken = family()
        total += len(broken)
        print(f"  {name:25} {tried:>6} tried  {len(broken)} broke  ({time.perf_counter() - start:.0f} s)", flush=True)
        for example in broken[:3]:
            print(f"      {example}", flush=True)
    scaling = stream_scaling()
    print(
        "  stream masking time, 500 / 1,000 / 2,000 chunks of 20 characters: "
        + " / ".join(f"{s:.3f} s" for s in scaling.values())
    )
    print(f"total: {total} broke", flush=True)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
