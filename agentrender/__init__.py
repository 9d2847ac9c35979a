"""agentrender: see exactly what an AI agent's model saw.

The core (this package and ``agentrender.render``) is the render contract: recorded
steps into the conversation a model is shown, and a model's reply into a decision. It
imports nothing outside the Python standard library.
"""

from agentrender._types import ContentBlock, Decision, Message, ModelResponse, Observation, Step, StepInput

__all__ = [
    "ContentBlock",
    "Decision",
    "Message",
    "ModelResponse",
    "Observation",
    "Step",
    "StepInput",
]

__version__ = "0.1.0"
