"""agentrender: see exactly what an AI agent's model saw.

The core (this package and ``agentrender.render``) is the render contract: recorded
steps into the conversation a model is shown, and a model's reply into a decision. Its
one dependency outside the Python standard library is ``msgspec``, which decodes and checks
the typed values. ``record(client, path)`` records the Messages API calls of an agent built
on the Anthropic SDK to a run file; it works on the client it is given, so it needs no
import of the SDK. ``load(path)`` reads any run: a run file, or a history an importer reads
(``agentrender.imports``: nothing more either, Inspect's ``.eval`` and older logs aside, whose reader
is imported only when one is read).
"""

from agentrender._types import ContentBlock, Decision, Message, ModelResponse, Observation, Step, StepInput
from agentrender.imports import load
from agentrender.recording import record
from agentrender.runfile import ModelCall, Run, RunFileError, RunWarning, RunWriter, load_run, write_run

__all__ = [
    "ContentBlock",
    "Decision",
    "Message",
    "ModelCall",
    "ModelResponse",
    "Observation",
    "Run",
    "RunFileError",
    "RunWarning",
    "RunWriter",
    "Step",
    "StepInput",
    "load",
    "load_run",
    "record",
    "write_run",
]

__version__ = "0.1.0"
