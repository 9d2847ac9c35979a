"""Debian's Chromium through Playwright, for the browser tests and tools/screenshots.py.

A browser test that cannot run fails under CI (``CI`` set), where the browser must be there,
and elsewhere skips, saying what to install.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import pytest


def find_chromium() -> str | None:
    """Where Chromium is: ``$CHROMIUM`` when set, Debian's ``/usr/bin/chromium``, else the first on PATH."""
    named = os.environ.get("CHROMIUM")
    if named:
        return named if os.path.exists(named) else None
    if os.path.exists("/usr/bin/chromium"):
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("chromium-browser")


CHROMIUM = find_chromium()
"""The Chromium every browser test and the screenshot tool launch (``None``: there is none), found once."""
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def require(missing: str | None) -> None:
    """Fail under CI when something is missing; elsewhere skip, saying what is missing."""
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"browser test under CI: {missing}")
        pytest.skip(missing)


def missing_chromium(path: str | None = CHROMIUM) -> str | None:
    """Why Chromium at ``path`` cannot be launched, or ``None`` when it can."""
    if path is None:
        return (
            "no Chromium found ($CHROMIUM, /usr/bin/chromium, or on PATH): apt-get install chromium (as .ci/run does)"
        )
    if not os.path.exists(path):
        return f"Chromium is not at {path}: apt-get install chromium (as .ci/run does)"
    return None


def chromium(path: str | None = CHROMIUM) -> Any:
    """Playwright, to launch Chromium at ``path``; fail under CI when either is missing, else skip saying why."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require("playwright is not installed (pip install playwright; the browser is Debian's chromium)")
    require(missing_chromium(path))
    return sync_playwright()


LOW_CONTRAST = """(within) => {
  // a colour as the browser gives it: rgb(), rgba(), or color(srgb ...) with channels from 0 to 1 (a color-mix())
  const rgba = (text) => {
    const found = /(rgba?|color)\\(([^)]*)\\)/.exec(text);
    if (!found) return null;
    const words = found[2].split(/[\\s,\\/]+/).filter(Boolean);
    const srgb = found[1] === "color";
    if (srgb && words.shift() !== "srgb") return null;
    const parts = words.map(Number), scale = srgb ? 255 : 1;
    if (parts.length < 3 || parts.some(Number.isNaN)) return null;
    return [parts[0] * scale, parts[1] * scale, parts[2] * scale, parts.length > 3 ? parts[3] : 1];
  };
  const over = (top, under) => under.map((value, k) => top[k] * top[3] + value * (1 - top[3]));
  const channel = (value) => {
    value /= 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  // each colour that may be behind a node: its and its ancestors' background colours, up to an opaque one, and over
  // them each colour of a striped background (a gradient's stripes), one stripe at a time
  const backdrops = (node) => {
    const layers = [];
    for (let at = node; at; at = at.parentElement) {
      const style = getComputedStyle(at), colour = rgba(style.backgroundColor);
      const stripes = (style.backgroundImage.match(/(rgba?|color)\\([^)]*\\)/g) || []).map(rgba)
        .filter((stripe) => stripe && stripe[3] > 0);
      if (stripes.length || (colour && colour[3] > 0)) layers.push([colour && colour[3] > 0 ? colour : null, stripes]);
      if (colour && colour[3] >= 1) break;
    }
    return layers.reduceRight((unders, [colour, stripes]) => unders.flatMap((under) => {
      const plain = colour ? over(colour, under) : under;
      return [plain, ...stripes.map((stripe) => over(stripe, plain))];
    }), [[255, 255, 255]]);
  };
  const found = [];
  const shapes = "svg path, svg use, svg line, svg polyline, svg rect, svg circle";
  for (const node of document.querySelectorAll(`${within || "body"} *`)) {
    const own = [...node.childNodes].filter((child) => child.nodeType === 3).map((child) => child.textContent).join("");
    const shape = node.matches(shapes) && !node.closest("defs, clipPath");
    if (!(own.trim() || shape) || !node.getClientRects().length) continue;
    const style = getComputedStyle(node);
    // a picture's words are painted in their fill; a mark of it in its stroke, or its fill where it has no stroke
    const paint = shape ? (style.stroke !== "none" ? style.stroke : style.fill) : node instanceof SVGElement
      ? style.fill : style.color;
    const see = shape ? Number(style.stroke !== "none" ? style.strokeOpacity : style.fillOpacity) : 1;
    // WCAG leaves out a disabled control; a chart's grid is drawn see-through, behind its marks
    if (node.closest(":disabled") || see < 1 || paint === "none") continue;
    let faded = 1;  // an element drawn see-through (a dimmed row) fades its text into what is behind it
    for (let at = node; at; at = at.parentElement) faded *= Number(getComputedStyle(at).opacity);
    if (style.visibility === "hidden" || faded === 0) continue;
    const named = node.className.baseVal ?? node.className;
    const colour = rgba(paint);
    if (!colour) {  // a colour this cannot read is said, not taken as readable
      found.push(`${named || node.tagName} ${paint}: a colour not read '${own.trim().slice(0, 40)}'`);
      continue;
    }
    const ratio = Math.min(...backdrops(node).map((back) => {
      const text = over([...colour.slice(0, 3), colour[3] * faded], back);
      const [light, dark] = [luminance(text), luminance(back)].sort((a, b) => b - a);
      return (light + 0.05) / (dark + 0.05);
    }));
    const size = parseFloat(style.fontSize), large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio >= (shape || large ? 3 : 4.5)) continue;
    found.push(`${named || node.tagName} ${paint}: ${ratio.toFixed(2)} '${own.trim().slice(0, 40)}'`);
  }
  return [...new Set(found)];
}"""
"""Each text the page shows whose colour stands out from what is behind it (on a striped background, from its
least distinct stripe) by less than WCAG's AA ratio (4.5, or 3 for large text), and each mark a picture (an SVG chart)
draws whose colour stands out by less than WCAG's 3 for a graphic, but for what it draws see-through (a grid); an
element drawn see-through fading its text; each colour it cannot read: the class, colour, ratio and first words of
each, once. Its argument, a selector, keeps to what lies within the elements it selects (a notebook's output
areas), else the whole page."""


CURRENT_ROW = """() => {
  const row = document.querySelector("tr.ar-current");
  const cells = [...row.cells], kinded = row.querySelector("td[class^='ar-']");
  const twin = [...document.querySelectorAll("td." + kinded.className)].find((cell) => !cell.closest("tr.ar-current"));
  const edges = cells.flatMap((cell, at) => [["Top", cell], ["Bottom", cell]]
    .concat(at === 0 ? [["Left", cell]] : []).concat(at === cells.length - 1 ? [["Right", cell]] : []))
    .map(([side, cell]) => [side, getComputedStyle(cell)])
    .map(([side, style]) => [style["border" + side + "Color"], style["border" + side + "Width"]]);
  const plain = getComputedStyle(twin.parentElement.cells[0]);
  return {
    kind: kinded.className, background: getComputedStyle(kinded).backgroundColor,
    elsewhere: getComputedStyle(twin).backgroundColor,
    edges: [...new Set(edges.map(([colour, width]) => colour + " " + width))],
    plain: plain.borderTopColor + " " + plain.borderTopWidth,
    behind: getComputedStyle(row.closest(".agentrender")).backgroundColor,
  };
}"""
"""The steps table's current row (``tr.ar-current``), in the page: the class of its cell coloured by kind, that cell's
background and the background of a cell of that kind in another row, the colour and width of the row's edges (its
cells' top and bottom, its first cell's left, its last cell's right; each once), a plain row's top edge, and the
background of the ``.agentrender`` box behind the table."""


def current_row(page: Any) -> tuple[str, list[str]]:
    """The class of the cell of the steps table's current row coloured by kind, and what is wrong with the row: that
    cell's background is not that of a cell of the same kind in another row, an edge is thinner than 2 pixels or
    stands out from the background behind the table by less than WCAG's 3 for a graphic, or a plain row has its edge.
    """
    row = page.evaluate(CURRENT_ROW)
    faults = [] if row["background"] == row["elsewhere"] else [f"filled {row['background']}, not {row['elsewhere']}"]
    for edge in row["edges"]:
        colour, width = edge.rsplit(" ", 1)
        if float(width.removesuffix("px")) < 2 or contrast(colour, row["behind"]) < 3:
            faults.append(f"edge {edge} on {row['behind']}")
    if row["plain"] in row["edges"]:
        faults.append(f"a plain row's edge too: {row['plain']}")
    return row["kind"], faults


def contrast(first: str, second: str) -> float:
    """WCAG's contrast ratio of two opaque CSS colours as the browser gives them (``rgb(r, g, b)``)."""

    def luminance(colour: str) -> float:
        channels = [int(part) / 255 for part in colour[colour.index("(") + 1 : colour.index(")")].split(",")[:3]]
        linear = [value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4 for value in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)
