"""A loopback OpenAI-compatible Chat Completions server for wire tests and the qualification run's test.

It speaks the protocol over real HTTP (JSON and server-sent events), so the real openai SDK, through
MAF's client and the course factory, is what is exercised. By default it answers as the offline writer
would, computing the reply from the request body; ``reply_with`` replaces the reply text and ``fault``
replaces the whole answer with one of the ways a real endpoint goes wrong.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from course_lib.memory_models import OfflineWriterClient

USAGE = {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}

FAULTS = (
    "timeout",
    "http_401",
    "http_429",
    "http_500",
    "html_body",
    "malformed_json",
    "empty_choices",
    "refusal",
    "schema_mismatch",
    "sse_cut",
    "slow_drip",
    "keep_alive",
    "chunked_cut",
    "error_in_200",
    "no_message",
    "tool_call",
    "length",
    "echo_key_401",
    "echo_key_500",
    "echo_key_html",
    "echo_key_event",
)
"""Every fault the server can play; endpoint down and a wrong base URL need no server behaviour.

``slow_drip`` sends a whole, valid answer one byte per ``ServerState.drip`` seconds; ``keep_alive`` sends
only SSE comments, as often; ``chunked_cut`` closes a chunked body before its last chunk; ``error_in_200``
is an error object with status 200 (an SSE error event when streaming); ``no_message`` is a choice with no
message (no delta); ``tool_call`` answers with a call of a tool nobody offered; ``length`` is the answer cut
by the token limit. The ``echo_key_*`` faults put the caller's key in the server's error text, after
``ServerState.echo_pad`` characters of padding, so that a cut of the text can fall inside the key.
"""


def text_of(message: dict[str, Any]) -> str:
    content = message["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def last_user_text(body: dict[str, Any]) -> str:
    return next(text_of(m) for m in reversed(body["messages"]) if m["role"] == "user")


def writer_reply(body: dict[str, Any]) -> str:
    """The offline writer's logic, applied to the request's last user message."""
    return json.dumps({"facts": OfflineWriterClient().propose(last_user_text(body))})


class ChatCompletionsHandler(BaseHTTPRequestHandler):
    state: ServerState

    def do_POST(self) -> None:
        state = self.state
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        state.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        if self.path.split("?")[0] != "/v1/chat/completions":  # a base URL may carry a query (?api-key=...)
            return self.send_json(404, {"error": {"message": f"Not found: {self.path}", "type": "not_found"}})
        if state.fault:
            return self.play(state.fault, body)
        content = state.reply_with(body)
        if body.get("stream"):
            return self.stream(body, content)
        return self.send_json(200, state.reshape(completion(body, content)))

    def play(self, fault: str, body: dict[str, Any]) -> None:
        streaming = bool(body.get("stream"))
        if fault in SLOW_FAULTS:
            return self.play_slow(fault, body, streaming)
        if fault.startswith("echo_key_"):
            return self.echo_key(fault, streaming)
        if fault == "error_in_200":
            error = {"message": "The model is overloaded; try again later.", "type": "server_error"}
            if streaming:
                return self.send_events([json.dumps({"error": error})])
            return self.send_json(200, {"error": error})
        if fault == "no_message":
            if streaming:
                choice = {"index": 0, "finish_reason": "stop"}
                return self.send_events([json.dumps({**chunk_base(body), "choices": [choice]})])
            reply = completion(body, "")
            del reply["choices"][0]["message"]
            return self.send_json(200, reply)
        if fault == "tool_call":
            call = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
            if streaming:
                delta = {"role": "assistant", "content": None, "tool_calls": [{"index": 0, **call}]}
                return self.send_events([chunk(body, delta, None), chunk(body, {}, "tool_calls")])
            reply = completion(body, None)
            reply["choices"][0].update(finish_reason="tool_calls")
            reply["choices"][0]["message"]["tool_calls"] = [call]
            return self.send_json(200, reply)
        if fault == "length":
            content = self.state.reply_with(body)
            content = content[: max(1, len(content) // 2)].rstrip()
            if streaming:
                return self.stream(body, content, finish="length")
            reply = completion(body, content)
            reply["choices"][0]["finish_reason"] = "length"
            return self.send_json(200, reply)
        if fault == "timeout":
            self.state.release.wait(5)
            return None
        if fault.startswith("http_"):
            status = int(fault.removeprefix("http_"))
            error = {"message": f"simulated {status}", "type": "server_error" if status >= 500 else "client_error"}
            return self.send_json(status, {"error": error}, {"retry-after-ms": "1"})
        if fault == "html_body":
            return self.send_bytes(200, b"<!DOCTYPE html><html><body>Welcome to nginx</body></html>", "text/html")
        if fault == "malformed_json":
            if streaming:
                return self.send_events(['{"id": "x", "object": "chat.completion.chunk", "choices": [{"ind'])
            return self.send_bytes(200, b'{"id": "chatcmpl-local", "choices": [{"index": 0, "mess', "application/json")
        if fault == "empty_choices":
            if streaming:
                return self.send_events([json.dumps({**chunk_base(body), "choices": [], "usage": USAGE})])
            return self.send_json(200, {**completion(body, ""), "choices": []})
        if fault == "refusal":
            if streaming:
                delta = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
                return self.send_events([chunk(body, delta, None), chunk(body, {}, "stop")])
            reply = completion(body, None)
            reply["choices"][0]["message"]["refusal"] = "I can't help with that."
            return self.send_json(200, reply)
        if fault == "schema_mismatch":
            content = json.dumps({"facts": [{"key": "module"}]})
            return self.stream(body, content) if streaming else self.send_json(200, completion(body, content))
        if fault == "sse_cut":
            if not streaming:  # a JSON body cut mid-way is what a non-streaming client sees
                return self.send_bytes(200, b'{"id": "chatcmpl-local", "object": "chat.co', "application/json")
            first = chunk(body, {"role": "assistant", "content": "module="}, None)
            self.send_events([first], done=False)
            self.wfile.write(b'data: {"id": "chatcmpl-local", "choices": [{"delta": {"content": "Bil')
            return None
        raise ValueError(f"unknown fault {fault!r}")

    def play_slow(self, fault: str, body: dict[str, Any], streaming: bool) -> None:
        """A valid answer dripped a byte at a time, a chunked body cut short, or keep-alive comments only."""
        state = self.state
        if fault == "chunked_cut":
            self.protocol_version = "HTTP/1.1"  # chunked framing is HTTP/1.1's
        self.send_response(200)
        if fault == "keep_alive":
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.drip_forever(b": keep-alive\n\n")
            return None
        if fault == "chunked_cut":
            self.send_header("Content-Type", "text/event-stream" if streaming else "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            part = (
                f"data: {chunk(body, {'role': 'assistant', 'content': 'module='}, None)}\n\n"
                if streaming
                else '{"id": "chatcmpl-local", "object": "chat.co'
            ).encode()
            self.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
            self.wfile.flush()
            self.close_connection = True
            return None
        content = state.reply_with(body)
        if streaming:
            data = "".join(f"data: {e}\n\n" for e in [*stream_events(body, content), "[DONE]"]).encode()
            self.send_header("Content-Type", "text/event-stream")
        else:
            data = json.dumps(completion(body, content)).encode()
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        for index in range(len(data)):
            if not self.write_or_stop(data[index : index + 1]):
                return None
        return None

    def drip_forever(self, piece: bytes) -> None:
        while self.write_or_stop(piece):
            pass

    def write_or_stop(self, piece: bytes) -> bool:
        """Write ``piece`` after the drip interval; False once the client left or the server stops."""
        if self.state.release.wait(self.state.drip):
            return False
        try:
            self.wfile.write(piece)
            self.wfile.flush()
        except OSError:
            return False
        self.state.dripped += len(piece)
        return True

    def echo_key(self, fault: str, streaming: bool) -> None:
        """An error text that echoes the caller's key, as some servers do for a key they refuse."""
        key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        text = "x" * self.state.echo_pad + key
        if fault == "echo_key_html":
            return self.send_bytes(200, f"<html><body>{text}</body></html>".encode(), "text/html")
        if fault == "echo_key_event":  # an error event in a stream, an error object in a 200 otherwise
            error = {"message": f"{text} is not accepted", "type": "invalid_request_error"}
            return (
                self.send_events([json.dumps({"error": error})]) if streaming else self.send_json(200, {"error": error})
            )
        status = 401 if fault == "echo_key_401" else 500
        error = {"message": f"{text} is not accepted", "type": "invalid_request_error"}
        return self.send_json(status, {"error": error})

    def stream(self, body: dict[str, Any], content: str, finish: str = "stop") -> None:
        """Server-sent events (see :func:`stream_events`), each reshaped by ``ServerState.reshape``, and [DONE]."""
        events = stream_events(body, content, finish, self.state.chunk_chars)
        self.send_events([json.dumps(self.state.reshape(json.loads(event))) for event in events])

    def send_events(self, events: list[str], done: bool = True) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            for event in events:
                self.wfile.write(f"data: {event}\n\n".encode())
            if done:
                self.wfile.write(b"data: [DONE]\n\n")
        except OSError:  # the client refused the stream mid-way and closed the connection: nothing left to say
            self.close_connection = True

    def send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        self.send_bytes(status, json.dumps(payload).encode(), "application/json", headers)

    def send_bytes(self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


def stream_events(body: dict[str, Any], content: str, finish: str = "stop", chunk_chars: int = 0) -> list[str]:
    """One chunk per word (or per ``chunk_chars`` characters), then the finish chunk and the usage chunk."""
    if chunk_chars:
        pieces = [content[i : i + chunk_chars] for i in range(0, len(content), chunk_chars)]
    else:
        words = content.split(" ")
        pieces = [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)]
    events = [chunk(body, {"role": "assistant", "content": piece}, None) for piece in pieces]
    return [*events, chunk(body, {}, finish), json.dumps({**chunk_base(body), "choices": [], "usage": USAGE})]


SLOW_FAULTS = ("slow_drip", "keep_alive", "chunked_cut")


def chunk_base(body: dict[str, Any]) -> dict[str, Any]:
    return {"id": "chatcmpl-local", "object": "chat.completion.chunk", "created": 0, "model": body["model"]}


def chunk(body: dict[str, Any], delta: dict[str, Any], finish: str | None) -> str:
    return json.dumps({**chunk_base(body), "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def completion(body: dict[str, Any], content: str | None) -> dict[str, Any]:
    message = {"role": "assistant", "content": content}
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        "usage": USAGE,
    }


class ServerState:
    """What the server has received and how it is told to answer next."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.requests: list[dict[str, Any]] = []
        self.fault: str | None = None
        self.reply_with: Callable[[dict[str, Any]], str] = writer_reply
        self.release = threading.Event()
        self.drip = 0.2
        """Seconds between two bytes of a slow fault."""
        self.dripped = 0
        self.echo_pad = 0
        self.chunk_chars = 0
        """Stream the answer in pieces of this many characters (0: one chunk per word)."""
        self.reshape: Callable[[dict[str, Any]], dict[str, Any]] = lambda payload: payload
        """Rewrites a successful answer before it is sent: the completion, or each chunk of a stream (a hostile
        server's shapes: choices as an object, content as a list, n=2, a content filter, implausible usage)."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def use_server(monkeypatch: Any, state: ServerState, key: str) -> None:
    """Point the course's settings at ``state``'s server: COURSE_LLM=openai, a 10 s timeout, no retry."""
    monkeypatch.setenv("COURSE_LLM", "openai")
    monkeypatch.setenv("OPENAI_MODEL", "local-model")
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("OPENAI_BASE_URL", state.base_url)
    monkeypatch.setenv("COURSE_LLM_TIMEOUT", "10")  # generous: a loaded machine is slow, not dead
    monkeypatch.setenv("COURSE_LLM_MAX_RETRIES", "0")


@contextmanager
def loopback_server() -> Iterator[ServerState]:
    """Serve on an ephemeral loopback port; shutdown polls every 10 ms (the default 0.5 s slowed every test)."""
    handler = type("Handler", (ChatCompletionsHandler,), {})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    handler.state = state = ServerState(httpd.server_port)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


async def run_agent(agent: Any, text: str, *, stream: bool) -> Any:
    """One run of ``agent`` on ``text``, streamed (every update read, then the final response) or not."""
    if not stream:
        return await agent.run(text)
    run = agent.run(text, stream=True)
    async for _ in run:
        pass
    return await run.get_final_response()
