// Human-score panels: the raw/normalized toggle and clicks on a judge in a figure.
// Figures themselves are drawn by charts.js (window.evaltransCharts).
(function () {
  function show(view) {
    document.querySelectorAll("[data-view-pane]").forEach(function (pane) {
      pane.hidden = pane.dataset.viewPane !== view;
    });
    document.querySelectorAll(".hs-toggle [data-view]").forEach(function (button) {
      button.classList.toggle("active", button.dataset.view === view);
      button.setAttribute("aria-pressed", button.dataset.view === view ? "true" : "false");
    });
    document.querySelectorAll("[data-view-input]").forEach(function (input) { input.value = view; });
    // A figure drawn while hidden has no size: draw (or resize) it now that it shows.
    // A figure drawn while hidden got plotly's default size: draw it again now that it shows.
    document.querySelectorAll("[data-view-pane='" + view + "'] [data-figure]").forEach(function (el) {
      if (!window.evaltransCharts || typeof Plotly === "undefined") return;
      Plotly.purge(el);
      delete el.dataset.clicksBound;
      window.evaltransCharts.render(el);
      bindJudgeClicks(el);
    });
    document.querySelectorAll(".hs-tabs a").forEach(function (link) {
      const url = new URL(link.href);
      url.searchParams.set("view", view);
      link.href = url.toString();
    });
    const url = new URL(window.location.href);
    url.searchParams.set("view", view);
    window.history.replaceState(null, "", url.toString());
  }

  function bindJudgeClicks(el) {
    const linksId = el.dataset.judgeLinks;
    if (!linksId || el.dataset.clicksBound || typeof el.on !== "function") return;
    const links = JSON.parse(document.getElementById(linksId).textContent);
    el.on("plotly_click", function (event) {
      const point = event.points && event.points[0];
      if (!point) return;
      // Bars carry the judge's index in customdata; a box is one trace per judge.
      const data = point.customdata;
      let index = Array.isArray(data) ? data[0] : data;
      if (typeof index !== "number") index = point.curveNumber;
      if (typeof index === "number" && links[index]) window.location.href = links[index];
    });
    el.dataset.clicksBound = "1";
  }

  function init() {
    document.querySelectorAll(".hs-toggle [data-view]").forEach(function (button) {
      button.addEventListener("click", function () { show(button.dataset.view); });
    });
    document.querySelectorAll("[data-judge-links]").forEach(bindJudgeClicks);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
