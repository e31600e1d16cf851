"""A local, scriptable LLM server speaking OpenAI Chat Completions and Anthropic Messages.

The real SDKs talk to it over HTTP, so tests exercise the same request building, response
parsing and error mapping as production. Two modes, per route:

- scripted: `server.script(OPENAI, tool_call_reply("get_profile", {}), text_reply("Hi"))`
  queues replies (tool calls, text, HTTP errors with headers, delays, malformed arguments);
- policy: once the queue is empty, `policy(route, body)` decides. The default,
  `first_tool_then_answer`, calls the first offered tool once per user turn and then
  answers in text, so a benchmark can hold whole conversations against it.

Every request is recorded (`server.requests`, `server.bodies(route)`) for assertions.

    with FakeLLMServer(latency=0.05) as server:
        OpenAI(base_url=server.openai_base_url, api_key="test")
        Anthropic(base_url=server.anthropic_base_url, api_key="test")
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

OPENAI = "openai"
ANTHROPIC = "anthropic"
ROUTES = {"/v1/chat/completions": OPENAI, "/v1/messages": ANTHROPIC}
DEFAULT_ANSWER = "All done. Let me know if there is anything else I can help with."


@dataclass(frozen=True)
class ScriptedCall:
    name: str
    raw_arguments: str  # sent verbatim, so it can be malformed on purpose


@dataclass
class Reply:
    text: str = ""
    tool_calls: list[ScriptedCall] = field(default_factory=list)
    thinking: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error_message: str = "scripted error"
    delay: float = 0.0  # seconds before answering; beyond the client timeout -> timeout
    tokens_in: int | None = None  # None: estimated from the request size
    tokens_out: int | None = None
    truncated: bool = False  # finish at the output cap: "length" / "max_tokens"


Policy = Callable[[str, dict[str, Any]], Reply]


def text_reply(text: str, **options: Any) -> Reply:
    return Reply(text=text, **options)


def tool_call_reply(*calls: tuple[str, dict[str, Any] | str], **options: Any) -> Reply:
    """One reply with several tool calls: `tool_call_reply(("a", {"x": 1}), ("b", {}))`."""
    scripted = [
        ScriptedCall(name, args if isinstance(args, str) else json.dumps(args))
        for name, args in calls
    ]
    return Reply(tool_calls=scripted, **options)


def single_tool_call(name: str, arguments: dict[str, Any] | str, **options: Any) -> Reply:
    return tool_call_reply((name, arguments), **options)


def malformed_tool_call(name: str, raw_arguments: str, **options: Any) -> Reply:
    return Reply(tool_calls=[ScriptedCall(name, raw_arguments)], **options)


def error_reply(
    status: int, message: str = "scripted error", headers: dict[str, str] | None = None
) -> Reply:
    return Reply(status=status, error_message=message, headers=dict(headers or {}))


def delayed_reply(seconds: float, reply: Reply | None = None) -> Reply:
    reply = reply or text_reply("late answer")
    reply.delay = seconds
    return reply


@dataclass
class RecordedRequest:
    route: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


# ---------------------------------------------------------------------------------------
# The default policy: call the first tool once per user turn, then answer.


def first_tool_then_answer(route: str, body: dict[str, Any]) -> Reply:
    structured = _structured_output(route, body)
    if structured is not None:
        return structured
    tools = body.get("tools") or []
    if tools and not _tool_result_since_last_user_turn(route, body.get("messages") or []):
        name, schema = _first_tool(route, tools)
        return single_tool_call(name, example_arguments(schema))
    return text_reply(DEFAULT_ANSWER)


def _structured_output(route: str, body: dict[str, Any]) -> Reply | None:
    """Requests for one schema-shaped answer get a plausible one, as a constrained server
    would give: OpenAI `response_format` as JSON text, Anthropic a forced tool call."""
    if route == OPENAI and (body.get("response_format") or {}).get("type") == "json_schema":
        schema = body["response_format"]["json_schema"].get("schema") or {}
        return text_reply(json.dumps(_affirmative(example_arguments(schema))))
    forced = body.get("tool_choice") or {}
    if route == ANTHROPIC and forced.get("type") == "tool":
        tool = next(t for t in body.get("tools") or [] if t.get("name") == forced["name"])
        return single_tool_call(
            tool["name"], _affirmative(example_arguments(tool.get("input_schema") or {}))
        )
    return None


def _affirmative(answer: dict[str, Any]) -> dict[str, Any]:
    """Flags off in a structured answer, so a judge stub scores instead of opting out."""
    return {k: False if isinstance(v, bool) else v for k, v in answer.items()}


def _first_tool(route: str, tools: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    tool = tools[0]
    if route == OPENAI:
        function = tool.get("function", {})
        return function.get("name", "unknown"), function.get("parameters") or {}
    return tool.get("name", "unknown"), tool.get("input_schema") or {}


def _tool_result_since_last_user_turn(route: str, messages: list[dict[str, Any]]) -> bool:
    for message in reversed(messages):
        if route == OPENAI:
            if message.get("role") == "tool":
                return True
            if message.get("role") == "user":
                return False
        elif message.get("role") == "user":
            # Anthropic: tool results travel in user turns; the last block says which it is.
            content = message.get("content")
            if isinstance(content, str) or not content:
                return False
            return content[-1].get("type") == "tool_result"
    return False


def example_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Plausible values for the schema's required properties (first enum value if any)."""
    properties = schema.get("properties") or {}
    return {name: _example_value(properties.get(name) or {}) for name in schema.get("required", [])}


def _example_value(prop: dict[str, Any]) -> Any:
    if prop.get("enum"):
        return prop["enum"][0]
    examples = {
        "integer": 1,
        "number": 1.0,
        "boolean": True,
        "array": [],
        "object": {},
    }
    kind = prop.get("type")
    if isinstance(kind, list):  # e.g. ["integer", "null"]: the first non-null type
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "integer" and "minimum" in prop:
        return prop["minimum"]
    return examples.get(kind, "example")


# ---------------------------------------------------------------------------------------
# Wire shapes, as the real APIs return them.


def _short_id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:24]}"


def _token_counts(reply: Reply, body: dict[str, Any]) -> tuple[int, int]:
    produced = reply.text + reply.thinking + "".join(c.raw_arguments for c in reply.tool_calls)
    tokens_in = reply.tokens_in if reply.tokens_in is not None else len(json.dumps(body)) // 4
    tokens_out = reply.tokens_out if reply.tokens_out is not None else len(produced) // 4 + 1
    return max(tokens_in, 1), tokens_out


def openai_response(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": reply.text or None,
        "refusal": None,
    }
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": _short_id("call_"),
                "type": "function",
                "function": {"name": call.name, "arguments": call.raw_arguments},
            }
            for call in reply.tool_calls
        ]
    if reply.thinking:  # how vLLM and DeepSeek return reasoning
        message["reasoning_content"] = reply.thinking
    tokens_in, tokens_out = _token_counts(reply, body)
    return {
        "id": _short_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake-model"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": _openai_finish(reply),
            }
        ],
        "usage": {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        },
    }


def anthropic_response(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.thinking:
        content.append({"type": "thinking", "thinking": reply.thinking, "signature": "sig-fake"})
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        content.append(
            {
                "type": "tool_use",
                "id": _short_id("toolu_"),
                "name": call.name,
                "input": _anthropic_input(call.raw_arguments),
            }
        )
    tokens_in, tokens_out = _token_counts(reply, body)
    return {
        "id": _short_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "fake-model"),
        "content": content,
        "stop_reason": _anthropic_stop(reply),
        "stop_sequence": None,
        "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
    }


def _openai_finish(reply: Reply) -> str:
    if reply.truncated:
        return "length"
    return "tool_calls" if reply.tool_calls else "stop"


def _anthropic_stop(reply: Reply) -> str:
    if reply.truncated:
        return "max_tokens"
    return "tool_use" if reply.tool_calls else "end_turn"


def _anthropic_input(raw_arguments: str) -> Any:
    # The real API always sends an object; a malformed script sends the string itself.
    try:
        return json.loads(raw_arguments)
    except json.JSONDecodeError:
        return raw_arguments


ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def openai_error(status: int, message: str) -> dict[str, Any]:
    kind = {429: "rate_limit_exceeded"}.get(status, "server_error" if status >= 500 else None)
    return {
        "error": {
            "message": message,
            "type": kind or "invalid_request_error",
            "param": None,
            "code": kind,
        }
    }


def anthropic_error(status: int, message: str) -> dict[str, Any]:
    kind = ANTHROPIC_ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


RESPONSE_BUILDERS = {OPENAI: openai_response, ANTHROPIC: anthropic_response}
ERROR_BUILDERS = {OPENAI: openai_error, ANTHROPIC: anthropic_error}


# ---------------------------------------------------------------------------------------
# The server.


class FakeLLMServer:
    def __init__(
        self,
        *,
        latency: float = 0.0,
        policy: Policy = first_tool_then_answer,
        host: str = "127.0.0.1",
    ) -> None:
        self.latency = latency
        self.policy = policy
        self._host = host
        self._lock = threading.Lock()
        self._scripts: dict[str, deque[Reply]] = {OPENAI: deque(), ANTHROPIC: deque()}
        self._requests: list[RecordedRequest] = []
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle -----------------------------------------------------------------------

    def start(self) -> FakeLLMServer:
        self._httpd = _HTTPServer((self._host, 0), _Handler, self)
        # A short poll interval keeps shutdown (one per test) from costing half a second.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="fake-llm-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping through a scripted delay
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # addresses -----------------------------------------------------------------------

    @property
    def root_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("server not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.root_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.root_url  # the anthropic SDK adds /v1 itself

    base_url = openai_base_url

    # scripting and inspection --------------------------------------------------------

    def script(self, route: str, *replies: Reply) -> None:
        with self._lock:
            self._scripts[route].extend(replies)

    def pending(self, route: str) -> int:
        with self._lock:
            return len(self._scripts[route])

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def bodies(self, route: str) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.route == route]

    def reset(self) -> None:
        with self._lock:
            self._requests.clear()
            for queue in self._scripts.values():
                queue.clear()

    # used by the handler -------------------------------------------------------------

    def _take_reply(self, recorded: RecordedRequest) -> Reply:
        with self._lock:
            self._requests.append(recorded)
            queue = self._scripts[recorded.route]
            scripted = queue.popleft() if queue else None
        if scripted is not None:
            return scripted
        return self.policy(recorded.route, recorded.body)

    def _wait(self, seconds: float) -> bool:
        """Sleep unless the server stops first; True when it should still answer."""
        return seconds <= 0 or not self._stopping.wait(seconds)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # benchmarks open ~64 connections at once; the default is 5

    def __init__(self, address: tuple[str, int], handler: type, fake: FakeLLMServer) -> None:
        self.fake = fake
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients that time out hang up mid-answer; that is expected here, not an error.
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs' connection pools expect
    timeout = 30  # idle keep-alive connections end instead of pinning a thread forever
    # Headers and body go out in separate writes; with Nagle on, the client's delayed ACK
    # would add ~40 ms to every answer.
    disable_nagle_algorithm = True
    server: _HTTPServer

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        route = ROUTES.get(path)
        if route is None:
            self._send_json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send_json(400, ERROR_BUILDERS[route](400, "request body is not JSON"))
            return
        fake = self.server.fake
        reply = fake._take_reply(RecordedRequest(route, path, dict(self.headers), body))
        if not fake._wait(fake.latency + reply.delay):
            self.close_connection = True  # stopping: hang up instead of answering
            return
        if reply.status >= 400:
            payload = ERROR_BUILDERS[route](reply.status, reply.error_message)
            self._send_json(reply.status, payload, reply.headers)
        else:
            self._send_json(reply.status, RESPONSE_BUILDERS[route](reply, body), reply.headers)

    def _send_json(
        self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean


@pytest.fixture
def llm_server():
    """A FakeLLMServer for one test (the providers' and pipeline's conftest.py offer it)."""
    with FakeLLMServer() as server:
        yield server
