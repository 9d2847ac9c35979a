"""bench/bench_views.py keeps working: it runs on a tiny run and prints every figure (no timing is asserted)."""

from collections.abc import Callable
from types import ModuleType

import pytest


def test_bench_views_prints_every_figure(
    capsys: pytest.CaptureFixture[str], import_bench: Callable[[str], ModuleType]
) -> None:
    """On a 50-step run with one round, the benchmark prints each measure with its ratio and target."""
    bench = import_bench("bench_views")
    bench.main(["--steps", "50", "--rounds", "1"])
    out = capsys.readouterr().out
    names = [name for name, _, _ in bench.figures(20, 1)]
    for name in names:
        assert f"{name}: " in out
    assert out.count("target <= 0.1") == 3 and out.count("target <= 3") == 1


def test_bench_views_shapes_prints_every_cell_and_the_worst(
    capsys: pytest.CaptureFixture[str], import_bench: Callable[[str], ModuleType]
) -> None:
    """``--shapes`` prints the series' ratio on the run of each shape of text, then names the worst cell."""
    bench = import_bench("bench_views")
    bench.main(["--steps", "30", "--rounds", "1", "--shapes"])
    lines = capsys.readouterr().out.splitlines()
    cells = {line.split(": ")[0]: line for line in lines[1:-1]}
    assert list(cells) == list(bench.SHAPES)
    assert all(line.endswith("x gc paused") for line in cells.values())
    worst = lines[-1].removeprefix("worst cell, gc on: ")
    assert worst != lines[-1] and worst.rsplit(" (", 1)[0] in bench.SHAPES


def test_bench_views_shapes_rewrite_every_text(import_bench: Callable[[str], ModuleType]) -> None:
    """Each shape other than the plain run rewrites every result, summary and reason into text of that shape."""
    bench_views = import_bench("bench_views")
    plain = bench_views.bench_run(5)
    for name, shape in bench_views.SHAPES.items():
        run = bench_views.bench_run(5, shape)
        for step, before in zip(run.steps, plain.steps, strict=True):
            assert step.decision is not None and before.decision is not None
            assert step.observation is not None and before.observation is not None
            texts = (step.decision.reason, step.observation.content, step.observation.summary)
            plain_texts = (before.decision.reason, before.observation.content, before.observation.summary)
            assert texts == tuple(map(shape, plain_texts)), name
            if shape is not str:
                assert all(text != plain_text for text, plain_text in zip(texts, plain_texts, strict=True)), name
