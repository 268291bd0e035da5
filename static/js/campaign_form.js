/* evaltrans campaign form: show the chosen protocol's options, and its default repeat share.
 *
 * Blocks marked data-protocol="<protocol> …" are shown only for those protocols, blocks marked
 * data-protocol-hide="<protocol> …" for every other one (ranking has no presentation choice: its
 * candidates always stand side by side; MQM, ESA and post-editing show one candidate per screen;
 * post-edits are never reused). The repeat share
 * carries each protocol's default (data-default-<protocol>); switching the protocol swaps the
 * value only while it still holds the other protocol's default, so a typed value is kept.
 * The one "show the reference" tickbox (ranking, MQM, ESA, post-editing) takes the chosen
 * protocol's label, help and default (data-label-/data-help-/data-default-<protocol>): its
 * ticked state follows the protocol's default until the admin clicks it (a form sent back with
 * errors keeps what was sent). The practice screen count matters only with practice on.
 * Without this script every block is shown and the server ignores the other protocol's options.
 */
(function () {
  "use strict";

  const form = document.getElementById("campaign-form");
  if (!form) return;
  const radios = Array.from(form.querySelectorAll("input[name=protocol]"));
  const repeat = form.querySelector("input[name=repeat_share]");
  const showReference = form.querySelector("input[name=show_reference]");
  const showReferenceLabel = showReference ? form.querySelector("label[for='" + showReference.id + "']") : null;
  const showReferenceHelp = form.querySelector("[data-show-reference-help]");
  let referenceTouched = form.hasAttribute("data-bound");
  if (showReference) showReference.addEventListener("change", () => { referenceTouched = true; });
  let shown = null;

  function applyReference(protocol) {
    if (!showReference) return;
    const label = showReference.getAttribute("data-label-" + protocol);
    if (label === null) return;
    if (showReferenceLabel) showReferenceLabel.textContent = label + ":";
    if (showReferenceHelp) showReferenceHelp.textContent = showReference.getAttribute("data-help-" + protocol);
    if (!referenceTouched) showReference.checked = showReference.getAttribute("data-default-" + protocol) === "true";
  }

  function chosen() {
    const radio = radios.find((input) => input.checked);
    return radio ? radio.value : "";
  }

  function apply() {
    const protocol = chosen();
    // A block may name several protocols, separated by spaces ("mqm esa").
    form.querySelectorAll("[data-protocol]").forEach((block) => {
      block.hidden = !block.dataset.protocol.split(" ").includes(protocol);
    });
    form.querySelectorAll("[data-protocol-hide]").forEach((block) => {
      block.hidden = block.dataset.protocolHide.split(" ").includes(protocol);
    });
    if (repeat && shown !== null && shown !== protocol) {
      const before = repeat.getAttribute("data-default-" + shown);
      const after = repeat.getAttribute("data-default-" + protocol);
      if (after !== null && Number(repeat.value) === Number(before)) repeat.value = after;
    }
    applyReference(protocol);
    shown = protocol;
  }

  radios.forEach((radio) => radio.addEventListener("change", apply));
  apply();

  // Evaluation settings: the counts of context sentences matter only with document context.
  const context = form.querySelector("input[name=show_context]");
  const counts = form.querySelector("[data-context-counts]");
  function applyContext() {
    if (context && counts) counts.hidden = !context.checked;
  }
  if (context) context.addEventListener("change", applyContext);
  applyContext();

  // Practice phase: the number of screens matters only when practice is on.
  const practice = form.querySelector("select[name=practice]");
  const practiceScreens = form.querySelector("[data-practice-screens]");
  function applyPractice() {
    if (practice && practiceScreens) practiceScreens.hidden = practice.value === "off";
  }
  if (practice) practice.addEventListener("change", applyPractice);
  applyPractice();
})();
