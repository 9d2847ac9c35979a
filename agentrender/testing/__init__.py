"""Test helpers: a local stand-in for the Anthropic Messages API that answers from recorded replies.

``MessagesServer`` listens on 127.0.0.1; point the real SDK at it
(``anthropic.Anthropic(base_url=server.base_url, api_key="local")``) to test an agent
offline. It checks each request against the API's rules, looks it up by the replay key of
what arrived (``body_key``) and answers with the reply recorded for that key, or with the
400 the real API would give (from a run, saying why: the key's replies given already, or where the
request differs from the nearest one the run recorded). ``Failure`` queues an error answer, ``Received`` is what it
kept of each request. ``MessagesServer.scripted`` answers requests in order instead (a
reply, a ``Failure`` or a ``Cut`` stream each), and a request with ``"stream": true`` is
answered with server-sent events (``stream_events``). Standard library only.
"""

from agentrender.testing._messages_server import Cut, Failure, MessagesServer, Received, body_key, stream_events

__all__ = ["Cut", "Failure", "MessagesServer", "Received", "body_key", "stream_events"]
