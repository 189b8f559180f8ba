"""Wire tests: the real openai SDK, through MAF's OpenAI client, against a local HTTP server.

The server speaks the Chat Completions protocol on loopback and computes its reply from the request
body with the offline writer's logic, so these tests check what really crosses the wire: the writer's
instructions, the user's message alone, the JSON schema asked for, and usage reported back.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest
from agent_framework import Agent

from course_lib.clients import OfflineWriterClient, make_chat_client
from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.loop import CompletionMarkerEvaluator, LoopAgent, LoopAgentOptions
from course_lib.memory import WorkingMemory
from course_lib.tracing import CallLog


def text_of(message):
    content = message["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def writer_reply(body, misbehaviour=None):
    """The offline writer's logic, applied to the request's last user message."""
    user_text = next(text_of(m) for m in reversed(body["messages"]) if m["role"] == "user")
    content = json.dumps({"facts": OfflineWriterClient(misbehaviour).propose(user_text)})
    return content[: len(content) // 2] if misbehaviour == "broken_json" else content


class ChatCompletionsHandler(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict]] = []
    misbehaviour = None
    reply_with = None  # a function of the request body; the writer's logic when None

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        content = type(self).reply_with(body) if type(self).reply_with else writer_reply(body, self.misbehaviour)
        if body.get("stream"):
            self.stream(body, content)
            return
        reply = {
            "id": "chatcmpl-local",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def stream(self, body, content):
        """Server-sent events, one chunk per word, then the usage chunk and [DONE], as the API streams."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        base = {"id": "chatcmpl-local", "object": "chat.completion.chunk", "created": 0, "model": body["model"]}
        words = content.split(" ")
        for i, word in enumerate(words):
            delta = {"role": "assistant", "content": word + (" " if i < len(words) - 1 else "")}
            chunk = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        done = {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        self.wfile.write(f"data: {json.dumps(done)}\n\n".encode())
        usage = {**base, "choices": [], "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}}
        self.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())

    def log_message(self, *args):
        pass


@pytest.fixture
def server(monkeypatch):
    ChatCompletionsHandler.requests = []
    ChatCompletionsHandler.misbehaviour = None
    ChatCompletionsHandler.reply_with = None
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), ChatCompletionsHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("COURSE_LLM", "openai")
    monkeypatch.setenv("OPENAI_MODEL", "local-model")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{httpd.server_port}/v1")
    yield ChatCompletionsHandler
    httpd.shutdown()
    httpd.server_close()


async def test_live_writer_sends_instructions_the_message_alone_and_a_json_schema(server):
    extraction = MemoryExtraction(WorkingMemory(), ChatFactWriter(make_chat_client("writer")))
    report = await extraction.update("module=Billing; database=SQL Server 2022")
    assert report.status == "accepted"
    assert [(f.key, f.value) for f in report.facts] == [("database", "SQL Server 2022"), ("module", "Billing")]
    [request] = server.requests
    body = request["body"]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer test-key"
    assert body["model"] == "local-model"
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "key=value" in json.dumps(body["messages"][0])
    assert body["response_format"]["type"] == "json_schema"
    assert "facts" in json.dumps(body["response_format"]["json_schema"]["schema"])


async def test_live_writer_usage_is_the_provider_report_and_is_logged(server):
    log = CallLog()
    writer = ChatFactWriter(make_chat_client("writer", log=log))
    response = await writer.agent.run("module=Billing", options={"response_format": None})
    assert response.usage_details["input_token_count"] == 42
    assert response.usage_details["output_token_count"] == 7
    [call] = log.calls
    assert (call.client, call.input_tokens, call.output_tokens) == ("writer", 42, 7)
    assert [m.text for m in call.messages] == ["module=Billing"] and "key=value" in call.instructions


async def test_broken_json_over_the_wire_is_a_writer_failure_without_fallback(server):
    server.misbehaviour = "broken_json"
    extraction = MemoryExtraction(WorkingMemory(), ChatFactWriter(make_chat_client("writer")))
    report = await extraction.update("module=Billing")
    assert report.status == "writer_failed" and "no fallback" in report.diagnostic
    assert extraction.memory.facts == ()


def numbered_answer(body):
    """The n-th answer of a conversation: counts the assistant messages the request carries."""
    return f"answer {1 + sum(m['role'] == 'assistant' for m in body['messages'])}"


def looping_agent():
    inner = Agent(client=make_chat_client("assistant"), name="worker")
    evaluator = CompletionMarkerEvaluator("answer 3", feedback="Not yet: go on.")
    return LoopAgent(inner, evaluator, LoopAgentOptions(on_behalf_of_author_name="loop"))


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
async def test_loop_agent_over_the_wire_sends_history_and_feedback(server, stream):
    server.reply_with = numbered_answer
    agent = looping_agent()
    if stream:
        run = agent.run("Write three answers.", stream=True)
        updates = [u async for u in run]
        response = await run.get_final_response()
        assert "".join(u.text for u in updates) == "".join(m.text for m in response.messages)
    else:
        response = await agent.run("Write three answers.")
    assert [m.text for m in response.messages] == [
        "answer 1",
        "Not yet: go on.",
        "answer 2",
        "Not yet: go on.",
        "answer 3",
    ]
    sent = [[(m["role"], text_of(m)) for m in r["body"]["messages"]] for r in server.requests]
    assert sent[0] == [("user", "Write three answers.")]
    assert sent[2] == [
        ("user", "Write three answers."),
        ("assistant", "answer 1"),
        ("user", "Not yet: go on."),
        ("assistant", "answer 2"),
        ("user", "Not yet: go on."),
    ]
    assert all(r["body"].get("stream", False) == stream for r in server.requests)
    assert response.usage_details["input_token_count"] == 3 * 42
