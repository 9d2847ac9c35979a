"""An agent built on the render contract: a small runtime, real tools, the sample recorder and a live demo.

This is an application of the library, not part of it: nothing in ``agentrender`` imports it.

- ``agentrender.agent.driver``: the runtime (``Driver``, ``ModelAgent``, ``Tool``,
  ``ScriptedModel``): it renders each step, decides, checks the decision against the
  tools' JSON schemas, runs the tool and records every step to a run file.
- ``agentrender.agent.tools``: tools working on a scratch folder (``scratch_tools``).
- ``agentrender.agent.record``: records the bundled sample runs from their scripts
  (``python -m agentrender.agent.record``; ``--check`` exits 1 when a sample is stale).
- ``agentrender.agent.live``: a small live agent that records its run, against the
  Messages API with a key or its bundled recording without (``python -m agentrender.agent.live``).

Needs the extra ``agent`` (jsonschema for the schema checks, the Anthropic SDK for real
model calls): ``pip install 'agentrender[agent]'``.
"""
