"""HTML of plain values (messages, decisions, tables), in ``values``: it needs nothing above them.

HTML of runs, views and replies lives with the facts it shows, in ``agentrender.views.html``.
Stdlib only. Every text a run holds reaches the page through ``values.escape_text`` (or
``escape_attr``); markup comes only from the literals of these modules.
"""
