"""``python -m agentrender`` and the ``agentrender`` console script: the command line (see ``agentrender.cli``)."""

from __future__ import annotations

import sys


def main() -> int:
    """Run the command line of ``sys.argv``; its exit status. A Ctrl-C while Python still loads the command (its
    modules take a moment to import) ends it as a Ctrl-C as the command starts does: 130, quietly, no traceback."""
    try:
        from agentrender.cli import main as command_line
    except KeyboardInterrupt:
        return 130
    return command_line(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
