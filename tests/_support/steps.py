"""Generated steps for the contract's property tests (hypothesis): decisions, observations and runs of them."""

import json

from hypothesis import strategies as st

from agentrender import Decision, Message, Observation, Step

texts = st.text(st.characters(codec="utf-8"), max_size=60) | st.sampled_from(["", " ", "\n\t", "é€😀"])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
kinds = st.sampled_from(["tool_call", "tool_call", "tool_call", "no_tool_call", "truncated", "complete"]) | texts
decisions = st.builds(
    Decision,
    kind=kinds,
    tool=st.sampled_from(["", "read_file", "write_file", "run_tests"]),
    args=st.none() | json_values,
    reason=texts,
    invalid_args=st.sampled_from(["", "{bad", "//4="]),
    invalid_base64=st.booleans(),
)
# Content and summary carry different prefixes so a rendered result says which one it shows.
observations = st.builds(
    Observation,
    status=st.sampled_from(["ok", "error", "invalid_decision", "interrupted", "weird"]),
    content=texts.map(lambda t: "C:" + t),
    summary=st.sampled_from(["", "S:"]) | texts.map(lambda t: "S:" + t),
)
step_bodies = st.lists(st.tuples(st.none() | decisions, st.none() | observations), max_size=14)


def make_steps(bodies: list[tuple[Decision | None, Observation | None]]) -> list[Step]:
    return [Step(index=i, decision=d, observation=o) for i, (d, o) in enumerate(bodies)]


def wire_bytes(messages: list[Message]) -> int:
    """The bytes of a message list's compact JSON, encoded as replay_key encodes it (a lone surrogate 3 bytes)."""
    text = json.dumps([m.to_dict() for m in messages], ensure_ascii=False, separators=(",", ":"))
    return len(text.encode("utf-8", "surrogatepass"))
