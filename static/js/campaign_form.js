/* evaltrans campaign form: show the chosen protocol's options, and its default repeat share.
 *
 * Blocks marked data-protocol="<protocol> …" are shown only for those protocols, blocks marked
 * data-protocol-hide="<protocol> …" for every other one (ranking has no presentation choice: its
 * candidates always stand side by side; MQM, ESA and post-editing show one candidate per screen;
 * post-edits are never reused). The repeat share
 * carries each protocol's default (data-default-<protocol>); switching the protocol swaps the
 * value only while it still holds the other protocol's default, so a typed value is kept.
 * Without this script every block is shown and the server ignores the other protocol's options.
 */
(function () {
  "use strict";

  const form = document.getElementById("campaign-form");
  if (!form) return;
  const radios = Array.from(form.querySelectorAll("input[name=protocol]"));
  const repeat = form.querySelector("input[name=repeat_share]");
  let shown = null;

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
})();
