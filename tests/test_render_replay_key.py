"""render.replay_key (CONTRACT §8): one digest of exactly what would be sent."""

import math
import subprocess
import sys
from pathlib import Path

import pytest

from agentrender import ContentBlock, Decision, Message, Observation, Step, StepInput, render

STEPS = [
    Step(
        index=0,
        decision=Decision(kind="tool_call", tool="read_file", args={"path": "é.py", "n": 1.5}, reason="Look 😀."),
        observation=Observation(content="x = 1\n", summary="read é.py"),
    ),
    Step(index=1, decision=Decision(kind="no_tool_call", reason="hm"), observation=None),
]
ROOT = Path(__file__).resolve().parents[1]
TOOLS = [{"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}}]


def key(steps: list[Step] = STEPS, **kwargs: object) -> str:
    conversation = render.messages(StepInput(steps=steps), render.Options(opening="Fix the test."))
    return render.replay_key(
        conversation, system=str(kwargs.get("system", "sys")), tools=TOOLS, model="m", max_output_tokens=4096
    )


@pytest.mark.slow
def test_replay_key_is_stable_across_processes() -> None:
    """Two fresh interpreters (different hash seeds) compute the same key as this process."""
    code = "import sys; sys.path.insert(0, 'tests'); import test_render_replay_key as t; print(t.key())"
    keys = set()
    for seed in ("1", "2"):
        env = {"PYTHONHASHSEED": seed, "PYTHONPATH": "."}
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=ROOT
        )
        keys.add(out.stdout.strip())
    assert keys == {key()}
    assert len(key()) == 64


def test_replay_key_accepts_wire_dicts_and_messages_alike() -> None:
    """A conversation given as Messages or as their wire dicts has the same key."""
    conversation = render.messages(StepInput(steps=STEPS), render.Options(opening="o"))
    assert render.replay_key(conversation) == render.replay_key([m.to_dict() for m in conversation])


def test_replay_key_is_over_a_compact_canonical_encoding() -> None:
    """The key is the SHA-256 of compact JSON, non-ASCII kept as UTF-8, in the documented field order."""
    import hashlib

    message = Message(role="user", content=(ContentBlock(type="text", text="é"),))
    expected = (
        '{"model":"m","system":"s","max_tokens":1,"tools":[],'
        '"messages":[{"role":"user","content":[{"type":"text","text":"é"}]}]}'
    )
    digest = hashlib.sha256(expected.encode()).hexdigest()
    assert render.replay_key([message], system="s", model="m", max_output_tokens=1) == digest


@pytest.mark.parametrize(
    "change",
    [
        lambda s: [
            Step(
                index=0,
                decision=Decision(
                    kind="tool_call", tool="read_file", args={"path": "é.py", "n": 1.5}, reason="Look 😀!"
                ),
                observation=s[0].observation,
            ),
            s[1],
        ],
        lambda s: [
            Step(index=0, decision=s[0].decision, observation=Observation(content="x = 2\n", summary="read é.py")),
            s[1],
        ],
        lambda s: [
            Step(
                index=0,
                decision=Decision(
                    kind="tool_call", tool="read_file", args={"n": 1.5, "path": "é.py"}, reason="Look 😀."
                ),
                observation=s[0].observation,
            ),
            s[1],
        ],
        lambda s: [Step(index=5, decision=s[0].decision, observation=s[0].observation), s[1]],
        lambda s: s[:1],
    ],
)
def test_any_rendered_byte_changes_the_key(change: object) -> None:
    """A changed reason, result, argument order, step index, or a dropped step changes the key."""
    assert key(change(STEPS)) != key()  # type: ignore[operator]


def test_request_fields_change_the_key() -> None:
    """The system text, tools, model and output cap are part of what is keyed."""
    conversation = render.messages(StepInput(steps=STEPS), render.Options(opening="o"))
    base = render.replay_key(conversation)
    assert (
        len(
            {
                base,
                render.replay_key(conversation, system="x"),
                render.replay_key(conversation, tools=TOOLS),
                render.replay_key(conversation, model="x"),
                render.replay_key(conversation, max_output_tokens=1),
            }
        )
        == 5
    )


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, b"bytes", {1, 2}])
def test_replay_key_rejects_what_is_not_json(bad: object) -> None:
    """NaN, infinities and non-JSON values in the arguments are a ValueError, never a silent key."""
    steps = [Step(index=0, decision=Decision(kind="tool_call", tool="t", args={"x": bad}))]
    conversation = render.messages(StepInput(steps=steps), render.Options(opening="o"))
    with pytest.raises(ValueError, match="replay_key: the request is not JSON"):
        render.replay_key(conversation)


def test_replay_key_handles_lone_surrogates() -> None:
    """A lone surrogate in a result is keyed (as surrogatepass bytes) rather than crashing, and differs from another."""

    def one(text: str) -> str:
        return render.replay_key([Message(role="user", content=(ContentBlock(type="text", text=text),))])

    assert one("\ud800") != one("\ud801")


def _growing(turns: int) -> list[dict[str, object]]:
    """A conversation's wire dicts, a user and an assistant turn at a time, non-ASCII and a lone surrogate included."""
    out: list[dict[str, object]] = []
    for n in range(turns):
        text = f"turn {n} é 😀" + ("\ud800" if n == 3 else "")
        out.append({"role": "user" if n % 2 == 0 else "assistant", "content": [{"type": "text", "text": text}]})
    return out


def test_replay_keys_of_growing_requests_are_replay_key_of_each() -> None:
    """ReplayKeys gives each request of a growing log replay_key's own key: shared messages, a changed head, a
    request that shares less than the one before, and one that shares nothing."""
    messages = _growing(9)
    keys = render.ReplayKeys()
    requests: list[tuple[list[dict[str, object]], dict[str, object]]] = [
        (messages[:1], {"system": "s", "tools": TOOLS, "model": "m", "max_output_tokens": 9}),
        (messages[:3], {"system": "s", "tools": TOOLS, "model": "m", "max_output_tokens": 9}),
        (messages[:5], {"system": "s", "tools": TOOLS, "model": "m", "max_output_tokens": 9}),
        (messages[:7], {"system": "other", "tools": TOOLS, "model": "m", "max_output_tokens": 9}),
        (messages[:2], {"system": "other", "tools": TOOLS, "model": "m", "max_output_tokens": 9}),
        ([dict(m) for m in messages], {"system": "other", "tools": TOOLS, "model": "m", "max_output_tokens": 9}),
        (messages, {}),
        ([*messages[:4], {"role": "assistant", "content": "changed"}, *messages[5:]], {}),
        ([], {}),
        (messages, {}),
    ]
    for sent, fields in requests:
        assert keys.key(sent, **fields) == render.replay_key(sent, **fields)  # type: ignore[arg-type]


def test_replay_keys_refuse_what_is_not_json_and_go_on() -> None:
    """A message that is not JSON raises replay_key's error, and the next request's key is still its own."""
    messages = _growing(4)
    keys = render.ReplayKeys()
    keys.key(messages[:2])
    with pytest.raises(ValueError, match="replay_key: the request is not JSON"):
        keys.key([*messages[:2], {"role": "user", "content": [{"type": "text", "text": math.nan}]}])
    assert keys.key(messages) == render.replay_key(messages)
