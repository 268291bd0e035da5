/* evaltrans error-span marking (MQM, ESA): select a span of the candidate, give it a severity
 * (and, for MQM, a category), optionally a note; delete spans; the spans travel in the hidden
 * field spans-<item> as JSON, which judging.js submits with the rest of the form.
 *
 * Keyboard (Anthea-style), with the focus on the candidate text:
 *   ← →              move the caret over the words (a word, or a single punctuation mark;
 *                    CJK characters one by one)
 *   Shift+← →        extend or shrink the selection by words
 *   Alt+← →          the same by single characters (with Shift: extend)
 *   Home / End       first / last word
 *   m / M            mark the selection minor / major; MQM then asks the category (↑ ↓ in
 *                    the list, Enter adds, Tab to the note, Esc cancels); ESA adds at once
 *   Delete, Backspace  remove the error under the caret
 *   Esc              collapse the selection
 *   Enter            submit (judging.js)
 * Mouse: drag over the text to select, then pick severity (and category) and "Add error";
 * each marked error has a "Delete" button; a click on a word moves the caret there.
 *
 * Offsets are Unicode code points of the candidate text (Array.from), as the server counts.
 * The text is only ever written with textContent: MT output is untrusted.
 */
(function () {
  "use strict";

  const SEVERITY_TEXT = { minor: "Minor", major: "Major" };
  const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{N}\p{M}]+(?:['’\-][\p{L}\p{N}\p{M}]+)*|\S/gu;

  const submitLabel = document.querySelector("[data-submit-label]");
  const hint = document.getElementById("form-hint");
  const entries = Array.from(document.querySelectorAll("[data-span-entry]")).map(setUp);
  if (!entries.length) return;
  // judging.js focused the ESA slider (its only question); the errors come first.
  entries[0].text.focus({ preventScroll: true });
  showHintText("Select an error and press m (minor) or M (major)" +
    (entries[0].mqm ? ", then choose its category." : "."));

  function showHintText(text) {
    if (!hint) return;
    hint.textContent = text;
    hint.classList.remove("error");
  }

  function setUp(entry) {
    const text = entry.querySelector("[data-span-text]");
    const field = entry.querySelector("[data-spans-field]");
    const editor = entry.querySelector("[data-span-editor]");
    const selectedQuote = entry.querySelector("[data-span-selected]");
    const severityInputs = Array.from(entry.querySelectorAll("[data-span-severity]"));
    const category = entry.querySelector("[data-span-category]");
    const note = entry.querySelector("[data-span-note]");
    const addButton = entry.querySelector("[data-span-add]");
    const cancelButton = entry.querySelector("[data-span-cancel]");
    const list = entry.querySelector("[data-span-list]");
    const empty = entry.querySelector("[data-span-empty]");
    const count = entry.querySelector("[data-span-count]");
    const status = entry.querySelector("[data-span-status]");
    const mqm = entry.dataset.mqm === "1";

    const chars = Array.from(text.textContent);
    const tokens = [];
    for (const match of text.textContent.matchAll(TOKEN)) {
      // matchAll gives UTF-16 indices: convert to code points.
      const start = Array.from(text.textContent.slice(0, match.index)).length;
      tokens.push([start, start + Array.from(match[0]).length]);
    }
    if (!tokens.length && chars.length) tokens.push([0, chars.length]);

    let spans = [];
    try { spans = JSON.parse(field.value || "[]"); } catch (error) { spans = []; }
    let anchor = tokens.length ? tokens[0] : [0, 0];
    let focus = anchor;
    let pending = null;  // the selection the editor is adding: [start, end]

    // One element per character, so selection and highlights map to offsets exactly.
    text.textContent = "";
    const cells = chars.map((ch, index) => {
      const span = document.createElement("span");
      span.className = "ch";
      span.dataset.i = String(index);
      span.textContent = ch;
      text.appendChild(span);
      return span;
    });

    function selection() {
      return [Math.min(anchor[0], focus[0]), Math.max(anchor[1], focus[1])];
    }

    function quote(range) {
      return chars.slice(range[0], range[1]).join("");
    }

    function render() {
      const [s0, s1] = selection();
      const focused = document.activeElement === text || pending !== null;
      cells.forEach((cell, index) => {
        let level = "";
        for (const span of spans) {
          if (span.start <= index && index < span.end) {
            level = span.severity === "major" || level === "major" ? "major" : "minor";
          }
        }
        cell.classList.toggle("err-minor", level === "minor");
        cell.classList.toggle("err-major", level === "major");
        const inPending = pending !== null && pending[0] <= index && index < pending[1];
        cell.classList.toggle("sel", (focused && s0 <= index && index < s1) || inPending);
      });
      field.value = JSON.stringify(spans);
      renderList();
      if (submitLabel) submitLabel.textContent = spans.length ? "Submit" : "No errors — submit";
    }

    function renderList() {
      list.textContent = "";
      spans.forEach((span, index) => {
        const item = document.createElement("li");
        item.className = "span-item span-" + span.severity;
        const badge = document.createElement("span");
        badge.className = "pill severity-pill severity-" + span.severity;
        badge.textContent = SEVERITY_TEXT[span.severity];
        item.appendChild(badge);
        if (span.category) {
          const cat = document.createElement("span");
          cat.className = "span-category";
          cat.textContent = span.category;
          item.appendChild(cat);
        }
        const words = document.createElement("q");
        words.className = "span-words";
        words.textContent = quote([span.start, span.end]);
        item.appendChild(words);
        if (span.note) {
          const noteText = document.createElement("span");
          noteText.className = "span-note muted";
          noteText.textContent = span.note;
          item.appendChild(noteText);
        }
        const remove = document.createElement("button");
        remove.type = "button";
        remove.className = "button span-delete";
        remove.textContent = "Delete";
        remove.setAttribute("aria-label", "Delete error " + (index + 1) + ": " + quote([span.start, span.end]));
        remove.addEventListener("click", () => {
          spans.splice(index, 1);
          render();
          announce("Error deleted.");
          text.focus({ preventScroll: true });
        });
        item.appendChild(remove);
        list.appendChild(item);
      });
      empty.hidden = spans.length > 0;
      count.textContent = spans.length ? "(" + spans.length + ")" : "";
    }

    function announce(message) {
      status.textContent = message;
    }

    function describeSelection() {
      const range = selection();
      announce("Selected: " + quote(range));
    }

    // ---- caret movement ------------------------------------------------------------------
    function nextToken(range, direction) {
      if (direction > 0) return tokens.find((token) => token[0] >= range[1]) || null;
      for (let i = tokens.length - 1; i >= 0; i--) if (tokens[i][1] <= range[0]) return tokens[i];
      return null;
    }

    function nextChar(range, direction) {
      if (direction > 0) return range[1] < chars.length ? [range[1], range[1] + 1] : null;
      return range[0] > 0 ? [range[0] - 1, range[0]] : null;
    }

    function move(direction, extend, byChar) {
      let target;
      if (extend && byChar) {
        // Grow or shrink the selection by one character at its moving end.
        const [s0, s1] = selection();
        const forward = focus[1] >= anchor[1] && !(focus[0] < anchor[0]);
        if (forward) {
          const end = Math.max(s0 + 1, Math.min(chars.length, s1 + direction));
          anchor = [s0, s0 + 1]; focus = [end - 1, end];
        } else {
          const begin = Math.min(s1 - 1, Math.max(0, s0 + direction));
          anchor = [s1 - 1, s1]; focus = [begin, begin + 1];
        }
        render(); describeSelection();
        return;
      }
      target = byChar ? nextChar(focus, direction) : nextToken(focus, direction);
      if (!target) return;
      focus = target;
      if (!extend) anchor = target;
      render();
      describeSelection();
    }

    function spanAtCaret() {
      const [s0, s1] = selection();
      for (let i = spans.length - 1; i >= 0; i--) {
        if (spans[i].start < s1 && s0 < spans[i].end) return i;
      }
      return -1;
    }

    // ---- the editor (severity, category, note) --------------------------------------------
    function openEditor(range, severity) {
      pending = range;
      selectedQuote.textContent = quote(range);
      severityInputs.forEach((input) => { input.checked = input.value === severity; });
      if (note) note.value = "";
      editor.hidden = false;
      if (category) {
        // Every error starts from the top of the list: the keys to a category never change.
        category.selectedIndex = 0;
        category.scrollTop = 0;
        category.focus({ preventScroll: true });
      } else if (severity) {
        note.focus({ preventScroll: true });
      } else {
        severityInputs[0].focus({ preventScroll: true });
      }
      editor.scrollIntoView({ block: "nearest" });
      render();
    }

    function closeEditor() {
      pending = null;
      editor.hidden = true;
      text.focus({ preventScroll: true });
      render();
    }

    function add(range, severity, categoryName, noteText) {
      spans.push({ start: range[0], end: range[1], category: categoryName || "", severity: severity, note: noteText || "" });
      spans.sort((a, b) => a.start - b.start || a.end - b.end);
      announce((SEVERITY_TEXT[severity] + " error" + (categoryName ? " (" + categoryName + ")" : "") +
        " added: " + quote(range)));
    }

    function confirm() {
      const chosen = severityInputs.find((input) => input.checked);
      if (!chosen) {
        announce("Choose the severity: m minor, M major.");
        severityInputs[0].focus();
        return;
      }
      if (mqm && (!category || category.selectedIndex < 0)) {
        announce("Choose the category.");
        category.focus();
        return;
      }
      add(pending, chosen.value, mqm ? category.value : "", note ? note.value.trim() : "");
      anchor = focus = [pending[1] > 0 ? pending[0] : 0, pending[1]];
      const after = nextToken([pending[0], pending[1]], 1);
      if (after) anchor = focus = after;
      closeEditor();
    }

    function mark(severity) {
      const range = selection();
      if (range[1] <= range[0]) return;
      if (mqm) {
        openEditor(range, severity);
      } else {
        add(range, severity, "", "");
        const after = nextToken(range, 1);
        if (after) anchor = focus = after;
        render();
      }
    }

    addButton.addEventListener("click", confirm);
    cancelButton.addEventListener("click", closeEditor);
    editor.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      // The editor's keys stay here: judging.js would submit on Enter, go back on Backspace.
      if (event.key === "Enter") {
        event.preventDefault();
        event.stopPropagation();
        if (event.target === cancelButton) closeEditor(); else confirm();
      } else if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        closeEditor();
      } else if ((event.key === "m" || event.key === "M") && event.target !== note) {
        event.preventDefault();
        event.stopPropagation();
        const value = event.key === "M" ? "major" : "minor";
        severityInputs.forEach((input) => { input.checked = input.value === value; });
      } else {
        event.stopPropagation();
      }
    });

    // ---- keyboard on the text -------------------------------------------------------------
    text.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey) return;
      const key = event.key;
      let handled = true;
      if (key === "ArrowRight" || key === "ArrowDown") move(1, event.shiftKey, event.altKey);
      else if (key === "ArrowLeft" || key === "ArrowUp") move(-1, event.shiftKey, event.altKey);
      else if (key === "Home" && tokens.length) { anchor = focus = tokens[0]; render(); describeSelection(); }
      else if (key === "End" && tokens.length) { anchor = focus = tokens[tokens.length - 1]; render(); describeSelection(); }
      else if (key === "m" && !event.altKey) mark("minor");
      else if (key === "M" && !event.altKey) mark("major");
      else if (key === "Delete" || key === "Backspace") {
        const index = spanAtCaret();
        if (index >= 0) {
          const [removed] = spans.splice(index, 1);
          render();
          announce("Error deleted: " + quote([removed.start, removed.end]));
        } else {
          announce("No error under the caret.");
        }
      } else if (key === "Escape") { anchor = focus; render(); describeSelection(); }
      else handled = false;
      if (handled) {
        event.preventDefault();
        event.stopPropagation();
      }
    });

    text.addEventListener("focus", () => { render(); describeSelection(); });
    text.addEventListener("blur", () => { setTimeout(render, 0); });

    // ---- mouse -----------------------------------------------------------------------------
    function offsetOf(node, edge) {
      const element = node && (node.nodeType === 1 ? node : node.parentElement);
      const cell = element && element.closest(".ch");
      if (!cell || !text.contains(cell)) return null;
      return Number(cell.dataset.i) + edge;
    }

    text.addEventListener("mouseup", () => {
      const native = window.getSelection();
      if (!native || native.rangeCount === 0) return;
      const range = native.getRangeAt(0);
      if (range.collapsed) return;
      let start = offsetOf(range.startContainer, range.startOffset > 0 && range.startContainer.nodeType === 3 ? 1 : 0);
      let end = offsetOf(range.endContainer, range.endContainer.nodeType === 3 && range.endOffset > 0 ? 1 : 0);
      if (start === null || end === null) return;
      if (range.startContainer.nodeType === 3 && range.startOffset >= range.startContainer.length) start = offsetOf(range.startContainer, 1);
      if (end <= start) return;
      native.removeAllRanges();
      anchor = [start, start + 1];
      focus = [end - 1, end];
      openEditor([start, end], "");
    });

    text.addEventListener("click", (event) => {
      const native = window.getSelection();
      if (native && !native.isCollapsed) return;
      const index = offsetOf(event.target, 0);
      if (index === null) return;
      const token = tokens.find((t) => t[0] <= index && index < t[1]) || [index, index + 1];
      anchor = focus = token;
      render();
      describeSelection();
    });

    severityInputs.forEach((input) => input.addEventListener("change", () => {
      if (mqm && category) category.focus({ preventScroll: true });
    }));

    render();
    return { text: text, mqm: mqm };
  }
})();
