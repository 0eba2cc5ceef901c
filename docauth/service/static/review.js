// The review page: keeps the API key in this tab only (sessionStorage), lists persons,
// sends the document to /v1/checks and shows the decision, reasons, fields and stages.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  let apiKey = sessionStorage.getItem("docauth-key") || "";

  function headers() {
    return { Authorization: "Bearer " + apiKey };
  }

  function text(tag, value, cls) {
    const el = document.createElement(tag);
    el.textContent = value === null || value === undefined ? "—" : String(value);
    if (cls) el.className = cls;
    return el;
  }

  async function errorMessage(response) {
    try {
      const body = await response.json();
      if (body && body.error) return body.error.code + ": " + body.error.message;
    } catch (e) { /* not JSON */ }
    return "HTTP " + response.status;
  }

  async function loadPersons() {
    const select = $("person");
    const status = $("key-status");
    const response = await fetch("/v1/persons?limit=1000", { headers: headers() });
    if (!response.ok) {
      status.textContent = "Key not accepted — " + (await errorMessage(response));
      status.className = "hint error";
      return false;
    }
    const body = await response.json();
    while (select.options.length > 1) select.remove(1);
    for (const p of body.persons) {
      const option = document.createElement("option");
      option.value = p.id;
      option.textContent = "#" + p.id + " " + p.surname + ", " + (p.given_names || "") +
        (p.date_of_birth ? " (" + p.date_of_birth + ")" : "");
      select.appendChild(option);
    }
    status.textContent = "Signed in. " + body.persons.length + " person(s) on record.";
    status.className = "hint ok";
    return true;
  }

  function detail(record) {
    if (!record) return "";
    if (record.note) return record.note;
    const out = record.output || {};
    if ("distance" in out) return "distance " + Number(out.distance).toFixed(3) + " (threshold " + out.threshold + ")";
    if ("document_score" in out) return (out.is_document ? "document" : "not a document") +
      " " + Number(out.document_score).toFixed(3) + (out.side ? ", side " + out.side : "");
    if (Array.isArray(out.matches)) return out.matches.length + " other person(s) within threshold";
    if ("face_found" in out) return out.face_found ? "face found" : "no face found";
    if ("score" in out) return "score " + out.score;
    return "";
  }

  function show(result) {
    $("result").classList.remove("hidden");
    const decision = $("decision");
    decision.textContent = result.decision.toUpperCase();
    decision.className = "decision " + result.decision;
    decision.dataset.decision = result.decision;

    const reasons = $("reasons");
    reasons.replaceChildren();
    if (result.reasons.length === 0) reasons.appendChild(text("li", "No issues found."));
    for (const r of result.reasons) {
      const li = document.createElement("li");
      li.className = "reason " + r.severity;
      li.dataset.code = r.code;
      li.appendChild(text("code", r.code));
      li.appendChild(text("span", " " + r.message));
      reasons.appendChild(li);
    }

    const fields = $("fields").tBodies[0];
    fields.replaceChildren();
    for (const [name, value] of Object.entries(result.fields || {})) {
      const tr = document.createElement("tr");
      tr.appendChild(text("th", name));
      tr.appendChild(text("td", value));
      fields.appendChild(tr);
    }
    if (!fields.rows.length) {
      const tr = document.createElement("tr");
      tr.appendChild(text("td", "no fields read"));
      fields.appendChild(tr);
    }

    const stages = $("stages").tBodies[0];
    stages.replaceChildren();
    for (const [name, record] of Object.entries(result.stages)) {
      const tr = document.createElement("tr");
      tr.dataset.stage = name;
      tr.appendChild(text("td", name));
      tr.appendChild(text("td", record.status, "status " + record.status));
      const ms = result.timings_ms[name];
      tr.appendChild(text("td", ms === undefined ? "" : ms.toFixed(1)));
      tr.appendChild(text("td", detail(record)));
      stages.appendChild(tr);
    }
    $("raw").textContent = JSON.stringify(result, null, 2);
  }

  // The review desk: the queue of checks decided "review", and the clerk's decision on the one shown.
  let shownCheck = null;

  function showDesk(result) {
    shownCheck = result.check_id || null;
    $("result-check").textContent = shownCheck ? "(check #" + shownCheck + ")" : "";
    $("desk").classList.toggle("hidden", !shownCheck || result.decision !== "review");
    const last = (result.reviews || []).slice(-1)[0];
    $("desk-status").textContent = last ? describeReview(last) : "";
  }

  function describeReview(r) {
    return "Decided: " + r.decision + " by " + r.reviewer + " at " + r.decided_at;
  }

  async function loadQueue() {
    const status = $("queue-status");
    const response = await fetch("/v1/reviews?limit=100", { headers: headers() });
    if (!response.ok) {
      status.textContent = "Queue unavailable — " + (await errorMessage(response));
      status.className = "hint error";
      return;
    }
    const body = await response.json();
    const list = $("queue");
    list.replaceChildren();
    for (const c of body.checks) {
      const li = document.createElement("li");
      const open = text("button", "Check #" + c.check_id + " — " + c.reasons.join(", "));
      open.type = "button";
      open.dataset.checkId = c.check_id;
      open.addEventListener("click", () => openCheck(c.check_id));
      li.appendChild(open);
      list.appendChild(li);
    }
    status.textContent = body.checks.length + " check(s) waiting.";
    status.className = "hint ok";
  }

  async function openCheck(id) {
    const response = await fetch("/v1/checks/" + id, { headers: headers() });
    if (!response.ok) {
      $("queue-status").textContent = "Cannot open check #" + id + " — " + (await errorMessage(response));
      $("queue-status").className = "hint error";
      return;
    }
    const result = await response.json();
    $("preview").removeAttribute("src");
    show(result);
    showDesk(result);
  }

  for (const button of document.querySelectorAll("#desk button")) {
    button.addEventListener("click", async () => {
      if (!shownCheck) return;
      const status = $("desk-status");
      const response = await fetch("/v1/checks/" + shownCheck + "/review", {
        method: "POST", headers: { ...headers(), "Content-Type": "application/json" },
        body: JSON.stringify({ decision: button.dataset.decision }),
      });
      if (!response.ok) {
        status.textContent = "Not stored — " + (await errorMessage(response));
        status.className = "hint error";
        return;
      }
      status.textContent = describeReview(await response.json());
      status.className = "hint ok";
      status.dataset.decided = button.dataset.decision;
      await loadQueue();
    });
  }

  $("refresh-queue").addEventListener("click", loadQueue);

  $("save-key").addEventListener("click", async () => {
    apiKey = $("api-key").value.trim();
    sessionStorage.setItem("docauth-key", apiKey);
    if (await loadPersons()) await loadQueue();
  });

  $("image").addEventListener("change", () => {
    const file = $("image").files[0];
    if (file) $("preview").src = URL.createObjectURL(file);
  });

  $("check-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const status = $("check-status");
    const file = $("image").files[0];
    if (!file) return;
    const form = new FormData();
    form.append("image", file);
    if ($("person").value) form.append("person_id", $("person").value);
    status.textContent = "Checking…";
    status.className = "hint";
    $("run-check").disabled = true;
    try {
      const response = await fetch("/v1/checks", { method: "POST", headers: headers(), body: form });
      if (!response.ok) {
        status.textContent = "Failed — " + (await errorMessage(response));
        status.className = "hint error";
        return;
      }
      const result = await response.json();
      status.textContent = "Done in " + result.timings_ms.total.toFixed(0) + " ms (request " + result.request_id + ").";
      status.className = "hint ok";
      show(result);
      showDesk(result);
      await loadQueue();
    } catch (e) {
      status.textContent = "Network error: " + e;
      status.className = "hint error";
    } finally {
      $("run-check").disabled = false;
    }
  });

  if (apiKey) {
    $("api-key").value = apiKey;
    loadPersons().then((ok) => ok && loadQueue());
  }
})();
