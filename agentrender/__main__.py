"""``python -m agentrender``: the command line (see ``agentrender.cli``)."""

from agentrender.cli import main

raise SystemExit(main())
