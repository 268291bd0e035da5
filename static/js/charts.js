// Renders every plotly figure of a page: <div data-figure="ID"> takes its figure from the
// <script type="application/json" id="ID"> that Django's json_script wrote.
(function () {
  function render(element) {
    const source = document.getElementById(element.dataset.figure);
    if (!source || typeof Plotly === "undefined") return;
    const figure = JSON.parse(source.textContent);
    const config = Object.assign({ responsive: true, displaylogo: false }, figure.config || {});
    Plotly.react(element, figure.data || [], figure.layout || {}, config);
  }
  function renderAll(root) {
    (root || document).querySelectorAll("[data-figure]").forEach(render);
  }
  window.evaltransCharts = { render: render, renderAll: renderAll };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { renderAll(); });
  } else {
    renderAll();
  }
})();
