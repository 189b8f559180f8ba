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

from course_lib.clients import OfflineWriterClient, make_chat_client
from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.memory import WorkingMemory


class ChatCompletionsHandler(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict]] = []
    misbehaviour = None

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        user_text = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
        if isinstance(user_text, list):
            user_text = "".join(part.get("text", "") for part in user_text)
        facts = OfflineWriterClient(self.misbehaviour).propose(user_text)
        content = json.dumps({"facts": facts})
        if self.misbehaviour == "broken_json":
            content = content[: len(content) // 2]
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

    def log_message(self, *args):
        pass


@pytest.fixture
def server(monkeypatch):
    ChatCompletionsHandler.requests = []
    ChatCompletionsHandler.misbehaviour = None
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


async def test_live_writer_usage_is_the_provider_report(server):
    writer = ChatFactWriter(make_chat_client("writer"))
    response = await writer.agent.run("module=Billing", options={"response_format": None})
    assert response.usage_details["input_token_count"] == 42
    assert response.usage_details["output_token_count"] == 7


async def test_broken_json_over_the_wire_is_a_writer_failure_without_fallback(server):
    server.misbehaviour = "broken_json"
    extraction = MemoryExtraction(WorkingMemory(), ChatFactWriter(make_chat_client("writer")))
    report = await extraction.update("module=Billing")
    assert report.status == "writer_failed" and "no fallback" in report.diagnostic
    assert extraction.memory.facts == ()
