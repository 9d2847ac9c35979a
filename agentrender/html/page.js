// agentrender's run page: lays out the facts Python gave it (agentrender/html/_page.py), decides none.
// Every text of the run reaches the page through text(): text nodes and textContent, never markup.
"use strict";
(function () {
  const began = performance.now();  // the file is read up to this script: what follows is this script's
  const first = JSON.parse(document.getElementById("ar-payload").textContent);  // the first run's facts
  // This script runs while the browser still reads the rest of the file: the parts of the last view, and their
  // texts, come before it; any other element is read once the browser has read it whole (the element after it is
  // there, or the whole file is).
  const fileRead = new Promise((resolve) => {
    if (document.readyState !== "loading") resolve();
    else document.addEventListener("DOMContentLoaded", () => resolve());
  });
  function element(id) {
    const node = document.getElementById(id);
    return node !== null && (node.nextElementSibling !== null || document.readyState !== "loading") ? node : null;
  }
  // The parts: each view's facts and each step's blocks, PART_STEPS to a part, each read when first shown.
  const partsRead = {};
  function part(id) {
    if (partsRead[id] === undefined) partsRead[id] = JSON.parse(element(id).textContent);
    return partsRead[id];
  }
  // call then() once the elements are read: at once when they are, else once the file is (counted as pending)
  function whenReady(ids, then) {
    if (ids.every((id) => partsRead[id] !== undefined || element(id) !== null)) { then(); return; }
    settle(1);
    fileRead.then(() => { then(); settle(-1); });
  }
  // The texts, in chunks, each read when one of its texts is first shown. The last view's are plain JSON, read
  // at once; the others are compressed, and a text of a chunk not read yet is drawn empty and filled a moment
  // later. data-pending counts the texts still to fill.
  const parsed = [], loading = [];
  let pending = 0, drawStarted = 0, drawn = 0;
  function chunkOf(number) { return Math.floor(number / first.text_chunk); }
  function load(chunk) {
    if (loading[chunk] === undefined) {
      const node = element("ar-t" + chunk);
      loading[chunk] = node !== null ? unpack(node, chunk) : fileRead.then(() => unpack(element("ar-t" + chunk), chunk));
    }
    return loading[chunk];
  }
  function unpack(node, chunk) {
    if (node.type === "application/json") {
      parsed[chunk] = JSON.parse(node.textContent);
      return Promise.resolve();
    }
    const packed = atob(node.textContent);
    const bytes = new Uint8Array(packed.length);
    for (let i = 0; i < packed.length; i++) bytes[i] = packed.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then((json) => { parsed[chunk] = JSON.parse(json); });
  }
  function loaded(numbers) { return Promise.all([...new Set(numbers.map(chunkOf))].map(load)); }
  function entryOf(number) { return parsed[chunkOf(number)][number % first.text_chunk]; }
  function settle(change) {
    pending += change;
    root.dataset.pending = String(pending);
    if (pending === 0) {
      void root.offsetHeight;  // laid out: what a reader waits for
      root.dataset.drawMs = String(performance.now() - drawStarted);
      root.dataset.settled = String(performance.now());
    }
  }
  const root = document.getElementById("ar-page");
  const PAGE_ROWS = 50;

  function el(tag, className, words) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (words !== undefined) node.textContent = words;
    return node;
  }

  // A text of the table: its pieces as text nodes, each unsafe character as a visible [U+XXXX] marker.
  function text(number, tag, className) {
    const node = el(tag || "span", className);
    if (parsed[chunkOf(number)] === undefined) load(chunkOf(number));  // a plain chunk is read here and now
    if (parsed[chunkOf(number)] !== undefined) {
      fill(node, entryOf(number));
    } else {
      settle(1);
      load(chunkOf(number)).then(() => { fill(node, entryOf(number)); settle(-1); });
    }
    return node;
  }
  function fill(node, entry) {
    if (typeof entry === "string") {
      node.textContent = entry;
      return;
    }
    for (let i = 0; i < entry.length; i++) {
      const piece = entry[i];
      if (typeof piece === "string") {
        node.appendChild(document.createTextNode(piece));
      } else if (piece === -1) {
        node.appendChild(el("span", "ar-more", entry[++i]));
      } else {
        const code = "U+" + piece.toString(16).toUpperCase().padStart(4, "0");
        const marker = el("span", "ar-ctl", "[" + code + "]");
        marker.title = code + ": " + first.mark_title;
        node.appendChild(marker);
      }
    }
  }
  function plain(number) {
    const entry = entryOf(number);
    if (typeof entry === "string") return entry;
    return entry.filter((piece) => typeof piece === "string").join("");
  }
  function n(value) { return value === null || value === undefined ? "" : value.toLocaleString("en-US"); }
  // the round number (1, 2, 2.5 or 5 times a power of ten, a whole number) that parts `span` into about `parts`
  function roundStep(span, parts) {
    const rough = Math.max(span / parts, 1), power = 10 ** Math.floor(Math.log10(rough)), times = rough / power;
    return (times <= 1 ? 1 : times <= 2 ? 2 : times <= 2.5 && power >= 10 ? 2.5 : times <= 5 ? 5 : 10) * power;
  }
  // a count and its noun, the noun in the plural unless the count is one (as agentrender._words.plural)
  function plural(count, noun, nouns) { return n(count) + " " + (count === 1 ? noun : nouns || noun + "s"); }
  function facts(parent, items) {
    const bar = el("div", "ar-header");
    for (const item of items) bar.appendChild(item);
    if (parent !== null) parent.appendChild(bar);
    return bar;
  }
  function fact(label, value, title) {
    const span = el("span");
    if (label) { span.appendChild(el("b", "", label)); span.appendChild(document.createTextNode(" ")); }
    if (typeof value === "string") span.appendChild(document.createTextNode(value)); else span.appendChild(value);
    if (title) span.title = title;
    return span;
  }
  // rows of [name, value] texts: a run's facts, a decision's fields
  function rowsTable(rows) {
    const grid = el("table");
    for (const [name, value] of rows) {
      const tr = el("tr");
      tr.appendChild(text(name, "th"));
      const td = el("td");
      td.appendChild(text(value, "pre"));
      tr.appendChild(td);
      grid.appendChild(tr);
    }
    return grid;
  }

  // a button whose words are a glyph (◀) is named in words too, for a screen reader and as its tooltip
  function button(words, onClick, className, name) {
    const node = el("button", className || "ar-page-button", words);
    node.type = "button";
    if (name) { node.setAttribute("aria-label", name); node.title = name; }
    node.addEventListener("click", onClick);
    return node;
  }

  function lowerBound(values, wanted) {
    let lo = 0, hi = values.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[mid] < wanted) lo = mid + 1; else hi = mid;
    }
    return lo;
  }
  function numbersIn(value) { return Array.isArray(value) ? value.flatMap(numbersIn) : [value]; }

  // ---- one run of the page: its title, facts, tabs and their panels, drawn into box ----
  // number: its place among the page's runs (the first is 0), startStop: the view it opens at, startTab: the tab it
  // opens on when it has that tab (the reader's, kept across runs), else the conversation. What the page around it
  // calls: key (a key pressed), moveTo (a step the address names), tab (the tab shown) and number.
  function explorer(data, number, box, startStop, startTab) {
    function partsOf(prefix, from, to) {
      const ids = [];
      for (let k = Math.floor(from / data.part_steps); k <= Math.floor(to / data.part_steps); k++) ids.push(prefix + k);
      return ids;
    }
    function modeParts(from, to) { return partsOf(data.ids + "m" + state.mode + "-", from, to); }
    function everyPart(prefix) { return partsOf(prefix, 0, data.steps); }
    // stop (or step, or row) j of a series of parts: [its part, where in it]
    function stopIn(j) { return [part(data.ids + "m" + state.mode + "-" + Math.floor(j / data.part_steps)), j % data.part_steps]; }
    function rowIn(j) { return [part(data.ids + "r" + Math.floor(j / data.part_steps)), j % data.part_steps]; }

    // follow: the decide tab shows the reply that decided the step in view (until its own slider or buttons move it)
    const state = { mode: 0, stop: startStop, shown: data.shown_steps, tab: "conversation", page: 0, reply: 0, rows: null,
      follow: true };


    // ---- the frame: title, run facts, mode toggle, tabs ----
    box.appendChild(text(data.title, "h1"));
    // a sub-agent's run: the run and the step that started it, and a way back to that step when it is on the page
    if (data.parent) box.appendChild(runLink(data.parent[2], data.parent[0], data.parent[1], "◂ back to step " + data.parent[1]));
    const about = el("details");
    const aboutSummary = el("summary", "", "the run \u00b7 ");
    aboutSummary.appendChild(text(data.ended[0], "span"));  // how it ended, seen with the facts folded
    about.appendChild(aboutSummary);
    about.appendChild(rowsTable(data.header));
    about.open = data.ended[1] === 1;  // a run that failed shows its facts, its error among them
    box.appendChild(about);

    const modeBar = el("div", "ar-bar");
    const modeBox = el("input");
    modeBox.type = "checkbox";
    modeBox.id = "ar-as-sent";
    modeBox.checked = true;
    // the box inside its label: in a narrow window the words wrap beside it, where a box of its own was left alone on
    // a line above them
    const modeLabel = el("label");
    modeLabel.appendChild(modeBox);
    modeLabel.appendChild(document.createTextNode(" as sent (uncheck: the same history under the contract's window and cap)"));
    modeBar.appendChild(modeLabel);
    if (data.modes.length > 1) box.appendChild(modeBar);
    modeBox.addEventListener("change", () => { state.mode = modeBox.checked ? 0 : 1; state.rows = null; draw(); });

    const tabs = el("div", "ar-tabs");
    tabs.setAttribute("role", "tablist");
    box.appendChild(tabs);
    const panels = {};
    const names = ["conversation", "steps", "decide", "size"];
    if (data.warnings.length) names.push("warnings");
    if (names.includes(startTab)) state.tab = startTab;
    for (const name of names) {
      const label = name === "warnings" ? "warnings (" + data.warnings.length + ")" : name;
      const tab = button(label, () => { state.tab = name; draw(); }, "");
      tab.setAttribute("role", "tab");
      tab.dataset.tab = name;
      tabs.appendChild(tab);
      panels[name] = el("div", "ar-panel");
      panels[name].dataset.panel = name;
      box.appendChild(panels[name]);
    }

    // ---- the conversation: a step slider, the view at that step as chat turns ----
    const conv = panels.conversation;
    const bar = el("div", "ar-bar");
    const previous = button("◀", () => move(-1), "", "previous step");
    const slider = el("input");
    slider.type = "range";
    slider.min = "0";
    slider.setAttribute("aria-label", "step");
    const next = button("▶", () => move(1), "", "next step");
    const where = el("span", "ar-where");
    const shownBox = el("input");
    shownBox.type = "number";
    shownBox.min = "1";
    shownBox.value = String(state.shown);
    shownBox.title = "how many of the view's last steps are shown";
    for (const node of [previous, slider, next, where]) bar.appendChild(node);
    const shownLabel = el("label", "", "steps shown ");
    shownLabel.appendChild(shownBox);
    bar.appendChild(shownLabel);
    conv.appendChild(bar);
    const viewBox = el("div", "ar-view");
    conv.appendChild(viewBox);
    slider.addEventListener("input", () => go(Number(slider.value)));
    shownBox.addEventListener("change", () => { state.shown = Math.max(1, Number(shownBox.value) || 1); drawView(); });
    function key(event) {
      // a focused slider moves itself; a box or a list keeps its own keys
      if (state.tab !== "conversation" || ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
      if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
        event.preventDefault();
        move(event.key === "ArrowLeft" ? -1 : 1);
      }
    }

    function mode() { return data.modes[state.mode]; }
    const marks = data.modes.map((m) => new Map(m.marks));  // each mode's compactions rendered across, by step
    const wheres = data.modes.map((m) => new Map(m.where));  // each mode's views headed otherwise than by their step
    function move(by) { go(state.stop + by); }
    // the runs each step started (sub-agents, the agent that wrote a compaction), by step: [run, words] each
    const started = new Map();
    for (const [step, run, words] of data.started) {
      if (!started.has(step)) started.set(step, []);
      started.get(step).push([run, words]);
    }
    function startedLinks(step) {
      return (started.get(step) || []).map(([run, words]) => runLink(words, run, null, "open that run ▸"));
    }
    function go(stop) {
      state.stop = Math.max(0, Math.min(data.steps, stop));
      state.follow = true;  // the decide tab shows the reply of the step now in view
      slider.value = String(state.stop);
      drawView(true);
    }

    // the legend of the view on screen, as a notebook's view has it (views.legend_of): the kinds of the blocks it
    // draws, by number (Python numbered them in legend_kinds's order), and the marks they carry: a failed result, a
    // skipped step, what the model did not see. Drawn is what layView drew: { kinds, failed, skipped, hidden }
    function legend(drawn) {
      const box = el("div", "ar-legend");
      [...drawn.kinds].sort((a, b) => a - b).forEach((kind) => {
        const [label, meaning] = data.kinds[kind];
        const swatch = el("span", "ar-block ar-" + kindName(kind), plain(label));
        swatch.title = plain(meaning);
        box.appendChild(swatch);
      });
      ["failed", "skipped", "hidden"].filter((name) => drawn[name]).forEach((name) => {
        const [said, meaning] = data.marks[name];
        const mark = name === "failed" ? el("span", "ar-block ar-result ar-failed") : el("span", "ar-" + name);
        if (name === "failed") mark.appendChild(el("span", "ar-fail", said)); else mark.textContent = said;
        mark.title = meaning;
        box.appendChild(mark);
      });
      return box;
    }
    let drawing = null;  // what the view being laid out has drawn so far: its legend's
    // the turns of the view on screen, by what they show (the mode, the step or opening, its form): the next view
    // lays out again only the turns it does not share with this one (a move shares all but a step or two), and a
    // turn it keeps stays as the reader left it (a folded part opened)
    let turnsShown = new Map(), turnsKept = null, laid = null;
    function put(node) { laid.push(node); return node; }
    function reused(key, make) {
      let made = turnsShown.get(key);
      if (made === undefined) {
        const outer = drawing;
        drawing = { kinds: new Set(), failed: false, skipped: false, hidden: false };
        made = { nodes: make(), drawn: drawing };
        drawing = outer;
      }
      turnsKept.set(key, made);
      for (const kind of made.drawn.kinds) drawing.kinds.add(kind);
      for (const mark of ["failed", "skipped", "hidden"]) drawing[mark] = drawing[mark] || made.drawn[mark];
      for (const node of made.nodes) put(node);
    }
    const KIND_NAMES = [];
    function kindName(kind) { return KIND_NAMES[kind]; }

    function block(row, step) {
      const [kind, body, name, id, type, flags, hiddenLabel, hidden, notes, answers, wire] = row;
      if (drawing !== null) {
        drawing.kinds.add(kind);
        drawing.failed = drawing.failed || (flags & 1) !== 0;
        drawing.hidden = drawing.hidden || (flags & 4) !== 0;
      }
      const div = el("div", "ar-block ar-" + kindName(kind) + (flags & 1 ? " ar-failed" : ""));
      div.appendChild(el("span", "ar-tag", plain(data.kinds[kind][0])));
      if (flags & 1) div.appendChild(el("span", "ar-tag ar-fail", "failed"));
      if (flags & 2) div.appendChild(el("span", "ar-tag", "summary cut at cap"));
      if (type) div.appendChild(text(type, "span", "ar-tag"));
      if (name) div.appendChild(text(name, "b"));
      if (answers) div.appendChild(text(answers, "span"));
      if (id) { div.appendChild(document.createTextNode(" ")); div.appendChild(text(id, "code")); }
      if (notes) { div.appendChild(document.createTextNode(" ")); div.appendChild(text(notes, "span", "ar-muted")); }
      div.appendChild(text(body || 0, "pre"));
      if (wire) {
        const details = el("details", "ar-wire");
        details.appendChild(el("summary", "", data.wire_said));
        details.appendChild(text(wire, "pre"));
        div.appendChild(details);
      }
      if (hiddenLabel) {
        const details = el("details", "ar-hidden");
        details.appendChild(text(hiddenLabel, "summary"));
        details.appendChild(text(hidden || 0, "pre"));
        div.appendChild(details);
      }
      return div;
    }

    function turn(role, label, rows) {
      const div = el("div", "ar-turn ar-" + role);
      div.appendChild(el("div", "ar-role", label));
      for (const row of rows) div.appendChild(block(row));
      return div;
    }

    function viewHeader(m, stop, at, lastStop) {
      const [here, i] = stopIn(stop), s = here.sizes;
      const items = [
        fact("view", wheres[state.mode].get(stop) || (lastStop ? "after the last step" : "deciding step " + at)),
        fact("", plural(s.messages[i], "message")),
        fact("", n(s.bytes[i]) + " bytes"),
        fact("", "~" + n(s.tokens[i]) + " tokens", "bytes / 4, a scale, not a count"),
        fact("", n(s.bytes_no_window[i]) + " bytes without the window"),
      ];
      if (m.describe) items.push(fact("", text(m.describe, "b")));
      if (here.keys) {
        const [key, agree] = here.keys[i];
        items.push(fact("replay key", el("span", "ar-key", key.slice(0, 16) + "…"), key));
        if (agree) {
          items.push(el("span", agree > 0 ? "ar-agree" : "ar-disagree",
            (agree > 0 ? "matches" : "differs from") + " the recorded request key"));
        }
      }
      items.push(text(here.change[i], "span", "ar-change"));  // what changed, in Python's words (Change.describe)
      // a fact of the sizes series this page does not know by name still shows where it has a value
      for (const column of Object.keys(s)) {
        if (KNOWN_SIZES.has(column) || s[column][i] === null || s[column][i] === undefined) continue;
        items.push(fact(column.replace(/_/g, " "), String(s[column][i])));
      }
      return items;
    }
    const KNOWN_SIZES = new Set(["at", "messages", "bytes", "tokens", "bytes_no_window", "prefix_bytes", "resent_bytes",
      "first_diff", "left_window", "compaction"]);

    function atStop(j) { const [here, i] = stopIn(j); return here.at[i]; }

    // the view at the current stop, once the parts it shows are read; moved (by the reader), it says so in the address
    function drawView(moved) {
      drawStarted = performance.now();
      const token = ++drawn, stop = state.stop, first = Math.max(0, stop - state.shown);
      whenReady(modeParts(first, stop), () => {
        if (token !== drawn) return;  // the reader has moved on since
        layView(stop, first);
        if (moved) write(address(number, atStop(stop)), false);  // within a run: the history's entry, in place
      });
      markChart();
      settle(0);
    }

    function layView(stop, first) {
      const m = mode();
      const lastStop = stop === data.steps;
      const [here, i] = stopIn(stop), at = here.at[i];
      // beside a prefill no model decided, Python's words; else the step the model decided from this view
      where.textContent = wheres[state.mode].get(stop)
        || "deciding step " + at + (lastStop ? " (after the last recorded step)" : "");
      laid = [];
      put(facts(null, viewHeader(m, stop, at, lastStop)));
      if (!lastStop) for (const link of startedLinks(at)) put(link);  // what this step's reply started
      const legendAt = put(el("div"));  // the legend of what follows, once it is drawn
      drawing = { kinds: new Set(), failed: false, skipped: false, hidden: false };
      turnsKept = new Map();
      const rendered = here.rendered[i], fullFrom = here.full_from[i], start = here.start[i], ended = here.ended[i];
      // the compaction right before this view, or the one it restarts from (its opening is then the summary)
      if (here.compacted[i]) put(text(here.compacted[i], "div", "ar-compacted"));
      const opening = here.opening[i];
      reused(state.mode + " opening " + opening,
        () => [turn("user", "user · opening · " + n(m.opening_bytes[opening]) + " bytes", m.openings[opening])]);
      // stop j is the view before the j-th step of the run: the steps before it, the last few shown; the steps before
      // the compaction the view restarts from (its first_step) are not in it
      const firstStep = here.first_step[i];
      if (first > firstStep) {
        const firstPosition = stepIn(first)[0][0];
        put(el("div", "ar-elided", "… " + plural(first - firstStep, "earlier step") + " (" +
          plural(Math.max(0, firstPosition - start) * 2, "message") + ") not shown here; raise \"steps shown\" to see them"));
      }
      for (let number = Math.max(first, firstStep); number < stop; number++) {
        const [step, index] = stepIn(number);
        const p = step[0];
        if (step.length === 2) {  // a skipped step: [position, why]
          reused(state.mode + " skipped " + number, () => {
            drawing.skipped = true;
            return [text(step[1], "div", "ar-skipped")];
          });
          continue;
        }
        if (p < start) continue;
        // a compaction the view renders across (under the contract's options), where a step comes before it
        if (p > start && marks[state.mode].has(index)) {
          put(text(marks[state.mode].get(index), "div", "ar-compacted"));
        }
        const [, assistant, full, summary, [assistantBytes, fullBytes, summaryBytes]] = step;
        const last = ended && p === rendered - 1;  // the turn the conversation ended on: a reply, or the caller's prefill
        const inFull = p >= fullFrom;
        reused(state.mode + " step " + number + (last ? " ended " + ended : inFull ? " full" : " summary"), () => {
          const said = last && ended === 2 ? " · " + plain(data.prefill_said) : "";
          const nodes = [turn("assistant", "assistant · step " + index + said + " · " + n(assistantBytes) + " bytes", assistant),
            ...startedLinks(index)];
          if (last) {
            nodes.push(text(data.ended_said[ended - 1], "div", "ar-elided"));  // after a reply, or a prefill
          } else {
            nodes.push(turn("user", "user · step " + index + (inFull ? " · in the window" : " · outside the window") +
              " · " + n(inFull ? fullBytes : summaryBytes) + " bytes", inFull ? full : (summary || full)));
          }
          return nodes;
        });
      }
      const prefilled = here.prefilled && here.prefilled[i];  // the request ended with the caller's prefill: [blocks, bytes]
      if (prefilled) {
        put(turn("assistant", "assistant · step " + at + " · " + plain(data.prefill_said) + " · " +
          n(prefilled[1]) + " bytes", prefilled[0]));
        put(text(data.prefilled_said, "div", "ar-elided"));
      }
      if (stop === 0) put(el("div", "ar-elided", "no steps yet: the model saw only the opening"));
      laid[laid.indexOf(legendAt)] = legend(drawing);
      drawing = null;
      turnsShown = turnsKept;
      // what is on screen becomes what was laid: the nodes it keeps stay where they are, the others go, the new ones
      // come in between (a node moved or put back is laid out again: a move shares all but a step or two)
      const keep = new Set(laid);
      for (const node of [...viewBox.children]) if (!keep.has(node)) node.remove();
      let onScreen = viewBox.firstElementChild;
      for (const node of laid) {
        if (node === onScreen) onScreen = onScreen.nextElementSibling;
        else viewBox.insertBefore(node, onScreen);
      }
      laid = null;
    }
    // step j of the run in the current mode, and the index the run gave it
    function stepIn(j) { const [here, i] = stopIn(j); return [here.steps[i], here.at[i]]; }


    // ---- the steps table: paged, filtered by tool, status and kind; the view's step highlighted ----
    const stepsPanel = panels.steps;
    const filterBar = el("div", "ar-bar");
    const filters = {};
    for (const column of ["tool", "status", "kind"]) {
      const select = el("select");
      select.setAttribute("aria-label", column);
      select.appendChild(el("option", "", "(all)")).value = "";
      select.addEventListener("change", () => { state.rows = null; state.page = 0; drawTable(); });
      filters[column] = select;
      const label = el("label", "", column + " ");
      label.appendChild(select);
      filterBar.appendChild(label);
    }
    const countLabel = el("span", "ar-muted");
    filterBar.appendChild(countLabel);
    stepsPanel.appendChild(filterBar);
    const pageBar = el("div", "ar-bar");
    const pageLabel = el("span");
    const pageButtons = [
      button("« first", () => turnPage(0)),
      button("◀ previous page", () => turnPage(state.page - 1)),
      button("next page ▶", () => turnPage(state.page + 1)),
      button("last »", () => turnPage(Infinity)),
    ];
    for (const node of [...pageButtons, pageLabel]) pageBar.appendChild(node);
    stepsPanel.appendChild(pageBar);
    const tableBox = el("div");
    stepsPanel.appendChild(tableBox);
    // each column's cell of a row; which columns, in what order, under what header: the payload's columns. A value the
    // step has none of (a filter's "(none)": a skipped step's kind, tool and status, no tool called, no result) is said
    // data.no_value, and so is no summary (every step of an imported history), where it read as a 0-byte summary
    const CELLS = {
      index: (table, i) => n(table.index[i]),
      kind: (table, i) => data.filters.kind[table.kind[i]] || data.no_value,
      tool: (table, i) => table.tools_said[i] || data.filters.tool[table.tool[i]] || data.no_value,
      status: (table, i) => data.filters.status[table.status[i]] || data.no_value,
      // what the model saw: a kind's number plus one, else the negative of its words' number in saw_said
      shown_as: (table, i, here, j) => {
        const saw = here.saw[j];
        return saw > 0 ? data.kinds[saw - 1][0] : data.saw_said[-saw];
      },
      content_bytes: (table, i) => table.content_bytes[i] === null ? data.no_value : n(table.content_bytes[i]),
      summary_bytes: (table, i) => table.summary_bytes[i] ? n(table.summary_bytes[i]) : data.no_value,
      reason: (table, i) => table.reason[i],
    };
    // a cell's class: what the model saw has its kind's colour, as a block of that kind has in the conversation, and a
    // step no view holds the colour the conversation marks it with
    const CELL_CLASSES = {
      shown_as: (table, i, here, j) => {
        const saw = here.saw[j];
        return saw > 0 ? "ar-" + kindName(saw - 1) : saw === 0 ? "ar-skipped" : "";
      },
      reason: () => "ar-cell-reason",
    };

    // each filter's values, as Python sorted them; a row holds the number of its value
    function fillFilters() {
      for (const [column, select] of Object.entries(filters)) {
        data.filters[column].forEach((value, code) => {
          const option = el("option", "", value ? plain(value) : "(none)");
          option.value = String(code);
          select.appendChild(option);
        });
      }
    }

    // the rows the filters keep (every row of every part read, once a filter is set)
    function keptRows() {
      if (state.rows !== null) return state.rows;
      const wanted = Object.entries(filters).filter(([, select]) => select.value !== "")
        .map(([column, select]) => [column, Number(select.value)]);
      const rows = [];
      for (let row = 0; row < data.steps; row++) {
        if (wanted.length === 0) { rows.push(row); continue; }
        const [here, i] = rowIn(row);
        // a reply of parallel tool uses is kept for any tool it called, as steps --tool keeps it
        const holds = (column, value) => here[column][i] === value ||
          (column === "tool" && Array.isArray(here.other_tools[i]) && here.other_tools[i].includes(value));
        if (wanted.every(([column, value]) => holds(column, value))) rows.push(row);
      }
      state.rows = rows;
      return rows;
    }
    function filtered() { return Object.values(filters).some((select) => select.value !== ""); }
    function pages() { return Math.max(1, Math.ceil(keptRows().length / PAGE_ROWS)); }
    function turnPage(page) { state.page = Math.max(0, Math.min(pages() - 1, page)); drawTable(false); }

    let tableToken = 0;
    function drawTable(follow) {
      const token = ++tableToken;
      whenReady(state.rows === null && filtered() ? everyPart(data.ids + "r") : [], () => {
        if (token !== tableToken) return;
        const rows = keptRows();
        const current = state.stop < data.steps ? state.stop : -1;
        if (follow !== false && current >= 0) state.page = Math.min(pages() - 1, Math.floor(lowerBound(rows, current) / PAGE_ROWS));
        state.page = Math.min(state.page, pages() - 1);
        const from = state.page * PAGE_ROWS;
        const shown = rows.slice(from, from + PAGE_ROWS);
        const needed = shown.length ? [...partsOf(data.ids + "r", shown[0], shown[shown.length - 1]),
          ...shown.flatMap((row) => modeParts(row, row))] : [];
        whenReady([...new Set(needed)], () => { if (token === tableToken) layTable(rows, from, shown, current); });
      });
    }

    function layTable(rows, from, shown, current) {
      countLabel.textContent = n(rows.length) + " of " + plural(data.steps, "step") +
        (data.inherited ? " \u00b7 " + plain(data.inherited[1]) : "");
      pageLabel.textContent = rows.length ? "rows " + n(from + 1) + "-" + n(from + shown.length) + " of " + n(rows.length) : "no rows";
      pageButtons[0].disabled = pageButtons[1].disabled = state.page === 0;
      pageButtons[2].disabled = pageButtons[3].disabled = state.page === pages() - 1;
      const grid = el("table");
      const head = el("tr");
      for (const [, header] of data.columns) head.appendChild(el("th", "", header));
      grid.appendChild(el("thead")).appendChild(head);
      const body = grid.appendChild(el("tbody"));
      for (const row of shown) {
        const inherited = data.inherited !== null && row < data.inherited[0];
        const tr = el("tr", "ar-row" + (row === current ? " ar-current" : "") + (inherited ? " ar-inherited" : ""));
        tr.dataset.row = String(row);
        if (inherited) tr.title = "the session's step: this agent was sent it, and did not decide it";
        const [table, i] = rowIn(row), [here, j] = stopIn(row);
        for (const [column] of data.columns) {
          const cell = CELLS[column](table, i, here, j);
          const kind = CELL_CLASSES[column] ? CELL_CLASSES[column](table, i, here, j) : "";
          tr.appendChild(typeof cell === "number" ? text(cell, "td", kind) : el("td", kind, cell));
        }
        // a row opens its step by the keyboard too: it takes the focus (Tab) and opens on Enter or Space
        const open = () => { state.tab = "conversation"; go(row); draw(); };
        tr.tabIndex = 0;
        tr.addEventListener("click", open);
        tr.addEventListener("keydown", (event) => {
          if (event.key === "Enter" || event.key === " ") { event.preventDefault(); open(); }
        });
        body.appendChild(tr);
      }
      tableBox.replaceChildren(grid);
    }

    // ---- decide: each captured reply, the decision render.decide makes of it, and why ----
    const decidePanel = panels.decide;
    const replyBar = el("div", "ar-bar");
    const replyLabel = el("span", "ar-reply-said");  // which call it is, and which step it decided (Python's words)
    const followed = el("span", "ar-follow");  // the step in view, and whether the reply shown decided it
    // a slider over the replies, as the notebook's DecideStepper has: the buttons alone took a click a reply to reach
    // the reply of a step deep in a long run
    const replySlider = el("input");
    replySlider.type = "range";
    replySlider.min = "0";
    replySlider.max = String(Math.max(0, (data.replies || 0) - 1));
    replySlider.value = "0";
    replySlider.setAttribute("aria-label", "reply");
    replySlider.addEventListener("input", () => showReply(Number(replySlider.value)));
    replyBar.appendChild(button("◀", () => showReply(state.reply - 1), "", "previous reply"));
    if (data.replies > 1) replyBar.appendChild(replySlider);
    replyBar.appendChild(button("▶", () => showReply(state.reply + 1), "", "next reply"));
    replyBar.appendChild(replyLabel);
    replyBar.appendChild(followed);
    decidePanel.appendChild(replyBar);
    const replyBox = el("div");
    decidePanel.appendChild(replyBox);

    let replies = null;  // read when the decide tab is first opened
    const decidedBy = new Map();  // each step's reply that decided it (Python compared it: its differ is not 0)

    // number: the reply to show, moved to on the tab; null: the reply that decided the step in view, while the tab
    // follows the step (it does again once the step moves), else the reply it showed
    function showReply(number) {
      if (!data.replies) { replyLabel.textContent = "no model replies to step through"; return; }
      whenReady([data.ids + "replies"], () => {
        if (replies === null) {
          replies = JSON.parse(element(data.ids + "replies").textContent);
          replies.forEach((reply, at) => { if (reply[6] !== 0) decidedBy.set(reply[0], at); });
        }
        const inView = state.stop < data.steps ? atStop(state.stop) : null;
        const decided = inView === null ? undefined : decidedBy.get(inView);
        if (number !== null) state.follow = false;
        else number = state.follow && decided !== undefined ? decided : state.reply;
        state.reply = Math.max(0, Math.min(data.replies - 1, number));
        replySlider.value = String(state.reply);
        followed.replaceChildren();
        if (inView !== null && decided === state.reply) {
          followed.textContent = "· the step in view";
        } else if (inView !== null && decided === undefined) {
          followed.textContent = "· no captured reply decided step " + inView + ", the step in view";
        } else if (inView !== null) {
          followed.appendChild(button("show the reply that decided step " + inView + ", the step in view",
            () => { state.follow = true; showReply(null); }));
        }
        const reply = replies[state.reply];
        loaded(numbersIn(reply.slice(1))).then(() => drawReply(reply));
      });
    }

    function drawReply(reply) {
      const [step, stopReason, rule, blocks, why, decision, differ, recorded, said, compared] = reply;
      replyBox.replaceChildren();
      replyLabel.replaceChildren(document.createTextNode("call " + (state.reply + 1) + " of " + n(data.replies) + ": "),
        text(said));
      facts(replyBox, [fact("stop reason", text(stopReason)), fact("rule", text(rule)),
        fact("", n(blocks.filter((b) => plain(b[0]) === "tool_use").length) + " tool use(s)")]);
      const turnOf = el("div", "ar-turn ar-assistant");
      turnOf.appendChild(el("div", "ar-role", "the reply"));
      for (const [type, body, name] of blocks) {
        const kind = plain(type);
        const div = el(kind === "thinking" ? "details" : "div", "ar-block " + (kind === "tool_use" ? "ar-tool_use" : "ar-reason"));
        div.appendChild(text(type, kind === "thinking" ? "summary" : "span", "ar-tag"));
        if (name) div.appendChild(text(name, "b"));
        if (body) div.appendChild(text(body, "pre"));
        turnOf.appendChild(div);
      }
      replyBox.appendChild(turnOf);
      if (differ !== 0) for (const link of startedLinks(step)) replyBox.appendChild(link);  // what the step started
      replyBox.appendChild(el("div")).appendChild(el("b", "", "render.decide"));
      replyBox.appendChild(rowsTable(decision));
      const list = el("ul", "ar-why");
      for (const line of why) list.appendChild(text(line, "li"));
      replyBox.appendChild(list);
      if (differ === 0) {
        replyBox.appendChild(el("div", "ar-muted", "an earlier reply captured for this step (a retry, or a call beside the conversation): not compared with the recorded decision"));
      } else {  // held against the recorded decision, in Python's words: whether it agrees, then why a prefill explains it
        const [verdict, prefilled] = compared;
        replyBox.appendChild(text(verdict, "div", differ.length ? "ar-disagree" : "ar-agree"));
        if (prefilled) replyBox.appendChild(text(prefilled, "div", "ar-muted"));
        if (differ.length && recorded !== 1) {
          replyBox.appendChild(el("div")).appendChild(el("b", "", "recorded"));
          replyBox.appendChild(rowsTable(recorded));
        }
      }
    }

    // ---- size: the view's bytes at every step, with and without the window, where the prefix breaks ----
    const chartBox = el("div", "ar-chart");
    panels.size.appendChild(chartBox);
    const SVG = "http://www.w3.org/2000/svg";
    let chart = null;
    function svg(tag, attributes) {
      const node = document.createElementNS(SVG, tag);
      for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
      return node;
    }
    // the sizes of every view of the mode, a column each, from every part
    function series() {
      const s = { marked: [] };
      for (const id of everyPart(data.ids + "m" + state.mode + "-")) {
        for (const [column, values] of Object.entries(part(id).sizes)) {
          const whole = s[column] || (s[column] = []);
          for (const value of values) whole.push(value);
        }
        for (const value of part(id).marked) s.marked.push(value);
      }
      return s;
    }
    function drawChart() {
      const s = series(), count = s.bytes.length;
      // drawn at the width it is shown at, so its words keep their size (a 900-wide picture scaled to a phone's
      // window shrank them to 5 pixels)
      const width = Math.max(300, Math.round(chartBox.clientWidth) || 900), height = 320, left = 70, bottom = 30, top = 10;
      const most = s.bytes_no_window.reduce((a, b) => Math.max(a, b), 1);
      const x = (i) => left + (count > 1 ? i / (count - 1) : 0) * (width - left - 10);
      const y = (v) => top + (1 - v / most) * (height - top - bottom);
      const every = Math.max(1, Math.floor(count / 2000));  // at most about 2,000 points a line
      const line = (values) => {
        const points = [];
        for (let i = 0; i < count; i += every) points.push(x(i).toFixed(1) + "," + y(values[i]).toFixed(1));
        points.push(x(count - 1).toFixed(1) + "," + y(values[count - 1]).toFixed(1));
        return points.join(" ");
      };
      const picture = svg("svg", { viewBox: "0 0 " + width + " " + height, role: "img" });
      const words = (at, down, label, anchor) => {
        const node = svg("text", { x: at, y: down, "text-anchor": anchor });
        node.textContent = label;
        picture.appendChild(node);
        return node;
      };
      // ticks at round numbers, as the notebook's chart has them: bytes up the side (a faint line across at each),
      // the views' steps along the bottom (the views are evenly spaced, so a tick names the step of its view)
      for (let v = 0, every = roundStep(most, 4); v <= most; v += every) {
        picture.appendChild(svg("line", { x1: left, y1: y(v), x2: width - 10, y2: y(v), class: "ar-grid" }));
        words(left - 6, y(v) + 4, n(v), "end");
      }
      words(left + 6, top + 12, "bytes", "start");
      for (let i = 0, every = Math.max(1, roundStep(count - 1, 6)); i < count; i += every) {
        picture.appendChild(svg("line", { x1: x(i), y1: y(0), x2: x(i), y2: y(0) + 4, class: "ar-tick" }));
        // the first tick's words start at it, and those of a tick at the right end end there: centred, they were cut
        words(x(i), y(0) + 16, n(s.at[i]), i === 0 ? "start" : x(i) > width - 40 ? "end" : "middle");
      }
      words(width - 10, height - 2, "step", "end");
      picture.appendChild(svg("line", { x1: left, y1: y(0), x2: width - 10, y2: y(0), class: "ar-axis" }));
      picture.appendChild(svg("line", { x1: left, y1: top, x2: left, y2: y(0), class: "ar-axis" }));
      picture.appendChild(svg("polyline", { points: line(s.bytes_no_window), class: "ar-line-full" }));
      picture.appendChild(svg("polyline", { points: line(s.bytes), class: "ar-line-window" }));
      // a compaction: a dashed line and a diamond; the breaks of the prefix Python marks (a result left the window,
      // SizeSeries.marked_breaks, as the notebook's chart marks them): a triangle pointing down, as the notebook's
      for (let i = 0; i < count; i++) {
        if (s.compaction[i] === null) continue;
        const at = x(i).toFixed(1), down = y(s.bytes[i]);
        picture.appendChild(svg("line", { x1: at, y1: top, x2: at, y2: y(0), class: "ar-compaction" }));
        picture.appendChild(svg("rect", { x: x(i) - 4, y: down - 4, width: 8, height: 8, class: "ar-compaction",
          transform: "rotate(45 " + at + " " + down.toFixed(1) + ")" }));
      }
      for (const i of s.marked) {
        picture.appendChild(svg("path", { d: "M-3.5-3h7l-3.5 6z", class: "ar-break",
          transform: "translate(" + x(i).toFixed(2) + " " + y(s.bytes[i]).toFixed(2) + ")" }));
      }
      // the view in view: a line across the chart, named at its top by the step it decides (as the slider says it)
      const now = svg("line", { x1: 0, y1: top, x2: 0, y2: y(0), class: "ar-now" });
      picture.appendChild(now);
      const nowWords = words(0, top + 12, "", "start");
      nowWords.setAttribute("class", "ar-now");
      // the legend is Python's words (the notebook's chart shows the same), each in its mark's colour
      const caption = el("div", "ar-legend ar-chart-legend");
      for (const [mark, words] of mode().legend) caption.appendChild(el("span", "ar-swatch-" + mark, words));
      // the totals under it are Python's too (the notebook's size tab says the same), bold where Python says
      const totals = mode().totals.map((parts) => {
        const span = el("span");
        for (const [words, bold] of parts) span.appendChild(bold ? el("b", "", words) : document.createTextNode(words));
        return span;
      });
      chartBox.replaceChildren(caption, picture);
      facts(chartBox, totals);
      chart = { mode: state.mode, now: now, nowWords: nowWords, x: x, right: width - 10, at: s.at };
      markChart();
    }
    function markChart() {
      if (chart === null || chart.mode !== state.mode) return;
      const at = chart.x(state.stop), x = at.toFixed(1);
      chart.now.setAttribute("x1", x);
      chart.now.setAttribute("x2", x);
      // its words on the side of the line with room for them
      const before = at > (chart.right + chart.x(0)) / 2;
      chart.nowWords.textContent = "step " + n(chart.at[state.stop]);
      chart.nowWords.setAttribute("x", (before ? at - 4 : at + 4).toFixed(1));
      chart.nowWords.setAttribute("text-anchor", before ? "end" : "start");
    }

    // ---- warnings: what the run file held that was not loaded, or was loaded with a doubt ----
    if (panels.warnings) {
      const list = el("ul");
      for (const warning of data.warnings) list.appendChild(text(warning, "li"));
      panels.warnings.appendChild(list);
    }

    data.kinds.forEach((_, kind) => { KIND_NAMES[kind] = data.kind_names[kind]; });

    function draw() {
      for (const tab of tabs.children) tab.setAttribute("aria-selected", String(tab.dataset.tab === state.tab));
      for (const name of names) panels[name].classList.toggle("ar-hide", name !== state.tab);
      slider.max = String(data.steps);
      slider.value = String(state.stop);
      if (state.tab === "conversation") drawView();
      if (state.tab === "steps") drawTable();
      if (state.tab === "decide") showReply(null);
      if (state.tab === "size" && (chart === null || chart.mode !== state.mode)) {
        whenReady(everyPart(data.ids + "m" + state.mode + "-"), () => { if (state.tab === "size") drawChart(); });
      }
    }

    document.title = plain(data.title);
    fillFilters();
    draw();
    return { number: number, key: key, moveTo: (stop) => { state.stop = stop; state.follow = true; draw(); },
      tab: () => state.tab };
  }

  // ---- the page's runs: the first, then those linked to it (the sub-agents its steps started, the run that started
  // it), each read and drawn when shown; one is shown at a time, and the address names it (#run=N&step=K). Going to
  // another run (a link, the picker) is a new entry of the browser's history, so Back and Forward go from run to run;
  // a move within a run (the slider, the keys, a row of the table) rewrites the entry it is on, so Back does not
  // retrace every step of a long run, and returns to the step the reader left the run at ----
  const runData = [first];
  function runFacts(number) {
    if (runData[number] === undefined) runData[number] = JSON.parse(element("ar-s" + number + "-payload").textContent);
    return runData[number];
  }
  function address(number, step) { return (number ? "#run=" + number + "&" : "#") + "step=" + step; }
  // the run and step the address names, as written (not checked against the page's): #step=K (the first run), #run=N,
  // #run=N&step=K; an address naming none, the first run where it opens (step null); null for one the page does not
  // read (left to the browser)
  function named() {
    if (location.hash === "") return { run: 0, step: null, hash: "" };
    const found = /^#(?:run=(\d+)(?:&step=(\d+))?|step=(\d+))$/.exec(location.hash);
    if (!found) return null;
    const step = found[2] || found[3];
    return { run: found[1] === undefined ? 0 : Number(found[1]), step: step === undefined ? null : Number(step),
      hash: location.hash };
  }
  const OWN = "own";
  // the view of a run a step names: [the part to read, then () => [its stop, the step it decides, the run's last step
  // a view is taken at when `wanted` is past it, else null]]. The first stop at or after the step; past the run, the
  // view after its last step. `wanted` null: where the run opens (the step the first run was saved at, else after the
  // last step); OWN: the first step it decided itself (a forked agent's first steps are its session's)
  function stopOf(data, number, wanted) {
    if (wanted === null && number === 0 && data.at !== null) wanted = data.at;
    if (wanted === null || wanted === OWN) {
      const stop = wanted === null ? data.steps : Math.min(data.steps, data.inherited ? data.inherited[0] : 0);
      const id = data.ids + "m0-" + Math.floor(stop / data.part_steps);
      return [[id], () => [stop, part(id).at[stop % data.part_steps], null]];
    }
    const inPart = Math.max(0, lowerBound(data.firsts, wanted + 1) - 1), id = data.ids + "m0-" + inPart;
    return [[id], () => {
      const at = part(id).at, found = lowerBound(at, wanted);
      if (found === at.length && inPart === data.firsts.length - 1) return [data.steps, at[found - 1], at[found - 1]];
      const stop = Math.min(data.steps, inPart * data.part_steps + found);
      return [stop, found < at.length ? at[found] : data.firsts[inPart + 1], null];  // else the next part's first
    }];
  }
  // what the page says of an address naming a run or a step it does not hold, the nearest shown instead: the run's
  // steps in the words Views.at refuses such a step with (agentrender.views.view.checked_at)
  function outOfRange(asked, number, last, hash) {
    const wrong = [];
    if (asked.run !== number) {
      wrong.push("run " + asked.run + " is past the page's runs: it holds " +
        (number ? "runs 0 to " + number : "run 0 only"));
    }
    if (last !== null) {
      wrong.push("step " + asked.step + " is past " + (number ? "run " + number : "the run") + ": " + (last === 0
        ? "it holds no steps, so a view is taken at 0 only (its opening)"
        : "its steps end at " + (last - 1) + ", so a view is taken at 0 to " + last + " (" + last + ": after the last step)"));
    }
    return "The address named " + asked.hash + ": " + wrong.join("; ") + ". Shown instead, the nearest: " + hash + ".";
  }
  // a link to another run of the page (one a step started, the one that started this run): Python's words, and, when
  // that run is on the page, a button that shows it at `step` (null: at the first step that run decided) as a new
  // entry of the history
  function runLink(words, run, step, label) {
    const div = el("div", "ar-run-link");
    div.appendChild(text(words, "span"));
    if (run !== null) {
      div.appendChild(document.createTextNode(" "));
      div.appendChild(button(label, () => showRun(run, step === null ? OWN : step, true, null)));
    }
    return div;
  }
  let current = null;  // the run shown (explorer's)
  let showing = 0;  // the last run or step asked for: one the reader has left by the time it is read is not shown
  let shown = location.hash;  // the address of what is shown (a move within a run rewrites it; Back, Forward change it)
  const runBar = el("div", "ar-bar ar-runs");
  const picker = el("select");
  picker.setAttribute("aria-label", "run");
  picker.addEventListener("change", () => showRun(Number(picker.value), null, true, null));
  // each run's number beside its id, as the list of runs and agentrender runs number them (--run N)
  // what the page says of an address it did not hold, until the reader moves on
  const note = el("div", "ar-address-note");
  note.setAttribute("role", "status");
  function say(words) {
    if (words === null) { note.remove(); return; }
    note.textContent = words;
    root.insertBefore(note, runBar.isConnected ? runBar.nextSibling : root.firstChild);
  }
  // the address of what is shown: a new entry of the history (`across` runs), else the entry it is on, rewritten
  function write(hash, across) {
    say(null);
    shown = hash;
    if (hash === location.hash) return;
    if (across) history.pushState(null, "", hash); else history.replaceState(null, "", hash);
  }
  // show run `number` at the view `step` names (see stopOf), on the tab the reader is on when the run has it, once
  // its facts, the words it labels and sorts with and the part of that view are read. Then the address: a new entry
  // (`across`: a link, the picker), or, for a run and step the address named (`asked`: opening, Back, Forward, typed),
  // the nearest the page holds, said so and written in place of what it named
  function showRun(number, step, across, asked) {
    const token = ++showing;
    whenReady(number ? ["ar-s" + number + "-payload"] : [], () => {
      const data = runFacts(number);
      const labels = [data.title, ...numbersIn(data.kinds), ...Object.values(data.filters).flat(), ...data.saw_said,
        data.no_value, ...data.started.map((link) => link[2]), ...(data.parent ? [data.parent[2]] : [])];
      const wanted = stopOf(data, number, step);
      loaded(labels).then(() => whenReady(wanted[0], () => {
        if (token !== showing) return;  // the reader has gone elsewhere since
        const [stop, at, last] = wanted[1](), tab = current === null ? null : current.tab();
        if (current !== null) {  // another run: drawn anew, from its top
          root.replaceChildren(...(first.runs.length > 1 ? [runBar] : []));
          window.scrollTo(0, 0);
        }
        current = explorer(data, number, root, stop, tab);
        picker.value = String(number);
        markRun(number);
        root.dataset.run = String(number);
        if (refocus !== null) { refocus.focus(); refocus = null; }
        landed(asked, number, at, last, across);
        if (root.dataset.ready === undefined) {
          root.dataset.began = String(began);
          root.dataset.ready = String(performance.now());
        }
      }));
    });
  }
  function landed(asked, number, at, last, across) {
    const hash = address(number, at);
    if (across) write(hash, true);
    else if (asked !== null && (asked.run !== number || last !== null)) {
      write(hash, false);
      say(outOfRange(asked, number, last, hash));
    } else say(null);
  }
  // the address changed (Back, Forward, a link followed or an address typed): show what it names, the run it names
  // past the page's runs the last of them. Chromium says so twice (popstate, then hashchange): the second is what is
  // shown already
  function follow() {
    if (location.hash === shown) return;
    const asked = named();
    if (asked === null) return;
    shown = location.hash;
    const number = Math.min(asked.run, first.runs.length - 1);
    if (current === null || number !== current.number) { showRun(number, asked.step, false, asked); return; }
    const token = ++showing, wanted = stopOf(runFacts(number), number, asked.step), was = current;
    whenReady(wanted[0], () => {
      if (token !== showing) return;
      const [stop, at, last] = wanted[1]();
      was.moveTo(stop);
      landed(asked, number, at, last, false);
    });
  }

  // the list of the page's runs, folded under its count: each run's number, id (and what it is to the runs it is
  // linked to), where in its source it comes from (an eval's sample and epoch), steps, how it ended and its score, in
  // Python's words (agentrender runs'); a column no run has a word in is left out. It is laid out when first opened,
  // so that a page of many runs shows its first view in what that view costs. A row shows its run, by the mouse or by
  // the keyboard (it takes the focus, and opens on Enter or Space, as a row of the steps table does), and folds the
  // list, the focus back on its count
  const runRows = [];
  let refocus = null;  // what has the focus once the run picked is shown: the run bar is laid out anew
  function markRun(number) {
    runRows.forEach((tr, at) => {
      tr.classList.toggle("ar-current", at === number);
      if (at === number) tr.setAttribute("aria-current", "true"); else tr.removeAttribute("aria-current");
    });
  }
  function runList() {
    const list = el("details", "ar-run-list");
    const count = el("summary", "", plural(first.runs.length, "run") + " on this page");
    list.appendChild(count);
    list.addEventListener("toggle", () => {
      if (list.open && runRows.length === 0) {
        list.appendChild(runTable(list, count));
        markRun(current === null ? 0 : current.number);
      }
    });
    return list;
  }
  function runTable(list, count) {
    const columns = [["#", null], ["run", 0], ["from", 2], ["steps", null], ["how it ended", 3], ["score", 4]]
      .filter(([, at]) => at === null || first.runs.some((said) => said[at] !== 0));
    const grid = el("table");
    const head = el("tr");
    for (const [name] of columns) head.appendChild(el("th", "", name));
    grid.appendChild(el("thead")).appendChild(head);
    const body = grid.appendChild(el("tbody"));
    first.runs.forEach((said, number) => {
      const tr = el("tr", "ar-row");
      tr.dataset.run = String(number);
      for (const [name, at] of columns) {
        if (name === "#") tr.appendChild(el("td", "ar-number", String(number)));
        else if (name === "steps") tr.appendChild(el("td", "ar-number", n(first.run_steps[number])));
        else {
          const td = text(said[at], "td");
          if (at === 0 && said[1] !== 0) { td.appendChild(el("br")); td.appendChild(text(said[1], "span", "ar-muted")); }
          tr.appendChild(td);
        }
      }
      const open = () => {
        list.open = false;
        count.focus();
        if (current === null || current.number !== number) { refocus = count; showRun(number, null, true, null); }
      };
      tr.tabIndex = 0;
      tr.addEventListener("click", open);
      tr.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); open(); }
      });
      runRows.push(tr);
      body.appendChild(tr);
    });
    return grid;
  }

  // the first view: the run and step the address names, else the first run at the step it was saved at, else after
  // its last step
  const opening = named();
  loaded(numbersIn(first.runs)).then(() => {
    if (first.runs.length > 1) {  // a run picker: each run's id and what it is, in Python's words
      first.runs.forEach(([id, role], number) => {
        const option = el("option", "", number + ": " + plain(id) + (role ? " \u00b7 " + plain(role) : ""));
        option.value = String(number);
        picker.appendChild(option);
      });
      const label = el("label", "", "run ");
      label.appendChild(picker);
      runBar.appendChild(label);
      runBar.appendChild(runList());
      root.appendChild(runBar);
    }
    if (opening === null) showRun(0, null, false, null);
    else showRun(Math.min(opening.run, first.runs.length - 1), opening.step, false, opening);
  });
  document.addEventListener("keydown", (event) => { if (current !== null) current.key(event); });
  window.addEventListener("popstate", follow);
  window.addEventListener("hashchange", follow);
})();
