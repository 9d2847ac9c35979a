"""HTML for notebooks, in two floors: ``values`` shows plain values (messages, decisions, tables) and
needs nothing above them; ``runs`` shows runs, views and replies from the facts of ``agentrender.views``.

Stdlib only. Every text a run holds reaches the page through ``values.escape_text`` (or
``escape_attr``); markup comes only from the literals of these modules.
"""
