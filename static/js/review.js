/* The clinician's review page: keyboard scoring, comments anchored to a turn or tool call,
   the quiet autosave state and time on item. htmx posts the drafts (see the form's hx-*
   attributes); this file adds what htmx does not: the seconds the tab was really in use,
   skipping saves that would store nothing new, retrying when the server could not be
   reached, and a beacon with the last change when the page goes away.
   On pages without a score form (home, feedback) Enter follows the one primary action. */
(() => {
  "use strict";

  const form = document.getElementById("score-form");
  const dialog = document.getElementById("keymap");
  const rows = form ? Array.from(form.querySelectorAll(".dim")) : [];
  const editable = !!form && form.dataset.editable === "1";
  const autosave = !!form && form.dataset.autosave === "1";
  // The rubric's scale, from the form: its points are the score keys ("1" … "5" today).
  const points = form ? (form.dataset.points || "").split(" ").filter(Boolean) : [];
  const span = form ? form.dataset.span : "";
  const commentList = document.getElementById("comment-list");
  const commentTemplate = document.getElementById("comment-template");
  const thread = document.querySelector(".conversation .thread");
  const clientError = form && form.querySelector("[data-client-error]");
  const progressNote = form && form.querySelector("[data-progress]");

  let focusIndex = 0;
  let currentTurn = null;
  let submitting = false;

  function isTyping(el) {
    if (!el || !el.tagName) return false;
    if (el.isContentEditable || el.tagName === "TEXTAREA" || el.tagName === "SELECT") return true;
    return el.tagName === "INPUT" && !["radio", "checkbox", "button", "submit", "hidden"].includes(el.type);
  }

  function followContinue() {
    const go = document.querySelector("[data-continue]");
    if (go) go.click();
  }

  // --- the score rows ----------------------------------------------------------------------

  function chosen(row) {
    const input = row.querySelector("input[type=radio]:checked");
    return input ? input.value : "";
  }

  function missingRows() {
    return rows.filter((row) => !chosen(row));
  }

  function showHint(row, level) {
    const hint = row.querySelector(".hint");
    if (!hint) return;
    const value = level || chosen(row);
    const items = row.querySelectorAll(".levels li");
    items.forEach((li) => li.classList.toggle("chosen", li.dataset.level === chosen(row)));
    const item = value && value !== "na" ? row.querySelector(`.levels li[data-level="${value}"]`) : null;
    if (item) {
      const title = item.querySelector("b").textContent;
      hint.textContent = `${title}: ${item.textContent.slice(item.textContent.indexOf(title) + title.length).trim()}`;
    } else if (value === "na") {
      hint.textContent = "Not applicable.";
    } else {
      hint.textContent = hint.dataset.definition || "";
    }
  }

  function setFocus(index, { scroll = true, dom = true } = {}) {
    if (!rows.length) return;
    focusIndex = Math.max(0, Math.min(rows.length - 1, index));
    rows.forEach((row, i) => row.classList.toggle("focused", i === focusIndex));
    const row = rows[focusIndex];
    if (dom && !row.contains(document.activeElement)) row.focus({ preventScroll: true });
    if (scroll) row.scrollIntoView({ block: "nearest" });
    showHint(row);
  }

  function score(row, value) {
    const input = row.querySelector(`input[type=radio][value="${value}"]`);
    if (!input) return false;
    input.checked = true;
    input.dispatchEvent(new Event("change", { bubbles: true }));
    return true;
  }

  function advance() {
    if (focusIndex < rows.length - 1) {
      setFocus(focusIndex + 1);
      return;
    }
    const missing = missingRows();
    setFocus(missing.length ? rows.indexOf(missing[0]) : focusIndex);
  }

  // Shown under the buttons, so it never moves the button being clicked.
  function say(message, kind = "") {
    if (!clientError) return;
    clientError.textContent = message;
    clientError.hidden = !message;
    clientError.dataset.kind = kind;
  }

  function refreshProgress() {
    const missing = missingRows();
    rows.forEach((row) => {
      if (chosen(row)) row.classList.remove("missing");
    });
    if (progressNote) {
      progressNote.textContent = missing.length
        ? `${rows.length - missing.length} of ${rows.length} answered`
        : "all answered";
    }
    if (!missing.length && clientError && clientError.dataset.kind === "missing") say("");
  }

  function demandMissing() {
    const missing = missingRows();
    if (!missing.length) return false;
    missing.forEach((row) => row.classList.add("missing"));
    const names = missing.map((row) => row.querySelector(".dim-label").textContent.trim());
    say(`Score every dimension, or mark it N/A, before submitting: ${names.join(", ")}.`, "missing");
    setFocus(rows.indexOf(missing[0]));
    return true;
  }

  function enter() {
    if (!editable) {
      followContinue();
      return;
    }
    if (demandMissing()) return;
    form.requestSubmit();
  }

  // --- comments on a turn or tool call -----------------------------------------------------

  function labelFor(el) {
    if (el.classList.contains("toolcard")) {
      const name = el.querySelector("header b");
      return `${el.id} · ${name ? name.textContent.trim() : "tool call"}`;
    }
    const number = el.id.replace("turn-", "");
    const who = el.classList.contains("agent")
      ? "Agent"
      : (el.querySelector(".who") || el).textContent.split("·")[0].trim();
    return `turn ${number} · ${who}`;
  }

  function setCurrent(el) {
    if (currentTurn) currentTurn.classList.remove("current");
    currentTurn = el;
    if (el) el.classList.add("current");
  }

  function turnAtTop() {
    const bar = document.querySelector(".review-bar");
    const top = bar ? bar.getBoundingClientRect().bottom : 0;
    const pieces = thread ? thread.querySelectorAll(".turn[id], .toolcard[id]") : [];
    for (const piece of pieces) {
      if (piece.getBoundingClientRect().bottom > top + 8) return piece;
    }
    return pieces[0] || null;
  }

  function markCommented() {
    if (!thread || !commentList) return;
    const anchors = new Set(
      Array.from(commentList.querySelectorAll(".comment")).map((box) => box.dataset.anchor)
    );
    thread.querySelectorAll(".turn[id], .toolcard[id]").forEach((el) => {
      el.classList.toggle("has-comment", anchors.has(el.id));
    });
  }

  // The comment box of a turn or tool call, made when it has none yet.
  function commentBox(el) {
    if (!commentTemplate) return null;
    let box = Array.from(commentList.querySelectorAll(".comment")).find(
      (existing) => existing.dataset.anchor === el.id
    );
    if (!box) {
      box = commentTemplate.content.firstElementChild.cloneNode(true);
      box.dataset.anchor = el.id;
      box.querySelector("input[name=comment-anchor]").value = el.id;
      const link = box.querySelector(".comment-on");
      link.href = `#${el.id}`;
      link.textContent = labelFor(el);
      commentList.appendChild(box);
    }
    return box;
  }

  function addComment(el) {
    if (!el || !editable || !commentTemplate) return;
    setCurrent(el);
    const box = commentBox(el);
    markCommented();
    const text = box.querySelector("textarea");
    box.scrollIntoView({ block: "nearest" });
    text.focus({ preventScroll: true });
  }

  function wireThread() {
    if (!thread) return;
    if (editable) {
      thread.querySelectorAll(".turn[id], .toolcard[id]").forEach((el) => {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "comment-button";
        button.dataset.action = "comment";
        button.title = "Comment on this";
        button.innerHTML = "Comment <kbd>c</kbd>";
        el.appendChild(button);
      });
    }
    thread.addEventListener("click", (event) => {
      const el = event.target.closest(".turn[id], .toolcard[id]");
      if (!el) return;
      if (event.target.closest("[data-action=comment]")) {
        addComment(el);
      } else if (editable) {
        setCurrent(el);
      }
    });
    markCommented();
  }

  // --- autosave: htmx sends, this keeps the state honest -----------------------------------
  // Every edited field gets a version (a clock in ms, strictly increasing); the server keeps,
  // per field, the value of the newest version it has seen, so a late page-hide save or a
  // replay never overwrites newer text. Until the server confirms a field, its value and
  // version wait in localStorage; a reloaded page that finds one newer than the server's puts
  // it back in the form and sends it again.

  const storeKey = form ? `pab-draft:${form.dataset.code}` : "";
  const serverVersionsEl = document.getElementById("draft-versions");
  const serverVersions = serverVersionsEl ? JSON.parse(serverVersionsEl.textContent) : {};
  const versions = {}; // fields edited (or replayed) in this page -> their version
  let pending = {}; // fields the server has not confirmed -> {v, value}
  let clock = Math.max(0, ...Object.values(serverVersions));

  let activeSeconds = 0; // visible and focused since the last stored save
  let changes = 0; // edits made in this page
  let savedChanges = 0; // edits the server has
  let savedSignature = null; // the form as the server last stored it
  let savedAt = null; // when (ms), for "saved 2 s ago"
  let inflight = null;
  let failing = false;
  let retryDelay = 2000;
  let retryTimer = null;

  function fieldOf(el) {
    if (!el) return null;
    if (el.id === "comment-list") return "comments"; // a comment box was removed
    const name = el.name || "";
    if (name.startsWith("score-") || name.startsWith("why-")) return name;
    if (name === "flag") return "flags";
    if (name === "comment-text" || name === "comment-anchor") return "comments";
    return null;
  }

  function valueOf(field) {
    if (field.startsWith("score-")) {
      const input = form.querySelector(`input[name="${field}"]:checked`);
      return input ? input.value : "";
    }
    if (field.startsWith("why-")) {
      const text = form.querySelector(`textarea[name="${field}"]`);
      return text ? text.value : "";
    }
    if (field === "flags") {
      return Array.from(form.querySelectorAll("input[name=flag]:checked")).map((i) => i.value);
    }
    return Array.from(commentList.querySelectorAll(".comment")).map((box) => ({
      anchor: box.dataset.anchor,
      text: box.querySelector("textarea").value,
    }));
  }

  function putBack(field, value) {
    if (field.startsWith("score-")) {
      form.querySelectorAll(`input[name="${field}"]`).forEach((i) => {
        i.checked = i.value === value;
      });
    } else if (field.startsWith("why-")) {
      const text = form.querySelector(`textarea[name="${field}"]`);
      if (text) {
        text.value = value;
        const details = text.closest("details");
        if (details && value) details.open = true;
      }
    } else if (field === "flags") {
      form.querySelectorAll("input[name=flag]").forEach((i) => {
        i.checked = value.includes(i.value);
      });
    } else if (field === "comments") {
      commentList.replaceChildren();
      value.forEach(({ anchor, text }) => {
        const el = document.getElementById(anchor);
        const box = el ? commentBox(el) : null;
        if (box) box.querySelector("textarea").value = text;
      });
      markCommented();
    }
  }

  function readStore() {
    try {
      return JSON.parse(localStorage.getItem(storeKey) || "{}") || {};
    } catch (error) {
      return {};
    }
  }

  function writeStore() {
    try {
      if (Object.keys(pending).length) localStorage.setItem(storeKey, JSON.stringify(pending));
      else localStorage.removeItem(storeKey);
    } catch (error) {
      // storage full or disabled: the page and the page-hide save still hold the edit
    }
  }

  function stampEdit(field) {
    clock = Math.max(Date.now(), clock + 1);
    versions[field] = clock;
    pending[field] = { v: clock, value: valueOf(field) };
    writeStore();
  }

  function confirmed(sentVersions) {
    for (const [field, version] of Object.entries(sentVersions)) {
      if (pending[field] && pending[field].v <= version) delete pending[field];
    }
    writeStore();
  }

  // A save that reached the server after this page was rendered (the last page's page-hide
  // save, another tab): the server says so in its answer, and the form shows it.
  function takeFresher() {
    const el = document.getElementById("save-state");
    if (!el || !el.dataset.fresher) return;
    let newer;
    try {
      newer = JSON.parse(el.dataset.fresher);
    } catch (error) {
      return;
    }
    let changed = false;
    for (const [field, [version, value]] of Object.entries(newer)) {
      if (version <= Math.max(versions[field] || 0, serverVersions[field] || 0)) continue;
      if (pending[field] && pending[field].v >= version) continue;
      const empty = field === "flags" || field === "comments" ? [] : "";
      putBack(field, value === null ? empty : field.startsWith("score-") ? String(value) : value);
      serverVersions[field] = version;
      clock = Math.max(clock, version);
      changed = true;
    }
    if (changed) {
      savedSignature = signature(new FormData(form));
      refreshProgress();
      rows.forEach((row) => showHint(row));
    }
  }

  // Edits the server had not confirmed when the last page went away, newer than its copy.
  function replayStored() {
    let replayed = false;
    for (const [field, entry] of Object.entries(readStore())) {
      if (!entry || typeof entry.v !== "number" || entry.v <= (serverVersions[field] || 0)) continue;
      putBack(field, entry.value);
      versions[field] = entry.v;
      pending[field] = entry;
      clock = Math.max(clock, entry.v);
      replayed = true;
    }
    writeStore(); // drops what the server already has
    return replayed;
  }

  function signature(data) {
    const parts = [];
    for (const [key, value] of data.entries()) {
      if (!["active", "nonce", "csrfmiddlewaretoken", "versions"].includes(key)) {
        parts.push(`${key}=${value}`);
      }
    }
    return parts.join("&");
  }

  function showState(text, kind) {
    const el = document.getElementById("save-state");
    if (!el) return;
    el.textContent = text;
    el.classList.toggle("failed", kind === "failed");
    el.classList.toggle("saving", kind === "saving");
  }

  function showSaved() {
    if (savedAt === null) return;
    const seconds = Math.max(0, (Date.now() - savedAt) / 1000);
    let text;
    if (seconds < 5) text = "saved just now";
    else if (seconds < 60) text = `saved ${Math.floor(seconds)} s ago`;
    else if (seconds < 3600) text = `saved ${Math.floor(seconds / 60)} min ago`;
    else text = `saved at ${new Date(savedAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`;
    showState(text, "");
  }

  function refresh() {
    if (!failing && !inflight && changes <= savedChanges) showSaved();
  }

  function scheduleRetry(message) {
    failing = true;
    showState(message, "failed");
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => htmx.trigger(form, "retry-save"), retryDelay);
    retryDelay = Math.min(retryDelay * 2, 30000);
  }

  function stored(sent) {
    activeSeconds = Math.max(0, activeSeconds - sent.seconds);
    savedSignature = sent.signature;
    savedChanges = Math.max(savedChanges, sent.changes);
    savedAt = Date.now();
    failing = false;
    retryDelay = 2000;
    clearTimeout(retryTimer);
    confirmed(sent.versions);
    if (changes > savedChanges) showState("unsaved changes", "saving");
    else showSaved();
  }

  function wireAutosave() {
    const initial = document.getElementById("save-state");
    if (initial && initial.dataset.savedAt) savedAt = Date.parse(initial.dataset.savedAt);
    savedSignature = signature(new FormData(form));
    setInterval(refresh, 5000);
    refresh();

    // Captured on the document, so the version is set before htmx (listening on the form)
    // builds the request this same event triggers.
    const edited = (event) => {
      if (!form.contains(event.target)) return;
      const field = fieldOf(event.target);
      if (field) stampEdit(field);
      changes += 1;
      if (!inflight && !failing) showState("unsaved changes", "saving");
    };
    document.addEventListener("change", edited, true);
    document.addEventListener("input", edited, true);

    form.addEventListener("htmx:configRequest", (event) => {
      if (event.detail.elt !== form) return;
      const sig = signature(event.detail.formData);
      if (sig === savedSignature && !failing && !inflight) {
        event.preventDefault(); // the server already has exactly this
        savedChanges = changes;
        confirmed({ ...versions });
        refresh();
        return;
      }
      inflight = { seconds: activeSeconds, signature: sig, changes, versions: { ...versions } };
      event.detail.formData.set("active", String(activeSeconds));
      event.detail.formData.set("versions", JSON.stringify(versions));
      event.detail.formData.set("known", JSON.stringify({ ...serverVersions, ...versions }));
      if (!failing) showState("saving…", "saving");
    });

    form.addEventListener("htmx:beforeSwap", (event) => {
      const xhr = event.detail.xhr;
      if (xhr.responseURL && xhr.responseURL.includes("/accounts/login")) {
        event.detail.shouldSwap = false; // logged out: the login page is not a save state
      } else if (xhr.status === 400 || xhr.status === 409) {
        event.detail.shouldSwap = true; // the server's reason; retrying would not help
        event.detail.isError = false;
      }
    });

    form.addEventListener("htmx:afterRequest", (event) => {
      if (event.detail.elt !== form || !inflight) return;
      const xhr = event.detail.xhr;
      const status = xhr ? xhr.status : 0;
      const loggedOut = !!(xhr && xhr.responseURL && xhr.responseURL.includes("/accounts/login"));
      const sent = inflight;
      inflight = null;
      if (status === 200 && !loggedOut) {
        stored(sent);
        takeFresher();
      } else if (status === 400 || status === 409) {
        failing = false;
        clearTimeout(retryTimer); // the swapped-in message says why
      } else if (loggedOut || status === 403) {
        scheduleRetry("not saved — log in again in another tab; your answer stays here");
      } else {
        scheduleRetry("not saved — retrying");
      }
    });

    window.addEventListener("online", () => {
      if (changes > savedChanges) htmx.trigger(form, "retry-save");
    });

    // The last change of a page being closed still reaches the server; it may arrive after
    // the next page's GET, which the versions make harmless.
    window.addEventListener("pagehide", () => {
      if (submitting || !Object.keys(pending).length) return;
      const data = new FormData(form);
      data.set("active", String(activeSeconds));
      data.set("versions", JSON.stringify(versions));
      try {
        fetch(form.getAttribute("hx-post"), {
          method: "POST",
          body: data,
          keepalive: true,
          credentials: "same-origin",
        });
      } catch (error) {
        // too large for keepalive: localStorage still holds the edit for the next load
      }
    });
    // While the server cannot be reached, leaving would lose the change: ask first.
    window.addEventListener("beforeunload", (event) => {
      if (!submitting && failing && changes > savedChanges) {
        event.preventDefault();
        event.returnValue = "";
      }
    });

    if (replayStored()) {
      changes += 1;
      showState("unsaved changes", "saving");
      refreshProgress();
      rows.forEach((row) => showHint(row));
      // htmx wires the form on DOMContentLoaded; ask it to send once it has.
      const send = () => setTimeout(() => htmx.trigger(form, "retry-save"), 0);
      if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", send);
      else send();
    }
  }

  // --- the form ----------------------------------------------------------------------------

  function wireForm() {
    if (editable) {
      setInterval(() => {
        if (document.visibilityState === "visible" && document.hasFocus()) activeSeconds += 1;
      }, 1000);
    }
    form.addEventListener("focusin", (event) => {
      const row = event.target.closest(".dim");
      if (row) setFocus(rows.indexOf(row), { scroll: false, dom: false });
    });
    form.addEventListener("mouseover", (event) => {
      const label = event.target.closest(".score");
      const row = label && label.closest(".dim");
      if (row && row.classList.contains("focused")) showHint(row, label.dataset.level);
    });
    form.addEventListener("mouseout", (event) => {
      const label = event.target.closest(".score");
      const row = label && label.closest(".dim");
      if (row) showHint(row);
    });
    form.addEventListener("change", (event) => {
      const row = event.target.closest(".dim");
      if (row) showHint(row);
      refreshProgress();
    });
    form.addEventListener("click", (event) => {
      const remove = event.target.closest("[data-action=remove-comment]");
      if (!remove) return;
      remove.closest(".comment").remove();
      markCommented();
      commentList.dispatchEvent(new Event("change", { bubbles: true }));
    });
    form.addEventListener("submit", (event) => {
      if (!editable) return;
      if (submitting) {
        event.preventDefault(); // a double click stores once anyway (nonce); send once too
        return;
      }
      if (demandMissing()) {
        event.preventDefault();
        return;
      }
      const reason = form.querySelector("textarea[name=reason]");
      if (reason && !reason.value.trim()) {
        event.preventDefault();
        say("Say why you are revising.");
        reason.focus();
        return;
      }
      submitting = true;
      form.querySelector("input[name=active]").value = String(activeSeconds);
      const sentVersions = form.querySelector("input[name=versions]");
      if (sentVersions) sentVersions.value = JSON.stringify(versions);
    });
    const missing = missingRows();
    setFocus(missing.length && missing.length < rows.length ? rows.indexOf(missing[0]) : 0, {
      scroll: false,
      dom: false,
    });
    const marked = rows.find((row) => row.classList.contains("missing"));
    if (marked) setFocus(rows.indexOf(marked), { scroll: true, dom: true });
    refreshProgress();
  }

  // --- the key map -------------------------------------------------------------------------

  function openKeymap() {
    if (!dialog) return;
    const holder = dialog.querySelector("[data-keymap-levels]");
    if (holder) {
      holder.replaceChildren();
      const row = rows[focusIndex];
      const levels = row && row.querySelector(".levels ol");
      if (levels) {
        const title = document.createElement("h3");
        title.textContent = `Levels of ${row.querySelector(".dim-label").textContent}`;
        holder.append(title, levels.cloneNode(true));
      }
    }
    dialog.showModal();
    dialog.focus(); // start at the top, not at the Close button below the anchors
    dialog.scrollTop = 0;
  }

  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-action=keymap]")) openKeymap();
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
    const target = event.target;
    if (isTyping(target)) {
      if (event.key === "Escape" && rows.length) {
        target.blur();
        setFocus(focusIndex);
      }
      return;
    }
    if (dialog && dialog.open) {
      if (event.key === "?") {
        event.preventDefault();
        dialog.close();
      }
      return;
    }
    if (event.key === "?") {
      event.preventDefault();
      openKeymap();
      return;
    }
    if (event.key === "Enter") {
      if (target.closest && target.closest("a, button, summary")) return; // their own Enter
      event.preventDefault();
      if (form) enter();
      else followContinue();
      return;
    }
    if (!rows.length) return;
    const row = rows[focusIndex];
    if (points.includes(event.key)) {
      if (!editable) return;
      event.preventDefault();
      if (score(row, event.key)) advance();
      return;
    }
    switch (event.key) {
      case "n":
      case "N":
        if (!editable) return;
        event.preventDefault();
        if (row.dataset.na === "1") {
          score(row, "na");
          advance();
        } else if (row.dataset.scored === "1") {
          const label = row.querySelector(".dim-label").textContent.trim();
          say(`${label} takes a score from ${span} here; N/A does not apply (see its levels).`);
        } else {
          say(`Realism takes a score from ${span}; it has no N/A.`);
        }
        break;
      case "u":
      case "b": {
        if (!editable) return;
        const flag = form.querySelector(`.flag[data-key="${event.key}"] input`);
        if (!flag) return;
        event.preventDefault();
        flag.checked = !flag.checked;
        flag.dispatchEvent(new Event("change", { bubbles: true }));
        break;
      }
      case "j":
      case "ArrowDown":
        event.preventDefault();
        setFocus(focusIndex + 1);
        break;
      case "k":
      case "ArrowUp":
        event.preventDefault();
        setFocus(focusIndex - 1);
        break;
      case "c":
        if (!editable) return;
        event.preventDefault();
        addComment(currentTurn || turnAtTop());
        break;
      default:
    }
  });

  // Edits never confirmed for a month belong to items long gone (submitted elsewhere,
  // reassigned): versions are edit times in ms, so their age is plain.
  function forgetStaleDrafts() {
    const monthAgo = Date.now() - 30 * 24 * 3600 * 1000;
    try {
      for (const key of Object.keys(localStorage)) {
        if (!key.startsWith("pab-draft:")) continue;
        const entries = Object.values(JSON.parse(localStorage.getItem(key) || "{}") || {});
        if (entries.every((entry) => !entry || entry.v < monthAgo)) localStorage.removeItem(key);
      }
    } catch (error) {
      // storage disabled or an entry not ours
    }
  }

  if (form) {
    forgetStaleDrafts();
    wireForm();
    wireThread();
    if (autosave && editable && window.htmx) wireAutosave();
    else if (!autosave && storeKey) {
      try {
        localStorage.removeItem(storeKey); // submitted: nothing left to replay
      } catch (error) {
        // storage disabled
      }
    }
  }
})();
