"""render.args (CONTRACT §5) and render.decide (CONTRACT §6): a reply into a decision."""

from typing import Any

import pytest

from agentrender import ContentBlock, Decision, ModelResponse, render
from agentrender.render import REASON_BYTES, decide


def text(t: str) -> ContentBlock:
    return ContentBlock(type="text", text=t)


def use(name: str, raw: Any = None, id: str = "toolu_1") -> ContentBlock:
    return ContentBlock(type="tool_use", tool_use_id=id, name=name, input=raw)


def reply(*blocks: ContentBlock, stop: str = "tool_use") -> ModelResponse:
    return ModelResponse(content=blocks, stop_reason=stop)


def utf8_len(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


# -- §5 args ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decision", "expected"),
    [
        (Decision(kind="tool_call", tool="t", args={"a": 1}), {"a": 1}),
        (Decision(kind="tool_call", tool="t", args=[1, 2]), [1, 2]),
        (Decision(kind="tool_call", tool="t", args="just a string"), "just a string"),
        (Decision(kind="tool_call", tool="t", args=0), 0),
        (Decision(kind="tool_call", tool="t"), {}),
        (Decision(kind="tool_call", tool="t", invalid_args="{not json"), {"invalid_json": "{not json"}),
        (
            Decision(kind="tool_call", tool="t", invalid_args="//4=", invalid_base64=True),
            {"invalid_json_base64": "//4="},
        ),
        # invalid_args wins over args when (against the contract) both are set.
        (Decision(kind="tool_call", tool="t", args={"a": 1}, invalid_args="x"), {"invalid_json": "x"}),
    ],
)
def test_args_table(decision: Decision, expected: Any) -> None:
    """render.args gives the out-of-band wrapper, {} for no arguments, or the arguments themselves."""
    assert render.args(decision) == expected


def test_args_returns_a_fresh_empty_object() -> None:
    """The {} for a decision without arguments is a new object each time, so no caller can corrupt another's."""
    decision = Decision(kind="tool_call", tool="t")
    first = render.args(decision)
    first["x"] = 1
    assert render.args(decision) == {}


# -- §6 decide: stop reasons -----------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (reply(text("thinking aloud"), stop="max_tokens"), Decision(kind="truncated", reason="thinking aloud")),
        (
            reply(text("cut"), use("write_file", {"p": 1}), stop="max_tokens"),
            Decision(kind="truncated", reason="cut"),
        ),
        (
            reply(text("too long"), use("write_file"), stop="model_context_window_exceeded"),
            Decision(kind="truncated", reason="too long"),
        ),
        (reply(text("I won't."), use("rm", {}), stop="refusal"), Decision(kind="no_tool_call", reason="I won't.")),
        (reply(text("All done."), stop="end_turn"), Decision(kind="no_tool_call", reason="All done.")),
        (reply(text("stopped"), stop="stop_sequence"), Decision(kind="no_tool_call", reason="stopped")),
        (reply(stop="end_turn"), Decision(kind="no_tool_call")),
        (reply(text("paused"), stop="pause_turn"), Decision(kind="no_tool_call", reason="paused")),
        (
            reply(text("Look."), use("read_file", {"path": "a.py"}), stop="tool_use"),
            Decision(kind="tool_call", tool="read_file", args={"path": "a.py"}, reason="Look."),
        ),
        (
            reply(use("read_file", {"path": "a.py"}), stop="end_turn"),
            Decision(kind="tool_call", tool="read_file", args={"path": "a.py"}),
        ),
        (
            reply(use("read_file", {"path": "a.py"}), stop=""),
            Decision(kind="tool_call", tool="read_file", args={"path": "a.py"}),
        ),
        (reply(use("list_dir"), stop="tool_use"), Decision(kind="tool_call", tool="list_dir")),
        (reply(use("", {"a": 1})), Decision(kind="tool_call", tool="", args={"a": 1})),
    ],
)
def test_decide_stop_reasons(response: ModelResponse, expected: Decision) -> None:
    """Every stop reason maps to its kind: truncated, no_tool_call, or the first tool use as a tool_call."""
    assert decide(response) == expected


def test_stop_reason_constants() -> None:
    """The stop reasons decide reads are exported with the provider's spellings."""
    assert (
        render.STOP_TOOL_USE,
        render.STOP_END_TURN,
        render.STOP_MAX_TOKENS,
        render.STOP_REFUSAL,
        render.STOP_CONTEXT_WINDOW_EXCEEDED,
    ) == ("tool_use", "end_turn", "max_tokens", "refusal", "model_context_window_exceeded")
    assert (render.RECENT_RESULTS, render.RESULT_BYTES, render.REASON_BYTES, render.NAME_BYTES) == (6, 16384, 500, 64)


# -- §6 decide: raw arguments ----------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "args", "invalid_args", "invalid_base64"),
    [
        ('{"path": "a.py", "n": 2}', {"path": "a.py", "n": 2}, "", False),
        (b'{"path": "a.py"}', {"path": "a.py"}, "", False),
        (bytearray(b'{"path": "a.py"}'), {"path": "a.py"}, "", False),
        ('{"name": "é€😀"}'.encode(), {"name": "é€😀"}, "", False),
        ("[1, 2.5, -3e2]", [1, 2.5, -300.0], "", False),
        ('  {"a": null}\n', {"a": None}, "", False),
        ('"text"', "text", "", False),
        ("", None, "", False),
        (b"", None, "", False),
        ("{not json", None, "{not json", False),
        ('{"a": 1', None, '{"a": 1', False),
        (b"not json", None, "not json", False),
        ("   ", None, "   ", False),
        ('{"x": NaN}', None, '{"x": NaN}', False),
        ('{"x": Infinity}', None, '{"x": Infinity}', False),
        ('{"x": -Infinity}', None, '{"x": -Infinity}', False),
        ("NaN", None, "NaN", False),
        ('{"x": 1e999}', None, '{"x": 1e999}', False),
        ('{"x": -1e999}', None, '{"x": -1e999}', False),
        (b'{"x": 1e999}', None, '{"x": 1e999}', False),
        (b"\xff\xfe{", None, "//57", True),
        (b'{"a": "\xe9"}', None, "eyJhIjogIuki fQ==".replace(" ", ""), True),
        ({"already": "parsed"}, {"already": "parsed"}, "", False),
        (None, None, "", False),
    ],
)
def test_decide_raw_arguments(raw: Any, args: Any, invalid_args: str, invalid_base64: bool) -> None:
    """Raw str/bytes input is parsed as strict JSON; what does not parse is kept out of band (base64 when not UTF-8)."""
    decision = decide(reply(use("t", raw)))
    assert decision.kind == "tool_call"
    assert (decision.args, decision.invalid_args, decision.invalid_base64) == (args, invalid_args, invalid_base64)
    if invalid_args:
        assert decision.args is None


def test_decide_rejects_an_overflowing_number_inside_nested_json() -> None:
    """A number overflowing to infinity anywhere in the arguments makes them invalid, not infinite."""
    raw = '{"a": [1, {"b": 2E+400}]}'
    decision = decide(reply(use("t", raw)))
    assert (decision.args, decision.invalid_args) == (None, raw)
    assert decide(reply(use("t", '{"a": 1.7976931348623157e308}'))).args == {"a": 1.7976931348623157e308}


# -- §6 decide: text and reason --------------------------------------------------------


def test_decide_joins_text_blocks_and_strips() -> None:
    """The reason is every text block's text joined with a newline, then stripped."""
    decision = decide(reply(text("  first "), use("t", {}), text("second\n\n"), stop="tool_use"))
    assert decision.reason == "first \nsecond"


def test_decide_never_puts_thinking_in_the_reason() -> None:
    """Thinking and redacted-thinking blocks are never part of the reason, on any branch."""
    thinking = ContentBlock(type="thinking", text="SECRET PLAN", signature="sig")
    redacted = ContentBlock(type="redacted_thinking", text="ENCRYPTED")
    for stop in ("tool_use", "end_turn", "max_tokens", "refusal"):
        decision = decide(reply(thinking, redacted, text("Visible."), use("t", {}), stop=stop))
        assert decision.reason == "Visible."
    assert decide(reply(thinking, redacted, stop="end_turn")).reason == ""


@pytest.mark.parametrize("stop", ["tool_use", "end_turn", "max_tokens", "refusal", "model_context_window_exceeded"])
def test_decide_caps_long_text_on_every_branch(stop: str) -> None:
    """A text longer than REASON_BYTES is capped to exactly REASON_BYTES, marked, on every branch."""
    long_text = "word " * 200
    blocks = (text(long_text), use("t", {})) if stop == "tool_use" else (text(long_text),)
    decision = decide(reply(*blocks, stop=stop))
    assert decision.reason == long_text.strip()[:497] + "…"
    assert utf8_len(decision.reason) == REASON_BYTES


def test_decide_caps_multibyte_text_without_splitting() -> None:
    """A long text of 4-byte characters is capped below REASON_BYTES on a character boundary."""
    decision = decide(reply(text("😀" * 200), stop="end_turn"))
    assert decision.reason == "😀" * 124 + "…"


def test_decide_names_one_further_tool_use() -> None:
    """With two tool uses the first runs and the reason ends with a note naming the second."""
    decision = decide(reply(text("Do both."), use("read_file", {"p": 1}), use("write_file", {"p": 2}, id="toolu_2")))
    assert decision.tool == "read_file"
    assert decision.args == {"p": 1}
    assert decision.reason == "Do both. [1 further tool call(s) not executed: write_file]"


def test_decide_note_alone_when_there_is_no_text() -> None:
    """With several tool uses and no text, the reason is the note alone, names in reply order."""
    decision = decide(reply(use("a", {}), use("write_file"), use("delete_file"), use("write_file")))
    assert decision.reason == "[3 further tool call(s) not executed: write_file, delete_file, write_file]"


def test_decide_note_is_capped_with_names_dropped_from_the_end() -> None:
    """Many long names: each is capped at NAME_BYTES, the note at REASON_BYTES // 2, dropped names become a final …."""
    names = [f"tool_{i}_" + "x" * 100 for i in range(8)]
    decision = decide(reply(use("first", {}), *(use(name) for name in names)))
    capped = [name[:61] + "…" for name in names]
    # head 38 bytes + 3 names (66 bytes each with ", ") + "…]" (4 bytes) = 240 <= 250; a 4th would not fit.
    expected = "[8 further tool call(s) not executed: " + ", ".join(capped[:3]) + ", …]"
    assert decision.reason == expected
    assert utf8_len(expected) <= REASON_BYTES // 2


def test_decide_note_caps_multibyte_names_and_a_long_count() -> None:
    """Names of 4-byte characters are capped on a character boundary and a three-digit count still fits the note."""
    names = ["😀" * 40] * 200
    decision = decide(reply(use("first", {}), *(use(name) for name in names)))
    # Each capped name is 63 bytes (15 emoji + …); head 40 + 3 * 65 + 4 = 239 <= 250, a 4th would not fit.
    head = "[200 further tool call(s) not executed: "
    name = "😀" * 15 + "…"
    assert decision.reason == head + f"{name}, {name}, {name}, …]"
    assert utf8_len(decision.reason) <= REASON_BYTES // 2


def test_decide_text_gets_what_the_note_leaves() -> None:
    """With a long text and several uses, the text is cut to REASON_BYTES - len(note) - 1; the note stays whole."""
    long_text = "z" * 1000
    decision = decide(reply(text(long_text), use("a", {}), use("b"), use("c")))
    note = "[2 further tool call(s) not executed: b, c]"
    assert decision.reason.endswith(" " + note)
    assert decision.reason == "z" * (REASON_BYTES - len(note) - 1 - 3) + "… " + note
    assert utf8_len(decision.reason) == REASON_BYTES


def test_decide_never_returns_complete() -> None:
    """No stop reason, not even one spelled like a kind, makes decide return complete."""
    for stop in ("complete", "end_turn", "tool_use", "", "max_tokens", "refusal"):
        for blocks in ((), (text("done"),), (use("finish", {}),)):
            assert decide(reply(*blocks, stop=stop)).kind != "complete"


def test_decide_note_limit_is_exactly_half_of_reason_bytes() -> None:
    """A note of exactly REASON_BYTES // 2 bytes is kept whole; one byte more drops the last name for a …."""
    names = ["a" * 64, "b" * 64, "c" * 64, "d" * 13]
    exact = "[4 further tool call(s) not executed: " + ", ".join(names) + "]"
    assert len(exact) == REASON_BYTES // 2
    assert decide(reply(use("first", {}), *(use(name) for name in names))).reason == exact
    longer = [*names[:3], "d" * 14]
    expected = "[4 further tool call(s) not executed: " + ", ".join(longer[:3]) + ", …]"
    assert decide(reply(use("first", {}), *(use(name) for name in longer))).reason == expected


def test_decide_capped_note_keeps_a_name_that_fits_exactly() -> None:
    """With names dropped, a prefix ending exactly at REASON_BYTES // 2 stays; one byte more drops its last name."""
    head = "[5 further tool call(s) not executed: "
    for size, kept in ((8, 4), (9, 3)):
        names = ["a" * 64, "b" * 64, "c" * 64, "d" * size, "e" * 64]
        expected = head + ", ".join(names[:kept]) + ", …]"
        assert decide(reply(use("first", {}), *(use(name) for name in names))).reason == expected
    assert utf8_len(head + ", ".join(["a" * 64, "b" * 64, "c" * 64, "d" * 8]) + ", …]") == REASON_BYTES // 2
