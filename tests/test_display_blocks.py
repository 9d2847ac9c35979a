"""Every type of block the importers keep is said the same way by ``agentrender show``, a view's HTML and the page:
as text to read (``block_said``), with what its body does not say (a cache breakpoint, a caller) beside it."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from agentrender import ModelResponse
from agentrender.html import page, payload
from agentrender.imports import from_anthropic, load, load_runs
from agentrender.views import Views, explain_decide
from agentrender.views.html import explanation_html, view_html
from tests._support.cli import run_cli
from tests._support.real import REAL

PNG = "iVBORw0KGgoAAAANSUhEUgAAACIAAAAeCAYAAABJ"
"""The first bytes of a 34 by 30 PNG, base64: enough for its size to be read."""

USE = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "a.py"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "the file"}

# name: (where the block goes: "opening", "assistant" (before USE) or "result" (answering USE), the block, what the
# terminal prints on its lines, what the pages show, and what none may show: its wire form dumped as JSON)
CASES: dict[str, tuple[str, dict[str, Any], list[str], list[str], list[str]]] = {
    "text": ("assistant", {"type": "text", "text": "Reading it."}, ["as sent  a text block · 11 bytes  Reading it."],
             ["Reading it."], []),
    "text, cache breakpoint": (
        "opening",
        {"type": "text", "text": "Look at this.", "cache_control": {"type": "ephemeral"}},
        ["opening  cache breakpoint  Look at this."],
        ["Look at this.", "cache breakpoint"],
        ['"cache_control"'],
    ),
    "text, cache breakpoint of an hour": (
        "opening",
        {"type": "text", "text": "Look.", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
        ["opening  cache breakpoint, ttl 1h  Look."],
        ["cache breakpoint, ttl 1h"],
        ['"ttl"'],
    ),
    "text, citations": (
        "assistant",
        {"type": "text", "text": "Per the notes.", "citations": [{"type": "char_location", "cited_text": "doc"}]},
        ['as sent  a text block · 14 bytes · citations: [{"type": "char_location", "cited_text": "doc"}]  Per the '
         "notes."],
        ["Per the notes.", "citations: "],
        ['"text": "Per the notes."'],
    ),
    "thinking": (
        "assistant",
        {"type": "thinking", "thinking": "Which file?", "signature": "c2ln"},
        ["as sent  a thinking block · 11 bytes  Which file?"],
        ["Which file?"],
        ['"signature"'],
    ),
    "thinking, encrypted": (
        "assistant",
        {"type": "thinking", "thinking": "", "signature": "c2lnbmF0dXJl"},
        ["as sent  a thinking block · 12 bytes  [encrypted reasoning: 12 bytes of signature, sent back as it was]"],
        ["[encrypted reasoning: 12 bytes of signature, sent back as it was]"],
        ['"signature"', "c2lnbmF0dXJl"],
    ),
    "redacted thinking": (
        "assistant",
        {"type": "redacted_thinking", "data": "RU5DUllQVEVE"},
        ["as sent  a redacted_thinking block · 12 bytes  [encrypted reasoning: 12 bytes of data, sent back as it was]"],
        ["[encrypted reasoning: 12 bytes of data, sent back as it was]"],
        ['"data"', "RU5DUllQVEVE"],
    ),
    "tool use, caller": (
        "assistant",
        {"type": "tool_use", "id": "toolu_0", "name": "Glob", "input": {"glob": "*.py"}, "caller": {"type": "direct"}},
        ['as sent  Glob  a tool_use block · 15 bytes · id toolu_0 · caller: {"type": "direct"}  {"glob": "*.py"}'],
        ["Glob", "toolu_0", 'caller: {"type": "direct"}'],
        ['"name": "Glob"'],
    ),
    "tool use, cache breakpoint": (
        "assistant",
        {"type": "tool_use", "id": "toolu_0", "name": "Glob", "input": {}, "cache_control": {"type": "ephemeral"}},
        ["as sent  Glob  a tool_use block · 2 bytes · id toolu_0 · cache breakpoint  {}"],
        ["Glob", "cache breakpoint"],
        ['"cache_control"'],
    ),
    "result, a string": (
        "result",
        RESULT,
        ["as sent  a tool_result block · 8 bytes · answers Read · id toolu_1  the file"],
        ["the file"],
        [],
    ),
    "result, cache breakpoint": (
        "result",
        {**RESULT, "cache_control": {"type": "ephemeral"}},
        ["as sent  a tool_result block · 8 bytes · answers Read · id toolu_1 · cache breakpoint  the file"],
        ["the file", "cache breakpoint"],
        ['"cache_control"'],
    ),
    "result, a list of text parts": (
        "result",
        {**RESULT, "content": [{"type": "text", "text": "line one"}, {"type": "text", "text": "line two"}]},
        ["line one", "line two"],
        ["line one\nline two"],
        ['"tool_use_id"', '"type": "text"'],
    ),
    "result, text and an image": (
        "result",
        {
            **RESULT,
            "content": [
                {"type": "text", "text": "a screenshot"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            ],
        },
        ["a screenshot", "[image/png, 30 bytes, 34\u00d730]"],
        ["a screenshot\n[image/png, 30 bytes, 34\u00d730]"],
        [PNG, '"tool_use_id"'],
    ),
    "image": (
        "opening",
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        ["opening  [image/png, 30 bytes, 34\u00d730]"],
        ["[image/png, 30 bytes, 34\u00d730]"],
        [PNG],
    ),
    "document, titled": (
        "opening",
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}, "title": "N"},
        ['opening  title: "N"  [text/plain, 5 bytes of text]'],
        ["[text/plain, 5 bytes of text]", 'title: "N"'],
        ['"source"'],
    ),
    "server tool use": (
        "assistant",
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "rain"}},
        ['as sent  web_search  a server_tool_use block · 89 bytes · id srvtoolu_1  {"query": "rain"}'],
        ["web_search", "srvtoolu_1"],
        ['"name": "web_search"'],
    ),
    "server tool result": (
        "assistant",
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": [{"type": "web_search_result", "url": "https://example.com", "title": "Rain"}],
        },
        ['"url": "https://example.com"'],
        ["srvtoolu_1", "https://example.com"],
        ['"tool_use_id"'],
    ),
    "MCP tool use": (
        "assistant",
        {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "lookup", "server_name": "kb", "input": {"q": 1}},
        ['as sent  lookup  a mcp_tool_use block · 92 bytes · id mcptoolu_1 · server_name: "kb"  {"q": 1}'],
        ["lookup", "mcptoolu_1", 'server_name: "kb"'],
        ['"name": "lookup"'],
    ),
    "MCP tool result": (
        "assistant",
        {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": True,
         "content": [{"type": "text", "text": "no kb"}]},
        ["as sent  a mcp_tool_result block · 112 bytes", "id mcptoolu_1 · is_error: true  no kb"],
        ["no kb", "is_error: true"],
        ['"tool_use_id"'],
    ),
    "a type no display knows": (
        "assistant",
        {"type": "container_upload", "file_id": "file_9"},
        ['as sent  a container_upload block · 46 bytes  {"type": "container_upload", "file_id": "file_9"}'],
        ["container_upload", "file_9"],
        [],
    ),
}  # fmt: skip


def _conversation(where: str, block: dict[str, Any]) -> dict[str, Any]:
    """A Messages API request holding ``block`` where the case puts it, in a conversation of one call and its result."""
    opening: list[dict[str, Any]] = [{"type": "text", "text": "Fix a.py."}]
    assistant, result = [USE], [RESULT]
    if where == "opening":
        opening.append(block)
    elif where == "assistant":
        assistant = [block, USE]
    else:
        result = [block]
    return {
        "model": "m",
        "messages": [
            {"role": "user", "content": opening},
            {"role": "assistant", "content": assistant},
            {"role": "user", "content": result},
        ],
    }


@pytest.mark.parametrize("name", CASES)
def test_show_and_the_pages_say_each_type_of_block_as_text(name: str, tmp_path: Path) -> None:
    """A block of each type the importers keep is printed by ``show`` as text to read, what its body does not say
    beside it; a view's HTML and the page show the same text and notes; none dumps the block's wire form as JSON
    (``show`` printed a result of text parts, or a block with a cache breakpoint, as the JSON of its keys)."""
    where, block, printed, shown, never = CASES[name]
    path = tmp_path / "request.json"
    path.write_text(json.dumps(_conversation(where, block)), encoding="utf-8")
    code, out, err = run_cli("show", str(path), "--width", "200", "--color", "never")
    assert code == 0, err
    lines = "\n".join(line.rstrip() for line in out.splitlines())
    for said in printed:
        assert said in lines, (said, lines)
    run = load(path)
    view, made = view_html(Views(run).at(None)), page(run)
    text = html.unescape(re.sub(r"<[^>]*>", "", view))
    for said in shown:
        assert said in text, (said, text)
        assert any(json.dumps(said, ensure_ascii=ascii)[1:-1] in made for ascii in (True, False)), said
    for dumped in never:
        assert dumped not in lines, (dumped, lines)
        assert dumped not in text, (dumped, text)
        assert json.dumps(dumped)[1:-1] not in made, dumped


@pytest.mark.parametrize(
    ("name", "run", "printed", "never"),
    [
        # OpenHands' completion log: an OpenAI-style tool message whose content is a list of text parts
        (
            "openai/OpenHands-agent-sdk/litellm_proxy__anthropic__claude-sonnet-4-20250514-1757015046.707.json",
            "0",
            "answers str_replace_editor · id toolu_01A9Q4pzPLU8FwqfpZ8VJMBY  Invalid `path` parameter: hello.py.",
            ['"type": "tool_result"', '"type": "text"'],
        ),
        # claude-trace's raw requests: Claude Code marks its last blocks as cache breakpoints
        (
            "claude-trace/hanqunfeng-claude-trace/log-2026-06-15-09-15-50.jsonl",
            "2",
            "as sent  skill  a tool_use block · 17 bytes · id call_00_dgmoeO7COelTQp2MzeUS1132 · cache breakpoint  "
            '{"name": "myname"}',
            ['"cache_control"'],
        ),
        # a Claude Code transcript: each tool use says who called it
        (
            "claude-code/frederick-douglas-pearce-claude-code-sessions/hook-trace-prompt-hook-refusal.jsonl",
            "0",
            'caller: {"type": "direct"}  {"command": "echo hook fixture run", "description": "Echo hook fixture run '
            'text"}',
            ['"caller": {', '"type": "tool_use"'],
        ),
    ],
)
def test_show_says_the_blocks_of_real_histories_as_text(name: str, run: str, printed: str, never: list[str]) -> None:
    """On real histories, ``show`` prints a result of text parts as its text, a tool use as its name and input, and a
    cache breakpoint or a caller as a note beside them, where it printed each block's wire form as JSON."""
    path = REAL / name
    if not path.is_file():
        pytest.skip(f"{path} is not in this checkout")
    assert load_runs(path)
    code, out, err = run_cli("show", str(path), "--run", run, "--width", "220", "--color", "never")
    assert code == 0, err
    lines = "\n".join(line.rstrip() for line in out.splitlines())
    assert printed in lines, lines
    for dumped in never:
        assert dumped not in lines, dumped


@pytest.mark.parametrize("name", [name for name in CASES if CASES[name][1]["type"] not in ("text", "tool_use")])
def test_a_block_is_sized_by_what_it_shows_the_model(name: str) -> None:
    """Each block's ``shown_bytes`` (what ``show`` prints beside it as its size) counts what it shows the model: a
    result's content, a thinking block's text, and for a block of any other type (a server or MCP tool's use or
    result, an image, a document) its wire form, where those counted 0 bytes."""
    where, block, *_ = CASES[name]
    run = from_anthropic(_conversation(where, block))
    view = Views(run).at(None)
    turns = [view.opening, *(turn for step in view.steps for turn in (step.assistant, step.result) if turn)]
    facts = [fact for turn in turns for fact in turn.blocks]
    [fact] = [fact for fact in facts if fact.block.to_dict() == block]
    kind = block["type"]
    if kind == "tool_result":
        expected = len(fact.block.content.encode("utf-8"))
    elif kind in ("thinking", "redacted_thinking"):  # one that is only encrypted: what it sent, its signature or data
        expected = len((block.get("thinking") or block.get("signature") or block["data"]).encode("utf-8"))
    else:
        expected = len(json.dumps(block, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    assert fact.shown_bytes == expected > 0, (fact.shown_bytes, expected)


def test_each_result_names_the_tool_use_it_answers(tmp_path: Path) -> None:
    """Results sent back in another order than their calls (Claude Code sends them as they finish) each name the tool
    use they answer and its id in ``show``, a view's HTML and the page, where ``show`` named neither."""
    bash = {"type": "tool_use", "id": "toolu_bash", "name": "Bash", "input": {"command": "ls"}}
    read = {"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"path": "a.py"}}
    request = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "Look."},
            {"role": "assistant", "content": [bash, read]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_read", "content": "the file"},
                    {"type": "tool_result", "tool_use_id": "toolu_bash", "content": "a.py b.py"},
                    {"type": "tool_result", "tool_use_id": "toolu_gone", "content": "lost"},
                ],
            },
        ],
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    code, out, err = run_cli("show", str(path), "--width", "200", "--color", "never")
    assert code == 0, err
    said = [line.strip(" \u258c") for line in out.splitlines() if "tool_result block" in line]
    assert said == [
        "as sent  a tool_result block · 8 bytes · answers Read · id toolu_read  the file",
        "as sent  a tool_result block · 9 bytes · answers Bash · id toolu_bash  a.py b.py",
        "as sent  a tool_result block · 4 bytes · id toolu_gone  lost",
    ], said
    run = load(path)
    text = html.unescape(re.sub(r"<[^>]*>", "", view_html(Views(run).at(None))))
    assert text.index("answers Read toolu_read") < text.index("answers Bash toolu_bash"), text
    assert "toolu_gone" in text and text.count("answers ") == 2, text  # nothing before it of that id: its id alone
    made = page(run)
    for words in ("answers Read", "answers Bash"):
        assert json.dumps(words) in made, words


PATCH = "*** Begin Patch\n*** Update File: a.py\n-x = 1\n+x = 2\n*** End Patch"
"""A Codex ``apply_patch`` call's input: the patch as text, not JSON."""


def test_a_text_input_and_multi_line_strings_are_shown_as_lines(tmp_path: Path) -> None:
    """A tool use whose input is text (Codex's ``apply_patch``) is shown as its lines, said to be text; a JSON input
    whose strings hold line breaks (an ``Edit``) is shown as JSON with those breaks as lines, said so, and its JSON as
    sent is one ``--full`` away in ``show`` and folded beside it in a view's HTML and the page, where all three showed
    each as one line of ``\\n`` escapes."""
    arguments = {"path": "a.py", "old": "x = 2\ny = 3", "new": "x = 3"}
    request = {
        "model": "m",
        "input": [
            {"type": "message", "role": "user", "content": "Fix a.py."},
            {"type": "custom_tool_call", "call_id": "call_1", "name": "apply_patch", "input": PATCH},
            {"type": "custom_tool_call_output", "call_id": "call_1", "output": "Done"},
            {"type": "function_call", "call_id": "call_2", "name": "Edit", "arguments": json.dumps(arguments)},
            {"type": "function_call_output", "call_id": "call_2", "output": "ok"},
        ],
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    wire = json.dumps(arguments, indent=2)
    lines = '{\n  "path": "a.py",\n  "old": "x = 2\ny = 3",\n  "new": "x = 3"\n}'
    for full in ((), ("--full",)):
        code, out, err = run_cli("show", str(path), *full, "--width", "200", "--color", "never")
        assert code == 0, err
        printed = "\n".join(line.removeprefix("  \u258c ").rstrip() for line in out.splitlines())
        assert "id call_1 · its input is text, sent as it is\n" + PATCH + "\n" in printed, printed
        assert "id call_2 · line breaks in its strings shown as lines\n" + lines in printed, printed
        assert (wire in printed) == bool(full), printed
        assert "\\n" not in printed.replace(wire, ""), printed
    run = load(path)
    view = view_html(Views(run).at(None))
    text = html.unescape(re.sub(r"<[^>]*>", "", view))
    assert PATCH in text and lines in text, text
    assert '<details class="ar-wire"><summary>' in view and "its wire form, as JSON" + wire in text, text
    made = page(run)
    for said in (PATCH, lines, wire, "its input is text, sent as it is", "line breaks in its strings shown as lines"):
        assert json.dumps(said)[1:-1] in made, said


def test_a_block_is_labelled_before_its_content_whatever_its_length(tmp_path: Path) -> None:
    """``show`` prints every block's label (its tag, its facts) before its content: a short content after the label on
    its line when both fit, else under it as a long one is, where a short content came before its label and one that
    wrapped left the label mid-line after it."""
    said = "Command running in background with ID: bae407b. Output: /tmp/tasks/bae407b.output"
    request = _conversation("result", {**RESULT, "content": said})
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    label = "as sent  a tool_result block · 81 bytes · answers Read · id toolu_1"
    for width, printed in (("200", [f"{label}  {said}"]), ("100", [label, said])):
        code, out, err = run_cli("show", str(path), "--width", width, "--color", "never")
        assert code == 0, err
        lines = [line.removeprefix("  \u258c ").rstrip() for line in out.splitlines()]
        at = lines.index(printed[0])
        assert lines[at : at + len(printed)] == printed, lines


def test_an_encrypted_reasoning_item_is_said_to_be_one(tmp_path: Path) -> None:
    """A thinking block of no text but its signature (a Responses API reasoning item's ``encrypted_content``) is said
    to be encrypted reasoning, sized by its signature, in ``show``, a view's HTML and the page, where each showed an
    empty thinking block of 0 bytes."""
    said = "[encrypted reasoning: 12 bytes of signature, sent back as it was]"
    request = _conversation("assistant", {"type": "thinking", "thinking": "", "signature": "c2lnbmF0dXJl"})
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    code, out, err = run_cli("show", str(path), "--width", "200", "--color", "never")
    assert code == 0, err
    assert f"as sent  a thinking block · 12 bytes  {said}" in out, out
    run = load(path)
    assert said in html.unescape(re.sub(r"<[^>]*>", "", view_html(Views(run).at(None))))
    assert json.dumps(said) in page(run)


@pytest.mark.parametrize(
    ("block", "said"),
    [
        ({"type": "thinking", "thinking": "", "signature": "c2lnbmF0dXJl"}, "12 bytes of signature"),
        ({"type": "redacted_thinking", "data": "RU5DUllQVEVE"}, "12 bytes of data"),
    ],
)
def test_decide_says_a_reply_s_encrypted_reasoning(block: dict[str, Any], said: str, tmp_path: Path) -> None:
    """``decide`` and its HTML say a reply's reasoning block that is only encrypted (a thinking block of no text but
    its signature, a redacted_thinking block) is encrypted reasoning and what it sent, where ``decide`` said
    'thinking  0 characters' over an empty line and the HTML an empty 'thinking (0 characters)' or a bare tag."""
    line = f"[encrypted reasoning: {said}, sent back as it was]"
    reply = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [block, USE],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    path = tmp_path / "reply.json"
    path.write_text(json.dumps(reply), encoding="utf-8")
    code, out, err = run_cli("decide", str(path), "--width", "200", "--color", "never")
    assert code == 0, err
    name = block["type"].replace("_", " ")
    assert f"▌ {name}  {line} · not part of the reason" in out, out
    assert "0 characters" not in out
    explained = explanation_html(explain_decide(ModelResponse.from_dict(reply)))
    assert f'<span class="ar-tag">{name}</span>{html.escape(line)}</div>' in explained, explained


def test_the_page_s_decide_tab_says_encrypted_reasoning() -> None:
    """The page's decide tab gives a Codex rollout's reasoning item (no summary, its ``encrypted_content`` kept as the
    signature) as encrypted reasoning of its signature's size, where it gave an empty thinking block."""
    path = REAL / "codex/codemie-ai-codemie-code/rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is not in this checkout")
    facts = payload(load(path))
    texts = facts["texts"]
    first = [[texts[number] for number in block] for block in facts["replies"][0][3]]
    said = "[encrypted reasoning: 1,572 bytes of signature, sent back as it was]"
    assert first[0] == ["thinking", said], first
