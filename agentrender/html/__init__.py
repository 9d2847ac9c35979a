"""A run as one offline HTML page: the explorer (the view at any step, the steps table, the size
chart, the decide stepper and the warnings) in a single file that opens from ``file://`` with no
kernel, no network and no server.

    agentrender.html.save(run, "run.html")           # or: agentrender html RUN -o run.html
    text = agentrender.html.page(run, options)        # the page itself, as a string
    agentrender.html.save(runs[0], "session.html", beside=runs)  # a session, its sub-agents' runs on the page too
    agentrender.html.save(runs[0], "eval.html", beside=runs, every=True)  # every sample of an eval log

Python decides everything the page shows: ``agentrender.views`` gives each view's facts (what each
block is, the window, sizes, what the model did not see), and the page's script only lays them out.
The facts travel as JSON in which each text is stored once, however many views show it, in parts of
``PART_STEPS`` steps: the last view's come first, then the page's script, so that a browser shows that
view while it still reads the rest of a long run's file. Every text reaches the page as text
(``textContent``), never as markup, and a Content-Security-Policy lets only the page's own script and
style run.

A run whose importer linked it to other runs of its file (a Claude Code session's sub-agents, each started by a step's
tool use) shows them on the same page when they are given (``beside``): each step says which run it started, and
opens it, and a sub-agent's run says which step started it, and goes back to it; a run picker lists them. A file of
independent runs (an eval log's samples, tau-bench's tasks) is on one page with ``every``: a list of its runs says
each one's id, sample and epoch, steps, how it ended and its score, and opens it (``#run=N`` is run N). Each run's
facts and parts are read only when it is shown, so the page opens in what its first run's last view costs.
"""

from agentrender.html._page import (
    KEYED_STEPS,
    MAX_RUNS,
    PAGE_FORMAT,
    PART_STEPS,
    SHORT_TEXT,
    TEXT_CHUNK,
    linked,
    page,
    payload,
    save,
)

__all__ = [
    "KEYED_STEPS",
    "MAX_RUNS",
    "PAGE_FORMAT",
    "PART_STEPS",
    "SHORT_TEXT",
    "TEXT_CHUNK",
    "linked",
    "page",
    "payload",
    "save",
]
