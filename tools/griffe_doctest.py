"""A griffe extension for the API reference: doctest examples in docstrings render as code.

Markdown reads a bare ``>>>`` line as a nested block quote, and an output line such as
``['user', 'assistant']`` as a link reference, which strict mode rightly rejects. This
extension fences each doctest block (a paragraph whose first line starts with ``>>>``)
as ``pycon``, so the reference shows the examples as the code they are.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """``text`` with every doctest paragraph wrapped in a ````pycon`` fence."""
    out: list[str] = []
    block: list[str] = []
    in_fence = False
    for line in [*text.split("\n"), ""]:
        stripped = line.lstrip()
        if stripped.startswith("```"):
            in_fence = not in_fence
        if block:
            if stripped:
                block.append(line)
                continue
            indent = block[0][: len(block[0]) - len(block[0].lstrip())]
            out += [f"{indent}```pycon", *block, f"{indent}```"]
            block = []
        if not in_fence and stripped.startswith(">>>"):
            block.append(line)
            continue
        out.append(line)
    return "\n".join(out[:-1])


class FenceDoctests(griffe.Extension):
    """Fence the doctest blocks of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
