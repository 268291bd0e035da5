// Segment pages (issue 18). The segment page: j/k or ←/→ previous and next segment, ↑/↓ choose a
// candidate, Enter opens its grids. The grid view: every (measure, reference, CDER direction and
// pad) figure is precomputed in #grid-data and switched here without a request; word labels thin
// out on long sentences and fill in again when zoomed.
(function () {
  "use strict";

  function typing(event) {
    const target = event.target;
    if (!target || !target.tagName) return false;
    return target.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName);
  }

  function plain(event) {
    return !(event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) && !typing(event);
  }

  function follow(id) {
    const link = document.getElementById(id);
    if (link && link.href) window.location.href = link.href;
  }

  // ------------------------------------------------------------------ the segment page

  function segmentPage(table) {
    const rows = Array.from(table.querySelectorAll("tbody tr.candidate"));
    let selected = -1;
    function select(index) {
      if (!rows.length) return;
      selected = Math.max(0, Math.min(rows.length - 1, index));
      rows.forEach(function (row, k) {
        row.classList.toggle("selected", k === selected);
        row.setAttribute("aria-selected", k === selected ? "true" : "false");
      });
      rows[selected].scrollIntoView({ block: "nearest" });
    }
    rows.forEach(function (row, k) {
      row.addEventListener("click", function (event) {
        if (!event.target.closest("a")) select(k);
      });
    });
    document.addEventListener("keydown", function (event) {
      if (!plain(event)) return;
      switch (event.key) {
        case "j":
        case "ArrowRight":
          follow("seg-next");
          break;
        case "k":
        case "ArrowLeft":
          follow("seg-prev");
          break;
        case "ArrowDown":
          select(selected + 1);
          break;
        case "ArrowUp":
          select(selected < 0 ? 0 : selected - 1);
          break;
        case "Enter":
          if (selected < 0 || (event.target.closest && event.target.closest("a, button"))) return;
          window.location.href = rows[selected].dataset.gridUrl;
          break;
        default:
          return;
      }
      event.preventDefault();
    });
  }

  // ------------------------------------------------------------------ word labels on zoom

  function thinTicks(element) {
    if (element.dataset.thinning) return;
    element.dataset.thinning = "1";
    let busy = false;
    function update() {
      const meta = element.layout && element.layout.meta;
      const full = element._fullLayout;
      if (!meta || !meta.ticks || !full) return;
      const changes = {};
      meta.ticks.forEach(function (ticks) {
        const axis = full[ticks.axis];
        if (!axis || !axis.range) return;
        const low = Math.min(axis.range[0], axis.range[1]);
        const high = Math.max(axis.range[0], axis.range[1]);
        const visible = [];
        ticks.values.forEach(function (value, k) {
          if (value >= low - 1e-9 && value <= high + 1e-9) visible.push(k);
        });
        const room = Math.max(4, Math.floor(axis._length / 13));
        const step = Math.max(1, Math.ceil(visible.length / room));
        const keep = visible.filter(function (k) { return k % step === 0; });
        changes[ticks.axis + ".tickvals"] = keep.map(function (k) { return ticks.values[k]; });
        changes[ticks.axis + ".ticktext"] = keep.map(function (k) { return ticks.labels[k]; });
      });
      busy = true;
      Plotly.relayout(element, changes).then(
        function () { busy = false; },
        function () { busy = false; }
      );
    }
    element.on("plotly_relayout", function (event) {
      if (busy || !event) return;
      const zoomed = Object.keys(event).some(function (key) {
        return /range|autorange/.test(key);
      });
      if (zoomed) update();
    });
    element.thinTicks = update;
  }

  // Square cells in a column of a given width: choose the height that fills the width (the
  // figure's own height assumed a width), within 260–900 px. ``domains`` are the x and y
  // domains as the figure gave them (plotly narrows its copies to keep cells square).
  function fitHeight(element, domains) {
    const full = element._fullLayout;
    if (!full || !domains) return Promise.resolve();
    const xSpan = Math.abs(full.xaxis.range[1] - full.xaxis.range[0]);
    const ySpan = Math.abs(full.yaxis.range[1] - full.yaxis.range[0]);
    const yShare = domains.y[1] - domains.y[0];
    const xAvailable = full._size.w * (domains.x[1] - domains.x[0]);
    const yAvailable = full._size.h * yShare;
    const wanted = (xAvailable / xSpan) * ySpan;
    const height = Math.round(
      Math.max(260, Math.min(900, full.height + (wanted - yAvailable) / yShare))
    );
    if (Math.abs(height - full.height) < 8) return Promise.resolve();
    return Plotly.relayout(element, { height: height });
  }

  // Plotly moves the margins for long labels after a redraw, so fit again until it holds.
  function settle(element, domains, rounds) {
    return new Promise(function (resolve) { window.requestAnimationFrame(resolve); })
      .then(function () {
        const before = element._fullLayout && element._fullLayout.height;
        return fitHeight(element, domains).then(function () {
          const after = element._fullLayout && element._fullLayout.height;
          if (rounds > 1 && after !== before) return settle(element, domains, rounds - 1);
        });
      });
  }

  function draw(element, figure) {
    // Plotly writes into the layout it is given: draw a copy, so that switching back to a
    // figure starts from the original again.
    const copy = JSON.parse(JSON.stringify(figure));
    const layout = copy.layout || {};
    const square = layout.yaxis && layout.yaxis.scaleanchor === "x";
    const domains = square
      ? {
          x: ((layout.xaxis && layout.xaxis.domain) || [0, 1]).slice(),
          y: (layout.yaxis.domain || [0, 1]).slice(),
        }
      : null;
    const config = Object.assign({ responsive: true, displaylogo: false }, copy.config || {});
    return Plotly.react(element, copy.data || [], layout, config)
      .then(function () { return settle(element, domains, 4); })
      .then(function () {
        thinTicks(element);
        element.thinTicks();
      });
  }

  // ------------------------------------------------------------------ the grid view

  function gridPage(source) {
    const data = JSON.parse(source.textContent);
    const figure = document.getElementById("grid-figure");
    const shiftCard = document.getElementById("shift-card");
    const shiftFigure = document.getElementById("shift-figure");
    const variants = {};
    data.variants.forEach(function (variant) { variants[variant.key] = variant; });
    const first = variants[data.initial] || data.variants[0];
    if (!first || typeof Plotly === "undefined") return;
    const state = {
      measure: first.measure,
      reference: first.reference,
      direction: first.direction || "forward",
      pad: first.pad || "both",
    };

    function key() {
      if (state.measure === "cder") {
        return ["cder", state.reference, state.direction, state.pad].join("|");
      }
      return [state.measure, state.reference, "", ""].join("|");
    }

    function syncUrl() {
      const url = new URL(window.location.href);
      url.searchParams.set("measure", state.measure);
      url.searchParams.set("reference", state.reference);
      if (state.measure === "cder") {
        url.searchParams.set("option.direction", state.direction);
        url.searchParams.set("option.pad-rule", state.pad);
      } else {
        url.searchParams.delete("option.direction");
        url.searchParams.delete("option.pad-rule");
      }
      window.history.replaceState(null, "", url);
      ["seg-prev", "seg-next"].forEach(function (id) {
        const link = document.getElementById(id);
        if (!link) return;
        const target = new URL(link.href);
        target.search = url.search;
        link.href = target.toString();
      });
      document.getElementById("measure-input").value = state.measure;
      const cder = state.measure === "cder";
      const direction = document.getElementById("direction-input");
      const pad = document.getElementById("pad-input");
      direction.value = state.direction;
      pad.value = state.pad;
      direction.disabled = pad.disabled = !cder;
    }

    function show() {
      const panel = data.panels[key()];
      if (!panel) return;
      document.getElementById("variant-title").textContent = panel.title;
      document.getElementById("variant-summary").textContent = panel.summary;
      document.getElementById("alignment-text").textContent = panel.text;
      const notes = document.getElementById("variant-notes");
      notes.replaceChildren();
      panel.notes.forEach(function (note) {
        const item = document.createElement("li");
        item.textContent = note;
        notes.appendChild(item);
      });
      document.querySelectorAll("[data-caption]").forEach(function (caption) {
        caption.hidden = caption.dataset.caption !== state.measure;
      });
      document.querySelectorAll("#measure-switch button").forEach(function (button) {
        button.classList.toggle("active", button.dataset.measure === state.measure);
        button.setAttribute("aria-pressed", button.dataset.measure === state.measure ? "true" : "false");
      });
      document.querySelectorAll("#direction-switch button").forEach(function (button) {
        button.classList.toggle("active", button.dataset.direction === state.direction);
      });
      document.getElementById("cder-options").hidden = state.measure !== "cder";
      document.getElementById("pad-select").value = state.pad;
      document.getElementById("reference-select").value = state.reference;
      document.querySelectorAll("tr[data-reference]").forEach(function (row) {
        row.classList.toggle("current", row.dataset.reference === state.reference);
      });
      const shown = key();
      delete figure.dataset.variant;
      const drawn = [draw(figure, panel.figure)];
      if (panel.shifts) {
        shiftCard.hidden = false;
        drawn.push(draw(shiftFigure, panel.shifts));
      } else {
        shiftCard.hidden = true;
        Plotly.purge(shiftFigure);
      }
      syncUrl();
      // Tests and readers can tell when the figure of this variant is completely drawn.
      Promise.all(drawn).then(function () {
        if (key() === shown) figure.dataset.variant = shown;
      });
    }

    document.querySelectorAll("#measure-switch button").forEach(function (button) {
      button.addEventListener("click", function () {
        state.measure = button.dataset.measure;
        show();
      });
    });
    document.querySelectorAll("#direction-switch button").forEach(function (button) {
      button.addEventListener("click", function () {
        state.direction = button.dataset.direction;
        show();
      });
    });
    document.getElementById("pad-select").addEventListener("change", function (event) {
      state.pad = event.target.value;
      show();
    });
    document.getElementById("reference-select").addEventListener("change", function (event) {
      state.reference = event.target.value;
      show();
    });
    const copy = document.getElementById("copy-text");
    copy.addEventListener("click", function () {
      const text = document.getElementById("alignment-text").textContent;
      const done = function () {
        copy.textContent = "Copied";
        setTimeout(function () { copy.textContent = "Copy"; }, 1500);
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, function () {});
      } else {
        const range = document.createRange();
        range.selectNodeContents(document.getElementById("alignment-text"));
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        try { document.execCommand("copy"); done(); } catch (error) { /* selected: copy by hand */ }
      }
    });
    const measures = Array.from(document.querySelectorAll("#measure-switch button")).map(function (b) {
      return b.dataset.measure;
    });
    document.addEventListener("keydown", function (event) {
      if (!plain(event)) return;
      if (event.key === "ArrowRight" || event.key === "j") follow("seg-next");
      else if (event.key === "ArrowLeft" || event.key === "k") follow("seg-prev");
      else if (/^[1-9]$/.test(event.key) && measures[Number(event.key) - 1]) {
        state.measure = measures[Number(event.key) - 1];
        show();
      } else return;
      event.preventDefault();
    });
    show();
  }

  function init() {
    const table = document.getElementById("candidates");
    if (table) segmentPage(table);
    const source = document.getElementById("grid-data");
    if (source && document.getElementById("grid-figure")) gridPage(source);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
