/* Small behaviours any page may use, kept out of the markup because the
   Content-Security-Policy runs no inline script or on* handler attribute.
   - data-select-on-focus: focusing the field selects its text (a link to copy).
   - data-show-when="name=value": the element is shown only while the form's field `name`
     (a radio group or a select) has `value`. Without script everything stays shown and the
     server reads only the chosen value's fields, so the form works either way. */
(() => {
  "use strict";

  document.addEventListener("focusin", (event) => {
    const field = event.target;
    if (field instanceof HTMLInputElement && field.hasAttribute("data-select-on-focus")) {
      field.select();
    }
  });

  const chosen = (form, name) => {
    const field = form.elements.namedItem(name);
    if (field instanceof RadioNodeList) return field.value;
    return field && "value" in field ? field.value : null;
  };

  const showChosen = (root) => {
    for (const element of root.querySelectorAll("[data-show-when]")) {
      const form = element.closest("form");
      const [name, value] = element.getAttribute("data-show-when").split("=");
      if (!form) continue;
      const current = chosen(form, name);
      element.hidden = current !== null && current !== "" && current !== value;
    }
  };

  document.addEventListener("change", (event) => {
    const form = event.target instanceof Element ? event.target.closest("form") : null;
    if (form && form.querySelector("[data-show-when]")) showChosen(form);
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => showChosen(document));
  } else {
    showChosen(document);
  }
})();
