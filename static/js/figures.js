/* Draws the plotly figures of a page. The server sends each figure as an empty
   <div class="plotly-graph-div" id=...> plus a JSON island
   <script type="application/json" data-plotly-figure="that id">{"figure":..., "config":...}</script>
   (patientagentbench.analysis.figures.figure_html), because the Content-Security-Policy runs
   no inline script. Figures are drawn when the page loads and after every htmx swap (the
   live dashboards replace their sections); each island is drawn once. Pages without plotly.js
   or without figures are left alone. */
(() => {
  "use strict";

  const drawn = new WeakSet();

  function drawAll() {
    if (!window.Plotly) return;
    document.querySelectorAll('script[type="application/json"][data-plotly-figure]').forEach((island) => {
      if (drawn.has(island)) return;
      const target = document.getElementById(island.dataset.plotlyFigure);
      if (!target) return;
      drawn.add(island);
      let spec;
      try {
        spec = JSON.parse(island.textContent);
      } catch (error) {
        console.error("figure data unreadable", island.dataset.plotlyFigure, error);
        return;
      }
      const figure = spec.figure || {};
      window.Plotly.newPlot(target, figure.data || [], figure.layout || {}, spec.config || {});
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
  // After htmx has settled a swap (its attributes restored), so plotly's classes stay.
  document.addEventListener("htmx:afterSettle", drawAll);
})();
