"""Run files: a recorded run as JSON Lines, read into a ``Run`` and written a record at a time.

The format is ``agentrender.run/1`` (docs/runfile.md): a ``run`` header, ``step`` records
(a later one with the same index replaces an earlier one), ``model_call`` records and at
most one ``end``. ``agentrender.run/2`` is the same, for a run that also records what its
agent sent (an imported conversation: ``step.sent``, replayed by ``Run.options``).
Reading never loses a record: whatever is not loaded is reported in ``Run.warnings``, each
a ``RunWarning``; bad input raises ``RunFileError`` naming the file and the line.

Decisions this package makes where the format leaves room:

- A record after the ``end`` record, or a second ``end``, is loaded with a warning: an
  append-only log may be resumed after a stop, and refusing it would hide the whole run.
  ``Run.end`` is the last ``end`` record.
- Invalid UTF-8 is an error (a cut-short last line excepted). Binary data before the header
  (invalid UTF-8, NUL or other control bytes) is ``not a run file: binary data ... at byte N``.
  A lone surrogate written as a JSON escape (``"\\ud800"``) is valid JSON and is loaded as
  it is; the writer escapes such strings again, so the round trip is lossless and the file
  stays valid UTF-8.
- ``NaN``, ``Infinity`` and numbers that overflow to infinity are not JSON (RFC 8259): an error.
- Blank lines hold no record and are skipped.
- A timestamp field (``started_at``, ``ended_at``, ``at``) that is not ISO 8601 / RFC 3339
  (``is_timestamp``) is kept in its record with a warning, and read as ``NaT`` in the frames.
- A ``.jsonl.gz`` file is recognised by its gzip magic bytes; a stream that ends early (a
  process killed while writing) is read up to where it ends, with a warning; one that ends
  before its first complete record is the error ``the gzip stream ends early: the file is
  truncated``. It is inflated 64 KiB at a time and to at most 8 MiB + 100 times its size
  (``lines.inflate_limit``), measured before any record is read: past that it is a
  ``RunFileError`` naming the line where the limit falls (a gzip bomb; gunzip a file you
  trust to read it).
- An object with a key twice (``{"index": 1, "index": 2}``) reads as its last value, as
  Python's ``json`` reads it.
- An index (``step.index``, ``model_call.step``, ``max_output_tokens``) above 2**53 - 1
  is an error; a reply's usage count that is not one, or a latency too large for a float,
  is kept with a warning and read as null in the frames.

The package, one concept a module: ``model`` (the values: ``Run``, ``ModelCall``,
``RunWarning``, ``RunFileError``), ``replies`` (a model reply as a record holds it),
``schema`` (the records as structs, checked; ``json_schema`` publishes them), ``sent`` (a run's recorded turns,
replayed as hooks), ``lines`` (JSON lines, plain or
gzip), ``read`` (``load_run``), ``following`` (``follow``, ``Follower``: a file read as it
grows) and ``write`` (``RunWriter``, ``write_run``). Import the
names from here.
"""

from agentrender.runfile.following import Follower, Growth, follow
from agentrender.runfile.model import (
    FORMAT,
    Compaction,
    ModelCall,
    Run,
    RunFileError,
    RunLink,
    RunLinks,
    RunWarning,
    RunWarnings,
    StepRecords,
)
from agentrender.runfile.read import NEVER_SENT, failure_text, load_run, read_records
from agentrender.runfile.replies import INPUT_BASE64, response_from_record, response_record
from agentrender.runfile.schema import check_record, is_timestamp, json_schema, parse_timestamp
from agentrender.runfile.sent import FORMAT_SENT
from agentrender.runfile.write import RunWriter, decision_record, step_record, write_run

__all__ = [
    "FORMAT",
    "FORMAT_SENT",
    "INPUT_BASE64",
    "NEVER_SENT",
    "Compaction",
    "Follower",
    "Growth",
    "ModelCall",
    "Run",
    "RunFileError",
    "RunLink",
    "RunLinks",
    "RunWarning",
    "RunWarnings",
    "RunWriter",
    "StepRecords",
    "check_record",
    "decision_record",
    "failure_text",
    "follow",
    "is_timestamp",
    "json_schema",
    "load_run",
    "parse_timestamp",
    "read_records",
    "response_from_record",
    "response_record",
    "step_record",
    "write_run",
]

# The public face: a class shows (in reprs, tracebacks, pickles) under the name it is imported by.
for _name in __all__:
    if isinstance(globals()[_name], type):
        globals()[_name].__module__ = __name__
