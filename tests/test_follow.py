"""Following a run file while another process writes it: ``runfile.follow`` and ``Follower``."""

import gzip
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentrender.runfile import Follower, RunFileError, follow, load_run
from agentrender.runfile.following import REMOVED
from agentrender.views import Views
from tests._support.growing import Writer, header, line, step


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[Writer]:
    process = Writer(tmp_path / "run.jsonl")
    yield process
    process.close()


def test_each_poll_takes_in_only_what_the_writer_added(writer: Writer) -> None:
    """A step appended by another process is taken in by the next poll, and the run equals a fresh load."""
    follower = Follower(writer.path)
    assert follower.poll() is None  # not written yet
    writer.records(header(), step(0))
    first = follower.poll()
    assert first is not None and [s.index for s in first.run.steps] == [0] and first.changed_from == 0
    assert follower.poll() is None  # nothing new: nothing read
    writer.records(step(1, answered=False))
    writer.records(step(1), step(2))
    grown = follower.poll()
    assert grown is not None and grown.changed_from == 1 and grown.lines == 3
    fresh = load_run(writer.path)
    assert list(grown.run.steps) == list(fresh.steps)
    assert list(grown.run.records) == list(fresh.records)
    assert dict(grown.run.step_records) == dict(fresh.step_records)
    assert [str(w) for w in grown.run.warnings] == [str(w) for w in fresh.warnings]
    assert len(first.run.steps) == 1, "a run given earlier is a snapshot: later growth does not change it"


def test_a_growth_that_ends_on_records_the_run_does_not_load_holds_them_in_its_records(writer: Writer) -> None:
    """A record of a type the run does not load (a runtime's checkpoint) that a growth ends on is among the records
    of the run that growth gives, as a fresh load's; before, it came only with the growth after it."""
    follower = Follower(writer.path)
    writer.records(header(), step(0), {"type": "checkpoint", "at": 1})
    first = follower.poll()
    assert first is not None and list(first.run.records) == list(load_run(writer.path).records)
    assert list(first.run.records)[-1] == {"type": "checkpoint", "at": 1}
    writer.records({"type": "checkpoint", "at": 2}, step(1), {"type": "checkpoint", "at": 3})
    grown = follower.poll()
    assert grown is not None and grown.run == load_run(writer.path)
    assert len(first.run.records) == 3, "a run given earlier is a snapshot: later growth does not change it"


def test_a_partial_last_line_is_waited_for_not_reported_cut(writer: Writer) -> None:
    """Half a line is held until its newline comes: no 'cut short' warning, and then the step is loaded."""
    follower = Follower(writer.path)
    writer.records(header())
    assert follower.poll() is not None
    text = line(step(0))
    writer.append(text[:25])
    assert follower.poll() is None
    assert follower.pending == 25
    assert follower.run is not None and not follower.run.steps and not follower.run.warnings
    writer.append(text[25:])
    growth = follower.poll()
    assert growth is not None and [s.index for s in growth.run.steps] == [0]
    assert not growth.run.warnings and follower.pending == 0


def test_the_line_being_written_is_numbered_the_header_first(writer: Writer) -> None:
    """``pending_line`` numbers the line ``pending`` counts: the header while it is written (1), then a later step's
    line (3 after a header and a step), and 0 once each has its newline."""
    follower = Follower(writer.path)
    text = line(header())
    writer.append(text[:20])
    assert follower.poll() is None
    assert (follower.pending_line, follower.pending) == (1, 20)
    writer.append(text[20:] + line(step(0)) + line(step(1))[:25])
    assert follower.poll() is not None
    assert (follower.pending_line, follower.pending) == (3, 25)
    writer.append(line(step(1))[25:])
    assert follower.poll() is not None
    assert (follower.pending_line, follower.pending) == (0, 0)


def test_a_truncated_file_is_read_again_and_the_user_told(writer: Writer) -> None:
    """A file cut below what was read is read again from its start, and the growth says so."""
    follower = Follower(writer.path)
    writer.records(header(), step(0), step(1), step(2))
    assert follower.poll() is not None
    writer.truncate(0)
    writer.records(header("second"), step(0))
    growth = follower.poll()
    assert growth is not None and "truncated" in growth.notice and "read again" in growth.notice
    assert growth.run.run_id == "second" and len(growth.run.steps) == 1
    assert growth.changed_from == 0
    assert follower.notices and str(writer.path) in follower.notices[0]


def test_a_look_between_the_truncation_and_the_new_header_still_tells_the_user(writer: Writer) -> None:
    """A poll that finds the file emptied (no header yet, so no growth) keeps the notice for the growth that
    follows: without it a reader (``agentrender show --follow``) would take the new run as more of the old."""
    follower = Follower(writer.path)
    writer.records(header(), step(0), step(1))
    assert follower.poll() is not None
    writer.truncate(0)
    assert follower.poll() is None  # emptied: nothing to show yet
    writer.records(header("second"), step(0))
    growth = follower.poll()
    assert growth is not None and "truncated" in growth.notice and "read again" in growth.notice
    assert growth.run.run_id == "second" and len(growth.run.steps) == 1
    writer.records(step(1))
    later = follower.poll()
    assert later is not None and later.notice == ""  # said once
    assert len(follower.notices) == 1


def test_a_replaced_file_is_read_again_and_the_user_told(writer: Writer) -> None:
    """A file renamed over the followed one (a new inode) is read again from its start, even when it is longer."""
    follower = Follower(writer.path)
    writer.records(header(), step(0))
    assert follower.poll() is not None
    writer.replace("".join(map(line, [header("other"), step(0), step(1), step(2), step(3)])))
    growth = follower.poll()
    assert growth is not None and "replaced" in growth.notice
    assert growth.run.run_id == "other" and len(growth.run.steps) == 4


def test_a_file_removed_then_written_again_is_said_and_read_from_its_start(writer: Writer) -> None:
    """A file removed while followed (log rotation, a run written again under its name) makes ``waiting`` say so, and
    the file written again is read from its start with a notice, even when it is as long as the one read and has its
    inode (a file system gives a new file the inode just freed). Before, nothing was said while it was missing, and
    a new file on the old inode was read on from the old offset: a line cut in two, an error."""
    follower = Follower(writer.path)
    writer.records(header(), step(0))
    assert follower.poll() is not None
    writer.path.unlink()
    assert follower.poll() is None and follower.waiting == REMOVED
    writer.records(header("other"), step(0), step(1), step(2))
    growth = follower.poll()
    assert growth is not None and "removed, and written again" in growth.notice and follower.waiting == ""
    assert growth.run.run_id == "other" and len(growth.run.steps) == 3


def test_a_file_written_again_in_place_and_grown_past_what_was_read_is_read_from_its_start(writer: Writer) -> None:
    """A file truncated and written again longer between two looks (a run given the same name, the writer opening it
    with "w") no longer holds the bytes read last: it is read from its start, and the growth says so. Before, it was
    read on from the old offset, in the middle of a line of the new file: "not JSON" on that line, at every poll."""
    follower = Follower(writer.path)
    writer.records(header(), step(0, answered=False))
    assert follower.poll() is not None
    writer.truncate(0)
    writer.records(header("other"), step(0), step(1), step(2))
    growth = follower.poll()
    assert growth is not None and "written again: its bytes before the" in growth.notice
    assert growth.run.run_id == "other" and len(growth.run.steps) == 3
    writer.records(step(3))
    later = follower.poll()
    assert later is not None and later.notice == "" and len(later.run.steps) == 4


def test_a_gzip_file_is_refused_at_once(tmp_path: Path) -> None:
    """Following a .jsonl.gz fails when asked, before any waiting, and says why and what to do instead."""
    with pytest.raises(RunFileError, match=r"run\.jsonl\.gz:1: a gzip-compressed run file cannot be followed"):
        Follower(tmp_path / "run.jsonl.gz")
    disguised = tmp_path / "run.jsonl"
    disguised.write_bytes(gzip.compress(line(header()).encode()))
    follower = Follower(disguised)
    with pytest.raises(RunFileError, match=r"cannot be followed.*load_run"):
        follower.poll()


def test_records_faster_than_polls_are_taken_in_together(writer: Writer) -> None:
    """Three hundred records written one by one while the reader looks twice come in two growths, none lost."""
    follower = Follower(writer.path)
    writer.records(header(), *(step(i) for i in range(150)))
    first = follower.poll()
    writer.records(*(step(i) for i in range(150, 300)))
    second = follower.poll()
    assert first is not None and second is not None
    assert first.lines + second.lines == 301
    assert [s.index for s in second.run.steps] == list(range(300))


def test_a_bad_line_is_an_error_at_every_poll(writer: Writer) -> None:
    """A line that is not JSON stops the follower with PATH:LINE:, and it is never skipped over later."""
    follower = Follower(writer.path)
    writer.records(header())
    writer.append("{not json\n")
    with pytest.raises(RunFileError, match=r"run\.jsonl:2: not JSON"):
        follower.poll()
    writer.records(step(0))
    with pytest.raises(RunFileError, match=r"run\.jsonl:2: not JSON"):
        follower.poll()


def test_follow_yields_each_growth_and_stops_when_idle(writer: Writer) -> None:
    """follow() gives what the file holds, then each growth; with idle= it ends once the file stops growing."""
    writer.records(header(), step(0))
    seen = []
    for growth in follow(writer.path, interval=0.01, idle=0.3):
        seen.append(len(growth.run.steps))
        if len(seen) == 1:
            writer.records(step(1))
    assert seen == [1, 2]


def test_a_file_that_stops_growing_costs_no_cpu(writer: Writer) -> None:
    """Waiting on a still file for half a second takes a few milliseconds of CPU: a stat each poll, nothing read."""
    writer.records(header(), *(step(i) for i in range(2000)))
    follower = Follower(writer.path)
    assert follower.poll() is not None
    cpu = time.process_time()
    assert list(follow(writer.path, interval=0.01, idle=0.5))[1:] == []
    # the one growth follow() gives first reads the file once; the fifty polls after it only stat it
    once = time.process_time() - cpu
    cpu = time.process_time()
    for _ in range(50):
        assert follower.poll() is None
    assert time.process_time() - cpu < max(once / 5, 0.01)


def test_views_follow_the_growing_run(writer: Writer) -> None:
    """Views extended with each growth equal fresh views of the run, the step recorded twice included."""
    follower = Follower(writer.path)
    writer.records(header(), step(0), step(1, answered=False))
    growth = follower.poll()
    assert growth is not None
    views = Views(growth.run)
    _ = views.sizes(), [views.at(stop).messages for stop in views.stops]
    writer.records(step(1), step(2))
    growth = follower.poll()
    assert growth is not None
    views.extend(growth.run, growth.changed_from)
    fresh = Views(load_run(writer.path))
    assert views.sizes() == fresh.sizes()
    assert [views.at(s).messages for s in views.stops] == [fresh.at(s).messages for s in fresh.stops]
