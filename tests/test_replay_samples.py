"""Every sample run through the Anthropic adapter: its views as params the SDK accepts, its keys, and re-driving it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import anthropic
import pytest

from agentrender import ModelResponse, render, samples
from agentrender.adapters.anthropic import DEFAULT_MAX_TOKENS, AnthropicModel, ReplayModel, Request, replay_options
from agentrender.agent.record import SAMPLE_RUNS, SCRIPTS, record
from agentrender.runfile import Run
from agentrender.testing import MessagesServer, body_key
from tests._support.sdk import request_accepts

# An integration test: the real SDK or pyarrow against local servers and files, seconds in all.
pytestmark = pytest.mark.slow

NAMES = samples.names()
SETTINGS: tuple[Mapping[str, Any], ...] = (
    {},
    {"recent_results": 0},
    {"recent_results": 1, "result_bytes": 8},
    {"recent_results": 100, "result_bytes": 0},
)


@pytest.fixture(scope="module", params=NAMES)
def run(request: pytest.FixtureRequest) -> Run:
    """One sample run, loaded."""
    return samples.load(request.param)


def _replies(run: Run) -> dict[int, ModelResponse]:
    """Each step's deciding reply: the last model call recorded for it."""
    return {call.step: call.response for call in run.model_calls}


def _views(run: Run) -> Iterator[tuple[str, Request]]:
    """Every view of ``run`` (each step, the whole run; each setting, default and replayed turns) as a request."""
    indexes = [step.index for step in run.steps]
    for at in [*indexes, None]:
        for settings in SETTINGS:
            for style, options in (
                ("default", run.options(**settings)),
                ("replayed", replay_options(_replies(run), run.opening, **settings)),
            ):
                messages = render.messages(run.step_input(at=at), options)
                request = Request(messages=messages, system=run.system, tools=run.tools, model=run.model, step=at)
                yield f"at={at} {dict(settings)} {style}", request


def test_every_view_converts_to_params_the_sdk_types_and_the_api_rules_accept(run: Run) -> None:
    """Every step's view under every setting, default and with recorded turns replayed, is a request the API takes."""
    seen = 0
    for where, request in _views(run):
        try:
            request_accepts(request.params())
        except (AssertionError, ValueError) as error:
            pytest.fail(f"{run.path} {where}: {error}")
        seen += 1
    assert seen == (len(run.steps) + 1) * len(SETTINGS) * 2


def test_replayed_turns_carry_the_providers_blocks(run: Run) -> None:
    """With recorded turns replayed, each decided step's assistant turn is its reply's own blocks (thinking kept)."""
    messages = Request(
        messages=render.messages(run.step_input(), replay_options(_replies(run), run.opening)), model=run.model
    ).params()["messages"]
    sent = [block for message in messages if message["role"] == "assistant" for block in message["content"]]
    for call in run.model_calls:
        for block in call.response.content:
            if block.type == "thinking":
                assert block.to_dict() in sent, (run.path, call.step)


def test_recorded_request_keys_are_the_adapters_replay_keys(run: Run) -> None:
    """Each recorded request_key is Request.replay_key over the header's tools (read_only too) and the body key."""
    assert run.model_calls
    for call in run.model_calls:
        request = Request(
            messages=render.messages(run.step_input(at=call.step), run.options()),
            system=run.system,
            tools=run.tools,
            model=run.model,
            max_tokens=DEFAULT_MAX_TOKENS,
            step=call.step,
        )
        assert any("read_only" in tool for tool in run.tools)
        assert request.replay_key == call.request_key, (run.path, call.step)
        assert body_key(request.params()) == call.request_key, (run.path, call.step)


def test_replaying_each_sample_offline_records_it_byte_for_byte(run: Run, tmp_path: Path) -> None:
    """Re-driving a sample's script with ReplayModel over the sample gives the committed file byte for byte."""
    name = Path(run.path).stem
    out = tmp_path / f"{name}.jsonl"
    record(SCRIPTS / f"{name}.json", out, model=ReplayModel(run))
    assert out.read_bytes() == (SAMPLE_RUNS / f"{name}.jsonl").read_bytes()


def test_redriving_each_sample_through_the_sdk_reproduces_it(run: Run, tmp_path: Path) -> None:
    """The real SDK client against a local server answering from a sample sends its recorded requests, each
    accepted, and re-records the sample byte for byte (same keys, decisions and records; the clock is the script's)."""
    name = Path(run.path).stem
    out = tmp_path / f"{name}.jsonl"
    with MessagesServer.from_run(run) as server:
        client = anthropic.Anthropic(base_url=server.base_url, api_key="local", max_retries=0, timeout=10.0)
        record(SCRIPTS / f"{name}.json", out, model=AnthropicModel(client, model=run.model))
    rejected = [f"request {i}: {received.reason}" for i, received in enumerate(server.received) if received.reason]
    assert rejected == [], "the local server rejected requests:\n" + "\n".join(rejected)
    assert [received.key for received in server.received] == [call.request_key for call in run.model_calls]
    for received in server.received:
        request_accepts(received.body)
    assert out.read_bytes() == (SAMPLE_RUNS / f"{name}.jsonl").read_bytes()
