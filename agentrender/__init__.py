"""agentrender: see exactly what an AI agent's model saw.

The core (this package and ``agentrender.render``) is the render contract: recorded
steps into the conversation a model is shown, and a model's reply into a decision. Its
one dependency outside the Python standard library is ``msgspec``, which decodes and checks
the typed values. ``record(client, path)`` records the Messages API calls of an agent built
on the Anthropic SDK to a run file; it works on the client it is given, so it needs no
import of the SDK. ``load(path)`` reads any run: a run file, or a history an importer reads
(``agentrender.imports``: nothing more either, Inspect's ``.eval`` and older logs aside, whose reader
is imported only when one is read).

``import agentrender`` loads the contract's values alone: ``load``, ``record`` and the run files'
names (``Run``, ``load_run``, ...) import their modules when first used, and ``load`` imports the
one importer its file needs.
"""

import importlib
import typing

from agentrender._types import ContentBlock, Decision, Message, ModelResponse, Observation, Step, StepInput

if typing.TYPE_CHECKING:
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

_RUN_FILES = frozenset(("ModelCall", "Run", "RunFileError", "RunWarning", "RunWriter", "load_run", "write_run"))
"""The names of ``agentrender.runfile`` the package gives."""


_MODULES = frozenset(
    {
        "adapters",
        "agent",
        "dask",
        "frame",
        "html",
        "imports",
        "notebook",
        "recording",
        "render",
        "runfile",
        "samples",
        "testing",
        "views",
    }
)
"""The package's public modules, each imported when first named as an attribute (``agentrender.render.messages``
after ``import agentrender``)."""


def __getattr__(name: str) -> object:
    """The names that need more than the contract, each imported when first asked for (PEP 562): ``load`` (the
    importers' ``imports.load``, which imports the one importer its file needs), ``record`` (the recorder), the run
    files' names and the package's public modules. ``import agentrender`` then loads the contract's values alone."""
    if name in _MODULES:
        return importlib.import_module(f"agentrender.{name}")
    if name == "load":
        from agentrender.imports import load

        return load
    if name == "record":
        from agentrender.recording import record

        return record
    if name in _RUN_FILES:
        from agentrender import runfile

        return getattr(runfile, name)
    raise AttributeError(f"module 'agentrender' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names with those ``__getattr__`` gives, as ``dir(agentrender)`` and completion list them."""
    return sorted({*globals(), *__all__, *_MODULES})
