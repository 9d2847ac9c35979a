"""A local stand-in for the Anthropic Messages API that answers from recorded replies.

Point the real SDK at it (``anthropic.Anthropic(base_url=server.base_url, api_key="local")``)
and every request is checked against the API's rules (``check_params``), looked up by the
replay key of what actually arrived over HTTP, and answered with the reply recorded for
that key. A request that breaks a rule, or that no reply was recorded for, gets the 400 the
real API would give, with the reason in the body, and is kept in ``rejections``.
Failures can be queued (``fail_next``) to exercise a client's error paths. Stdlib only;
it listens on 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from agentrender import render
from agentrender._api_rules import TOOL_KEYS
from agentrender.adapters.anthropic import check_params

if TYPE_CHECKING:
    from types import TracebackType

    from agentrender.runfile import Run

__all__ = ["Failure", "MessagesServer", "Received", "body_key"]


def body_key(body: Mapping[str, Any]) -> str:
    """The replay key of a ``/v1/messages`` request body: ``render.replay_key`` over what was sent."""
    return render.replay_key(
        body.get("messages") or (),
        system=body.get("system") or "",
        tools=body.get("tools") or (),
        model=body.get("model") or "",
        max_output_tokens=body.get("max_tokens") or 0,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Failure:
    """An answer queued to replace the next reply: a status with an error body, after an optional delay."""

    status: int
    """The HTTP status to answer with (400, 429, 529, ...)."""
    error_type: str = "api_error"
    """The ``error.type`` of the body."""
    message: str = ""
    """The ``error.message`` of the body."""
    delay: float = 0.0
    """Seconds to wait before answering (longer than a client's timeout makes it time out)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Received:
    """One request as the server received it."""

    body: Mapping[str, Any]
    """The JSON body."""
    key: str
    """Its replay key (``body_key``)."""
    status: int
    """What the server answered."""
    reason: str = ""
    """Why it was rejected, when it was."""


class MessagesServer:
    """A ``/v1/messages`` endpoint on 127.0.0.1 answering from ``replies`` (replay key -> response JSON).

    Use it as a context manager; ``base_url`` is where it listens. Replies recorded under
    the same key are given in order.
    """

    def __init__(self, replies: Iterable[tuple[str, Mapping[str, Any]]] = ()) -> None:
        self._replies: dict[str, deque[Mapping[str, Any]]] = {}
        for key, response in replies:
            self._replies.setdefault(key, deque()).append(response)
        self._failures: deque[Failure] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.received: list[Received] = []
        """Every request, in arrival order."""
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def from_run(cls, run: Run, **settings: Any) -> MessagesServer:
        """A server answering with ``run``'s recorded replies (as recorded), by their recorded request keys."""
        return cls(((call.request_key, call.wire_response) for call in run.model_calls), **settings)

    @property
    def rejections(self) -> list[Received]:
        """The requests answered with an error for a reason of the server's own (not a queued failure)."""
        return [received for received in self.received if received.reason]

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``, for the SDK's ``base_url``."""
        if self._server is None:
            raise RuntimeError("the server is not running: use it in a with statement")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def fail_next(self, failure: Failure) -> None:
        """Answer the next request with ``failure`` instead of a reply."""
        self._failures.append(failure)

    def __enter__(self) -> MessagesServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        # A short poll keeps closing the server quick (shutdown waits for the next poll).
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="messages-server", daemon=True
        )
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._stop.set()
        assert self._server is not None and self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def answer(self, body: Any) -> tuple[Received, Mapping[str, Any], float]:
        """What to answer one request body with: ``(the record of it, the JSON answer, a delay)``."""
        with self._lock:
            failure = self._failures.popleft() if self._failures else None
        reason = self._problem(body)
        key = "" if reason else body_key(body)
        if failure is not None:
            error = _error(failure.error_type, failure.message or f"queued failure {failure.status}")
            return Received(body=body, key=key, status=failure.status), error, failure.delay
        if reason:
            return Received(body=body, key=key, status=400, reason=reason), _error("invalid_request_error", reason), 0.0
        with self._lock:
            queue = self._replies.get(key)
            response = queue.popleft() if queue else None
        if response is None:
            reason = f"no recorded reply for this request (replay key {key})"
            return Received(body=body, key=key, status=400, reason=reason), _error("invalid_request_error", reason), 0.0
        return Received(body=body, key=key, status=200), _message(response), 0.0

    def _problem(self, body: Any) -> str:
        if not isinstance(body, dict):
            return "the body is not a JSON object"
        for name, kind in (("model", str), ("max_tokens", int), ("messages", list)):
            if not isinstance(body.get(name), kind):
                return f"{name}: missing or of the wrong type"
        try:
            check_params(body["messages"])
        except ValueError as error:
            return str(error)
        tools = body.get("tools")
        if tools is not None:
            if not isinstance(tools, list):
                return "tools: expected a list"
            for i, tool in enumerate(tools):
                if not isinstance(tool, dict):
                    return f"tools.{i}: expected an object"
                extra = sorted(set(tool).difference(TOOL_KEYS))
                if extra:
                    return f"tools.{i}: unexpected fields {extra}"
                if not tool.get("name") or not isinstance(tool.get("input_schema"), dict):
                    return f"tools.{i}: a tool needs a name and an input_schema"
        if tools and body.get("tool_choice", {}).get("disable_parallel_tool_use") is not True:
            return "tool_choice: parallel tool use is not switched off"
        if body.get("tool_choice") is not None and not tools:
            return "tool_choice: may only be given with tools"
        return ""

    def wait(self, seconds: float) -> None:
        """Sleep up to ``seconds``, or less when the server is closing."""
        self._stop.wait(seconds)

    def note(self, received: Received) -> None:
        """Keep ``received`` in ``received``."""
        with self._lock:
            self.received.append(received)


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


# What a recording may leave out of a reply that a Messages API ``Message`` always has.
_MESSAGE_DEFAULTS: Mapping[str, Any] = {
    "id": "msg_local",
    "type": "message",
    "role": "assistant",
    "model": "",
    "stop_sequence": None,
    "usage": {"input_tokens": 0, "output_tokens": 0},
}


def _message(response: Mapping[str, Any]) -> dict[str, Any]:
    """A recorded reply as a complete ``Message``: as recorded, in its order, the fields it lacks added after."""
    message = dict(response)
    for key, value in _MESSAGE_DEFAULTS.items():
        message.setdefault(key, value)
    return message


def _handler(server: MessagesServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            if self.path.split("?")[0] != "/v1/messages":
                self._send(404, _error("not_found_error", f"no such endpoint: {self.path}"))
                return
            try:
                body = json.loads(raw)
            except ValueError as error:
                self._send(400, _error("invalid_request_error", f"the body is not JSON: {error}"))
                return
            received, answer, delay = server.answer(body)
            server.note(received)
            if delay:
                server.wait(delay)
            self._send(received.status, answer)

        def _send(self, status: int, answer: Mapping[str, Any]) -> None:
            data = json.dumps(answer).encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.send_header("request-id", f"req_local_{len(server.received)}")
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                # The client gave up (a timeout test); there is nobody left to answer.
                pass

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
