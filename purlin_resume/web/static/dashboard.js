// purlin-resume dashboard: revive buttons, live agent list, activity of live agents.
// Plain browser JavaScript, no library. Every change is a POST with the run's token header.
"use strict";
(function () {
  const token = document.querySelector('meta[name="purlin-token"]').content;
  let pending = 0;
  const activitySeen = new Map();
  const failed = new Map(); // agent id -> the last revive error, shown until a revive succeeds

  async function revive(button) {
    const id = button.dataset.revive;
    const card = button.closest(".card");
    const status = card.querySelector(".revive-status");
    button.disabled = true;
    pending += 1;
    status.className = "revive-status busy";
    status.textContent = "Reviving…";
    try {
      const answer = await fetch("api/agents/" + encodeURIComponent(id) + "/revive", {
        method: "POST",
        headers: { "X-Purlin-Token": token },
      });
      const body = await answer.json().catch(() => ({ error: "the dashboard gave no answer" }));
      if (!answer.ok) throw new Error(body.error || answer.statusText);
      failed.delete(id);
      status.className = "revive-status done";
      status.textContent = "Revived as " + body.successor;
      const holder = document.getElementById("revived");
      const html = document.createElement("template");
      html.innerHTML = body.card_html.trim();
      const added = html.content.firstElementChild;
      if (holder) holder.replaceChildren(added);
      else card.after(added);
      loadActivity(added);
    } catch (failure) {
      failed.set(id, String(failure.message || failure).split("\n")[0]);
      showFailures(document);
      button.disabled = false;
    } finally {
      pending -= 1;
    }
  }

  // A refresh redraws the cards: a revive error stays on its agent's card.
  function showFailures(root) {
    for (const [id, message] of failed) {
      const card = root.querySelector('.card[data-agent-id="' + CSS.escape(id) + '"]');
      if (!card) continue;
      let status = card.querySelector(".revive-status");
      if (!status) {
        status = document.createElement("p");
        card.append(status);
      }
      status.className = "revive-status error";
      status.textContent = message;
    }
  }

  async function loadActivity(root) {
    for (const cell of root.querySelectorAll("[data-activity]")) {
      const id = cell.dataset.activity;
      const known = activitySeen.get(id);
      if (known && Date.now() - known.at < 30000) { cell.textContent = known.text; continue; }
      try {
        const answer = await fetch("api/agents/" + encodeURIComponent(id) + "/activity");
        const body = await answer.json();
        const text = answer.ok
          ? body.verdict + " · confidence " + body.confidence.toFixed(2) +
            " (" + body.level + ") · last " + (body.last_activity || "never")
          : body.error;
        activitySeen.set(id, { at: Date.now(), text: text });
        cell.textContent = text;
      } catch (failure) {
        cell.textContent = "unknown";
      }
    }
  }

  async function poll(section) {
    if (pending === 0) {
      try {
        const answer = await fetch(section.dataset.poll);
        if (answer.ok) {
          const html = await answer.text();
          if (pending === 0 && html !== section.dataset.last) {
            section.dataset.last = html;
            section.innerHTML = html;
            showFailures(section);
            loadActivity(section);
          }
        }
      } catch (failure) { /* the server is gone or restarting: try again later */ }
    }
    setTimeout(() => poll(section), 3000);
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-revive]");
    if (button && !button.disabled) revive(button);
  });
  document.addEventListener("DOMContentLoaded", () => {
    loadActivity(document);
    const live = document.querySelector("[data-poll]");
    if (live) setTimeout(() => poll(live), 3000);
  });
})();
