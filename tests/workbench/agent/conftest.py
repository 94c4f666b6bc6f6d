"""Fixtures for the agent tests: a fresh trace store, a small OpenAI-compatible HTTP
server on 127.0.0.1 that answers from a script, and the baseline kernel of relu."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.store import TraceStore


@pytest.fixture
def store(tmp_path):
    with TraceStore(tmp_path / "traces.db") as s:
        yield s


@pytest.fixture(scope="session")
def relu_c1_source() -> str:
    accel = get_accel("plena")
    return accel.baseline("relu", "C1", accel.default_config())


class ScriptedOpenAI:
    """Answers POST /v1/chat/completions from a script of items:
    ("reply", message dict) -> 200 with that assistant message;
    ("status", code[, headers]) -> that HTTP error with an OpenAI-style error body
                               (headers default to Retry-After: 0);
    ("sleep", seconds)      -> a reply that arrives too late (client timeout).
    More requests than items, or a run past `deadline` seconds, are answered 500 and
    noted in `errors`, so a runaway client cannot loop for long."""

    def __init__(self, script: list[tuple], model: str = "gpt-4o", deadline: float = 60.0):
        self.script, self.model = list(script), model
        self.requests: list[dict] = []
        self.errors: list[str] = []
        self.started = time.monotonic()
        self.deadline = deadline
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, headers, out = server.answer(self.path, body)
                self.send_response(status)
                for k, v in {"Content-Type": "application/json",
                             "Content-Length": str(len(out)), **headers}.items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(out)
                except OSError:
                    pass          # the client gave up (the timeout item)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_port}/v1"

    def _error(self, code: int, message: str, kind: str) -> bytes:
        return json.dumps({"error": {"message": message, "type": kind, "code": code}}).encode()

    def answer(self, path: str, body: dict) -> tuple[int, dict, bytes]:
        self.requests.append(body)
        if path != "/v1/chat/completions":
            self.errors.append(f"unexpected path {path}")
            return 404, {}, self._error(404, "no such endpoint", "not_found")
        if not self.script or time.monotonic() - self.started > self.deadline:
            self.errors.append(f"request {len(self.requests)} beyond the script or the deadline")
            return 500, {}, self._error(500, "script exhausted", "server_error")
        kind, value, *headers = self.script.pop(0)
        if kind == "status":
            return value, (headers or [{"Retry-After": "0"}])[0], self._error(value, "Rate limit reached"
                                                          if value == 429 else "unavailable",
                                                          "rate_limit_error")
        if kind == "sleep":
            time.sleep(value)
            value = {"role": "assistant", "content": "too late"}
        calls = value.get("tool_calls")
        out = {"id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion",
               "created": 0, "model": self.model,
               "choices": [{"index": 0, "message": value,
                            "finish_reason": "tool_calls" if calls else "stop"}],
               "usage": {"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500,
                         "completion_tokens_details": {"reasoning_tokens": 100}}}
        return 200, {}, json.dumps(out).encode()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def openai_server():
    servers = []

    def start(script, **kw) -> ScriptedOpenAI:
        s = ScriptedOpenAI(script, **kw)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()
