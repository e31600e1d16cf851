/* Small behaviours any page may use, kept out of the markup because the
   Content-Security-Policy runs no inline script or on* handler attribute.
   - data-select-on-focus: focusing the field selects its text (a link to copy). */
(() => {
  "use strict";

  document.addEventListener("focusin", (event) => {
    const field = event.target;
    if (field instanceof HTMLInputElement && field.hasAttribute("data-select-on-focus")) {
      field.select();
    }
  });
})();
