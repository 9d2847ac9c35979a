"""What every widget of the notebook extra shares: it wraps an ipywidgets box and displays as it."""

from __future__ import annotations

from typing import Any

from agentrender._extras import require

widgets = require("notebook", "ipywidgets")
"""ipywidgets, the one import of it in this package; without it importing any widget says what to install."""


class Widget:
    """A wrapper that Jupyter displays as its ``widget`` (an ipywidgets ``Box``)."""

    widget: Any

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


def row(children: list[Any]) -> Any:
    """A row of controls that wraps onto a second line in a narrow output, where a plain ``HBox`` runs on past the
    output's edge and hides the controls at its end."""
    return widgets.HBox(children, layout=widgets.Layout(flex_flow="row wrap"))


def stepper(count: int, value: int, description: str) -> tuple[Any, Any, Any]:
    """A slider over ``range(count)`` with previous and next buttons."""
    slider = widgets.IntSlider(
        value=value,
        min=0,
        max=max(0, count - 1),
        description=description,
        continuous_update=True,
        layout=widgets.Layout(flex="1 1 auto", min_width="240px"),
        disabled=count <= 1,
    )
    # A box shrinks its children to fit; the buttons keep their labels whole and the slider gives way.
    previous = widgets.Button(description="◀ previous", layout=widgets.Layout(width="auto", flex="0 0 auto"))
    following = widgets.Button(description="next ▶", layout=widgets.Layout(width="auto", flex="0 0 auto"))

    def move(delta: int) -> None:
        slider.value = min(slider.max, max(slider.min, slider.value + delta))

    previous.on_click(lambda _: move(-1))
    following.on_click(lambda _: move(1))
    return slider, previous, following
