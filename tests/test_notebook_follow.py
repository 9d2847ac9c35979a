"""``ConversationView(path, follow=True)``: the view follows a file another process writes, unless moved away."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agentrender import imports
from agentrender.notebook import ConversationView
from agentrender.notebook.conversation import LIVE
from agentrender.views import Views
from agentrender.views.html import view_html
from tests._support.growing import Writer, header, line, step


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[Writer]:
    process = Writer(tmp_path / "run.jsonl")
    yield process
    process.close()


def soon(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    """Wait for ``condition``, which the widget's watching thread makes true (or fail after ``seconds``)."""
    until = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < until, "the widget never took the growth in"
        time.sleep(0.02)


def test_a_followed_view_moves_to_the_newest_step_and_says_live(writer: Writer) -> None:
    """Each step another process appends reaches the view, which stays on the newest step and shows the live mark."""
    writer.records(header(), step(0))
    writer.path.with_name("expected.jsonl").write_text("".join(map(line, [header(), step(0), step(1), step(2)])))
    widget = ConversationView(writer.path, follow=True)
    try:
        assert widget.at == 1 and widget.position_label.value.startswith(LIVE)
        writer.records(step(1), step(2))
        fresh = Views(imports.load(writer.path.with_name("expected.jsonl")))
        # the view's HTML is the last thing a growth sets: wait for it, then look at the rest
        soon(lambda: widget.html.value == view_html(fresh.at(3), last_steps=40))
        assert widget.at == 3 and widget.slider.max == 3
        assert widget.view.messages == fresh.at(3).messages
        writer.records({"type": "end", "status": "completed", "reason": "completed"})
        soon(lambda: "ended (completed)" in widget.position_label.value)
    finally:
        widget.stop_following()
    assert LIVE not in widget.position_label.value


def test_a_view_moved_away_stays_where_the_user_put_it(writer: Writer) -> None:
    """A user who moved the slider back keeps their step while the run grows; the slider's range grows."""
    writer.records(header(), step(0), step(1))
    widget = ConversationView(writer.path, follow=True)
    try:
        widget.slider.value = 0
        writer.records(step(2))
        soon(lambda: widget.slider.max == 3)
        assert widget.at == 0
        assert widget.view.messages == Views(imports.load(writer.path)).at(0).messages
    finally:
        widget.stop_following()


def test_follow_takes_a_path_and_waits_for_its_run(tmp_path: Path) -> None:
    """follow=True needs a path; a file that holds no run is waited for, then refused with a sentence."""
    with pytest.raises(ValueError, match="give its path"):
        ConversationView(imports.load(Path(__file__).resolve().parents[1] / "sample_runs" / "out-of-steps.jsonl"),
                         follow=True)  # fmt: skip
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(ValueError, match=re.escape("no run in it after 0.3 s: is its agent writing it?")):
        ConversationView(empty, follow=True, wait=0.3)
    half = tmp_path / "chat.json"  # a document half written: why it does not import is said
    text = (Path(__file__).resolve().parents[1] / "sample_imports" / "stock-lookup.openai-chat.json").read_text("utf-8")
    half.write_text(text[: len(text) // 2], "utf-8")
    with pytest.raises(ValueError, match=re.escape(f"no run in it after 0.3 s: it does not import yet: {half}:")):
        ConversationView(half, follow=True, wait=0.3)


def test_a_followed_explorer_recounts_its_tabs_as_the_run_grows(writer: Writer) -> None:
    """RunExplorer(path, follow=True): the conversation follows, and the steps table counts the new steps."""
    from agentrender.notebook import RunExplorer

    writer.records(header(), step(0))
    explorer = RunExplorer(writer.path, follow=True)
    try:
        assert explorer.count.value == "1 of 1 steps"
        decide = explorer.decide
        writer.records(step(1), step(2))
        soon(lambda: explorer.count.value == "3 of 3 steps")
        assert explorer.conversation.at == 3
        assert list(explorer.frame["index"]) == [0, 1, 2]
        assert explorer.decide is not decide and explorer.tabs.children[2] is explorer.decide.widget
    finally:
        explorer.conversation.stop_following()


def test_a_followed_explorer_lists_the_warnings_the_growth_brings(writer: Writer) -> None:
    """RunExplorer(path, follow=True) of a run read without warnings lists in its run tab the first warning the file's
    growth brings (a record it does not know), counting it in the tab's title, then the next, and the steps it grew
    by."""
    from agentrender.notebook import RunExplorer

    writer.records(header(), step(0))
    explorer = RunExplorer(writer.path, follow=True)
    try:
        assert len(explorer.tabs.children) == 5 and explorer.tabs.get_title(4) == "run"
        assert "<th>steps</th><td>1 (" in explorer.facts.value
        writer.records(step(1), {"type": "mystery"})
        soon(lambda: explorer.tabs.get_title(4) == "run (1 warning)")
        assert "run.jsonl:4: unknown record type &#x27;mystery&#x27;" in explorer.facts.value
        writer.records({"type": "riddle"}, step(2))
        soon(lambda: explorer.tabs.get_title(4) == "run (2 warnings)")
        soon(lambda: "<th>steps</th><td>3 (" in explorer.facts.value)
        assert len(explorer.tabs.children) == 5 and "riddle" in explorer.facts.value
        assert explorer.facts.value.count("mystery") == 1
    finally:
        explorer.conversation.stop_following()


def test_a_view_following_an_empty_file_waits_for_the_session_written_into_it(tmp_path: Path) -> None:
    """ConversationView(path, follow=True) on a file still empty waits for its first run, a Claude Code session
    another process writes into it (where the run-file follower an empty file chose raised 'missing run header')."""
    session = Path(__file__).resolve().parents[1] / "sample_imports" / "python-to-rust-port.claude-code.jsonl"
    writer = Writer(tmp_path / "session.jsonl")
    try:
        writer.append("")
        started = threading.Timer(0.5, writer.append, [session.read_text("utf-8")])
        started.start()
        widget = ConversationView(writer.path, follow=True, wait=20)
        started.join()
        try:
            assert widget.views.steps == imports.load(session).steps
        finally:
            widget.stop_following()
    finally:
        writer.close()
