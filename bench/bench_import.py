"""Startup: how long ``import agentrender`` and the CLI's commands take in a fresh process.

    PYTHONPATH=. python bench/bench_import.py [--repeat N] [--tree PATH ...]

Each figure is the best of ``N`` fresh processes (``python -c ...``, wall clock, each module compiled once before, as
an installed package is), and its ratio to
``python -c "import msgspec"`` timed in the same run: the interpreter's own start and the core's one
dependency, which no change of the package can make faster. ``--tree`` measures another checkout of the
package too (an older commit, made with ``git worktree add --detach PATH COMMIT``), each command with its
own tree first on the path, in turns, so that both see the same machine. Also printed: how many
``agentrender`` modules each command leaves in ``sys.modules`` (one process each).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _gen import child_env

HERE = Path(__file__).resolve().parent.parent

BASELINE = ("import msgspec (the baseline)", "import msgspec")
CASES = [
    ("import agentrender", "import agentrender"),
    ("import agentrender.render", "import agentrender.render"),
    ("agentrender --help", "from agentrender.cli import main; main(['--help'])"),
    ("agentrender show fix-failing-test", "from agentrender.cli import main; main(['show', 'fix-failing-test'])"),
    ("agentrender check fix-failing-test", "from agentrender.cli import main; main(['check', 'fix-failing-test'])"),
]
"""What is timed: a label and the code a fresh process runs (the CLI as its console script runs it)."""

_COUNT = "\nimport sys; print(sum(m.startswith('agentrender') for m in sys.modules), file=sys.stderr)"


def _env(tree: Path) -> dict[str, str]:
    """The environment of a process that imports the package from ``tree`` (run in ``tree`` too: ``python -c`` puts
    the working folder first on the path), its modules compiled in ``PYCACHE`` as an installed package's are
    (``child_env``): else the figures would be the compiler's."""
    return child_env(PYTHONPATH=str(tree), COLUMNS="100")


def once(code: str, tree: Path) -> float:
    """The wall time of one fresh process running ``code`` with the package of ``tree``, in seconds."""
    start = time.perf_counter()
    command = [sys.executable, "-c", code]
    subprocess.run(command, env=_env(tree), cwd=tree, stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def modules(code: str, tree: Path) -> int:
    """How many ``agentrender`` modules a process running ``code`` with the package of ``tree`` holds at its end."""
    wrapped = f"try:\n    {code}\nexcept SystemExit:\n    pass{_COUNT}"
    out = subprocess.run(
        [sys.executable, "-c", wrapped],
        env=_env(tree),
        cwd=tree,  # python -c puts the working folder first on the path
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    return int(out.stderr.split()[-1])


def measure(trees: list[Path], repeat: int) -> dict[tuple[str, Path], float]:
    """The best of ``repeat`` fresh processes of each case (and the baseline) for each tree, in turns, after one that
    compiles the modules it imports into ``PYCACHE``."""
    best: dict[tuple[str, Path], float] = {}
    for _, code in (BASELINE, *CASES):
        for tree in trees:
            once(code, tree)
    for _ in range(repeat):
        for label, code in (BASELINE, *CASES):
            for tree in trees:
                seconds = once(code, tree)
                key = (label, tree)
                best[key] = min(best.get(key, seconds), seconds)
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--tree", type=Path, action="append", default=[], help="another checkout to measure too")
    args = parser.parse_args(argv)
    trees = [HERE, *(tree.resolve() for tree in args.tree)]
    best = measure(trees, args.repeat)
    counts = {(label, tree): modules(code, tree) for label, code in CASES for tree in trees}
    print(f"best of {args.repeat} fresh processes, wall time; ratio to {BASELINE[0]}")
    for tree in trees:
        base = best[(BASELINE[0], tree)]
        print(f"\n{tree}")
        print(f"  {BASELINE[0]:<40} {base * 1000:7.1f} ms")
        for label, _ in CASES:
            seconds = best[(label, tree)]
            count = counts[(label, tree)]
            print(f"  {label:<40} {seconds * 1000:7.1f} ms  {seconds / base:5.2f}x  {count:3d} agentrender modules")


if __name__ == "__main__":
    main()
