"""A local stand-in for the Anthropic Messages API that answers from recorded replies.

Point the real SDK at it (``anthropic.Anthropic(base_url=server.base_url, api_key="local")``)
and every request is checked against the API's rules (``check_params``), looked up by the
replay key of what actually arrived over HTTP, and answered with the reply recorded for
that key. A request that breaks a rule, or that no reply was recorded for, gets the 400 the
real API would give, with the reason in the body, and is kept in ``rejections``.
Failures can be queued (``fail_next``) to exercise a client's error paths. ``scripted``
answers requests in their order instead of by key (a reply, a ``Failure`` or a ``Cut`` for
each), for an agent whose requests are not known beforehand. A request with ``"stream":
true`` is answered as the API streams: server-sent events that build the reply. Stdlib
only; it listens on 127.0.0.1.
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
from agentrender._api_rules import TOOL_KEYS, defined_tool
from agentrender._json import display
from agentrender.adapters.anthropic import check_params
from agentrender.imports.anthropic import request_key
from agentrender.imports.conversation import Where, normalise_messages

if TYPE_CHECKING:
    from types import TracebackType

    from agentrender.runfile import Run

__all__ = ["Cut", "Failure", "MessagesServer", "Received", "body_key", "stream_events"]


def body_key(body: Mapping[str, Any]) -> str:
    """The replay key of a ``/v1/messages`` request body: the key an import gives its call (``request_key``).

    ``render.replay_key`` over what was sent as a view renders it (a string content as one text
    block, a system of blocks as its text), so a recorded call is found by the request an agent
    sends again, however it wrote it.
    """
    return request_key(body)


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
class Cut:
    """A streamed answer cut short: the first ``events`` events of ``reply``, then the connection is dropped."""

    reply: Mapping[str, Any]
    """The reply whose events are sent."""
    events: int
    """How many of its events are sent before the connection is closed."""


@dataclass(frozen=True, slots=True)
class _Recorded:
    """A request a run recorded a reply to, kept to say how a request no reply answers differs from it."""

    step: int
    """The step the request decided."""
    request: Mapping[str, Any]
    """Its body as recorded, or as the run renders the view at its step (a run file that keeps no body)."""


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
    cut: int | None = None
    """For a streamed answer cut short (``Cut``): how many events were sent before the connection was dropped."""


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
        self._script: deque[Mapping[str, Any] | Failure | Cut] | None = None
        self._recorded: list[_Recorded] = []
        self._given: dict[str, list[int]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.received: list[Received] = []
        """Every request, in arrival order."""
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def from_run(cls, run: Run, **settings: Any) -> MessagesServer:
        """A server answering with ``run``'s recorded replies (as recorded), by their recorded request keys.

        A request none answers gets a 400 that says why: the replies recorded for it were given already (each
        answers one request), or how it differs from the nearest request the run recorded (the first message that
        differs, or the model, system, tools or ``max_tokens``).
        """
        calls = [call for call in run.model_calls if call.request_key]
        server = cls(((call.request_key, call.wire_response) for call in calls), **settings)
        server._recorded = [_Recorded(call.step, _recorded_request(run, call.step, call.record)) for call in calls]
        return server

    @classmethod
    def scripted(cls, answers: Iterable[Mapping[str, Any] | Failure | Cut]) -> MessagesServer:
        """A server answering the n-th request with the n-th of ``answers``, whatever it holds.

        Each answer is a reply (a ``Message``'s JSON, completed as recorded replies are), a
        ``Failure`` or a ``Cut``. Requests are still checked against the API's rules; one
        past the end of the script gets a 400.
        """
        server = cls()
        server._script = deque(answers)
        return server

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
        key = ""
        if not reason:
            try:
                key = body_key(body)
            except ValueError as unreadable:  # messages the API's rules let by but no view can render
                reason = str(unreadable)
        if failure is not None:
            error = _error(failure.error_type, failure.message or f"queued failure {failure.status}")
            return Received(body=body, key=key, status=failure.status), error, failure.delay
        if reason:
            return Received(body=body, key=key, status=400, reason=reason), _error("invalid_request_error", reason), 0.0
        if self._script is not None:
            return self._scripted(body, key)
        with self._lock:
            queue = self._replies.get(key)
            response = queue.popleft() if queue else None
            number = len(self.received) + 1
            if response is not None:
                self._given.setdefault(key, []).append(number)
        if response is None:
            reason = f"no recorded reply for this request (replay key {key}){self._why_missed(key, body)}"
            return Received(body=body, key=key, status=400, reason=reason), _error("invalid_request_error", reason), 0.0
        return Received(body=body, key=key, status=200), _message(response), 0.0

    def _why_missed(self, key: str, body: Mapping[str, Any]) -> str:
        """What a request no reply answers has against the recorded ones: its replies given, or where it differs."""
        given = self._given.get(key)
        if given:
            return (
                f": the {len(given)} recorded for it went to request(s) {', '.join(map(str, given))} of this server, "
                "and a recorded reply answers one request (a new MessagesServer.from_run replays the run once more)"
            )
        now = _messages_of(body)
        if not self._recorded or now is None:
            return ""
        # the nearest: the most messages in common from the start, then the number of messages nearest this one's
        nearest, nearest_messages, same, best = self._recorded[0], [], 0, (-1, 0)
        for recorded in self._recorded:
            messages = _messages_of(recorded.request) or []
            common = next((i for i, (a, b) in enumerate(zip(messages, now, strict=False)) if a != b), None)
            common = min(len(messages), len(now)) if common is None else common
            if (common, -abs(len(messages) - len(now))) > best:
                nearest, nearest_messages, same = recorded, messages, common
                best = (common, -abs(len(messages) - len(now)))
        said = f": the nearest request the run recorded, of step {nearest.step}"
        if same < min(len(nearest_messages), len(now)):
            was, is_now = nearest_messages[same], now[same]
            where, was_part, now_part = f"messages[{same}]", was, is_now
            blocks, now_blocks = was.get("content"), is_now.get("content")
            if was.get("role") == is_now.get("role") and isinstance(blocks, list) and isinstance(now_blocks, list):
                block = next((j for j, (a, b) in enumerate(zip(blocks, now_blocks, strict=False)) if a != b), None)
                if block is not None:
                    where, was_part, now_part = f"{where}.content[{block}]", blocks[block], now_blocks[block]
            where = f"{where} ({is_now.get('role')})"
            return f"{said}, differs at {where}: recorded {_short(was_part)}, now {_short(now_part)}"
        if len(nearest_messages) != len(now):
            return f"{said}, has {len(nearest_messages)} messages, this one {len(now)}; the first {same} are the same"
        fields = [
            f"{name} (recorded {_short(nearest.request.get(name))}, now {_short(body.get(name))})"
            for name in ("model", "max_tokens", "system", "tools")
            if nearest.request.get(name) != body.get(name)
        ]
        return f"{said}, has the same messages; {'; '.join(fields) or 'its other fields'} differ"

    def _scripted(self, body: Any, key: str) -> tuple[Received, Mapping[str, Any], float]:
        assert self._script is not None
        with self._lock:
            answer = self._script.popleft() if self._script else None
        if answer is None:
            reason = "the script has no answer left for this request"
            return Received(body=body, key=key, status=400, reason=reason), _error("invalid_request_error", reason), 0.0
        if isinstance(answer, Failure):
            error = _error(answer.error_type, answer.message or f"scripted failure {answer.status}")
            return Received(body=body, key=key, status=answer.status), error, answer.delay
        if isinstance(answer, Cut):
            return Received(body=body, key=key, status=200, cut=answer.events), _message(answer.reply), 0.0
        return Received(body=body, key=key, status=200), _message(answer), 0.0

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
                if defined_tool(tool):  # a server or versioned tool (web_search_..., bash_...)
                    if not tool.get("name") and "toolset" not in tool["type"]:  # a toolset has none
                        return f"tools.{i}: a tool needs a name"
                    continue
                extra = sorted(set(tool).difference(TOOL_KEYS))
                if extra:
                    return f"tools.{i}: unexpected fields {extra}"
                if not tool.get("name") or not isinstance(tool.get("input_schema"), dict):
                    return f"tools.{i}: a tool needs a name and an input_schema"
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


def _recorded_request(run: Run, step: int, record: Mapping[str, Any]) -> Mapping[str, Any]:
    """The body of a recorded call's request: as its record holds it, else as the run renders the view at its step."""
    request = record.get("request")
    if isinstance(request, Mapping):
        return request
    try:
        messages = [message.to_dict() for message in render.messages(run.step_input(step), run.options())]
    except (IndexError, ValueError):  # a call for a step the run does not hold
        messages = []
    wire = {"model": run.model, "max_tokens": run.max_output_tokens, "messages": messages}
    return {**wire, "system": run.system or None, "tools": [dict(tool) for tool in run.tools] or None}


def _messages_of(body: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """A body's messages as a replay key reads them (string content as one text block); ``None`` when unreadable."""
    try:
        return normalise_messages(body.get("messages"), Where("request", 1, "messages"))
    except ValueError:  # RunFileError: what no view can render
        return None


def _short(value: Any) -> str:
    return render.truncate(display(value, indent=None), 200)


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


def stream_events(message: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """A reply as the API streams it: ``(event name, data)`` for each server-sent event that builds ``message``.

    Text and thinking arrive in two deltas each, a tool use's input as two pieces of JSON (an input given as a
    string, the model's argument text, as two pieces of that text: arguments that are not JSON, as the API streams
    them), so a client's accumulation is exercised; the usage comes at the start and the output
    tokens again with the stop reason.
    """
    start = {key: value for key, value in message.items() if key not in ("content", "stop_reason", "stop_sequence")}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": {**start, "content": [], "stop_reason": None}})
    ]
    for index, block in enumerate(message.get("content") or ()):
        kind = block.get("type")
        deltas: list[dict[str, Any]] = []
        if kind == "text":
            opening = {**block, "text": ""}
            deltas = [{"type": "text_delta", "text": part} for part in _halves(block.get("text", ""))]
        elif kind == "thinking":
            opening = {**block, "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": part} for part in _halves(block.get("thinking", ""))]
            deltas.append({"type": "signature_delta", "signature": block.get("signature", "")})
        elif kind in ("tool_use", "server_tool_use"):
            opening = {**block, "input": {}}
            given = block.get("input", {})
            # an input given as text is the model's own argument text, streamed as it is (JSON or not), as the API
            # streams what the model wrote: a reply whose arguments are not JSON
            text = given if isinstance(given, str) else json.dumps(given)
            deltas = [{"type": "input_json_delta", "partial_json": part} for part in _halves(text)]
        else:
            opening = dict(block)
        start_block = {"type": "content_block_start", "index": index, "content_block": opening}
        events.append(("content_block_start", start_block))
        events.extend(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}) for delta in deltas
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    usage = message.get("usage") or {}
    stop = {"stop_reason": message.get("stop_reason"), "stop_sequence": message.get("stop_sequence")}
    events.append(
        (
            "message_delta",
            {"type": "message_delta", "delta": stop, "usage": {"output_tokens": usage.get("output_tokens", 0)}},
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _halves(text: str) -> list[str]:
    middle = len(text) // 2
    return [text[:middle], text[middle:]] if middle else [text]


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
            if received.status == 200 and body.get("stream") is True:
                self._stream(answer, received.cut)
            else:
                self._send(received.status, answer)

        def _stream(self, message: Mapping[str, Any], cut: int | None) -> None:
            events = stream_events(message)[:cut]
            try:
                # HTTP/1.0 with no length: the body ends where the connection does, so a cut
                # stream is the events sent so far, as a dropped connection leaves it.
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("request-id", f"req_local_{len(server.received)}")
                self.end_headers()
                for name, data in events:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

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
