/* evaltrans post-editing screen: the judge edits the machine translation in a text box.
 *
 * Keys (in the box): Ctrl+Enter (Cmd+Enter on a Mac) submits; Enter alone adds no line break
 * (a translation is one line, as the test set's references: the server also turns any line
 * break, e.g. a pasted one, into a space); Esc puts the machine translation back (from
 * scratch: empties the box). judging.js does the rest: active time, saving and retrying;
 * this script only asks the form to submit, so the same guards and timing apply.
 * With the mouse: edit, then click Submit. Without this script: a plain form post.
 */
(function () {
  "use strict";

  const root = document.getElementById("judging");
  const form = document.getElementById("screen-form");
  if (!root || !form || root.dataset.protocol !== "post-edit") return;

  const boxes = Array.from(form.querySelectorAll("textarea[data-postedit]"));
  const hint = document.getElementById("form-hint");

  function showHint(text, isError) {
    if (!hint) return;
    hint.textContent = text;
    hint.classList.toggle("error", Boolean(isError));
  }

  function caretToEnd(box) {
    box.focus({ preventScroll: true });
    const end = box.value.length;
    box.setSelectionRange(end, end);
  }

  function submit() {
    const empty = boxes.find((box) => !box.value.trim());
    if (empty) {
      caretToEnd(empty);
      empty.classList.add("missing");
      setTimeout(() => empty.classList.remove("missing"), 900);
      showHint("Type the translation first: an empty post-edit is not stored.", true);
      return;
    }
    if (typeof form.requestSubmit === "function") form.requestSubmit();
    else form.dispatchEvent(new Event("submit", { cancelable: true }));
  }

  boxes.forEach((box) => {
    box.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        submit();
      } else if (event.key === "Enter") {
        event.preventDefault();
        showHint("One line per translation: press Ctrl+Enter (⌘+Enter) to submit.");
      } else if (event.key === "Escape") {
        event.preventDefault();
        box.value = box.dataset.original || "";
        caretToEnd(box);
        showHint(box.value ? "Back to the machine translation." : "Box emptied.");
      }
    });
    box.addEventListener("input", () => {
      // A pasted line break becomes a space, as the server stores it.
      if (/[\r\n]/.test(box.value)) {
        const at = box.selectionStart;
        box.value = box.value.replace(/\r\n?|\n/g, " ");
        box.setSelectionRange(at, at);
      }
      showHint("");
    });
  });

  if (boxes.length) caretToEnd(boxes[0]);
})();
