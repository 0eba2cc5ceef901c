// The review page: keeps the API key in this tab only (sessionStorage), lists persons,
// sends the document to /v1/checks and shows the decision, reasons, fields and stages; for a check waiting
// for a clerk, the upright rectified document with its MRZ, face and field boxes, the fields beside the
// person's record (differences marked) and the enrolled photo beside the document's portrait.
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

    showFields(result.fields || {}, null);
    showFaceDistance(result);

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

  // The fields read beside the person's record; a row whose values differ is marked.
  const RECORD_OF = { surname: "surname", given_names: "given_names", date_of_birth: "date_of_birth",
    document_number: "document_number", nationality: "nationality", sex: "sex", expiry_date: "document_expiry" };

  function same(a, b) {
    const norm = (v) => String(v).toUpperCase().replace(/[^A-Z0-9]/g, "");
    return norm(a) === norm(b);
  }

  function showFields(fields, record) {
    const body = $("fields").tBodies[0];
    body.replaceChildren();
    const names = Object.keys(fields).filter((n) => fields[n] !== null && fields[n] !== "" && !n.endsWith("_raw"));
    if (record) for (const n of Object.keys(RECORD_OF)) if (record[RECORD_OF[n]] && !names.includes(n)) names.push(n);
    for (const name of names) {
      const tr = document.createElement("tr");
      tr.dataset.field = name;
      const mine = fields[name];
      const theirs = record ? record[RECORD_OF[name]] : undefined;
      tr.appendChild(text("th", name));
      tr.appendChild(text("td", mine, "document"));
      tr.appendChild(text("td", record ? theirs : "", "record"));
      if (record && mine && theirs && !same(mine, theirs)) tr.classList.add("differs");
      body.appendChild(tr);
    }
    if (!body.rows.length) {
      const tr = document.createElement("tr");
      tr.appendChild(text("td", "no fields read"));
      body.appendChild(tr);
    }
  }

  function showFaceDistance(result) {
    const face = (result.stages.face || {}).output || {};
    const out = $("face-distance");
    if (typeof face.distance === "number") {
      const sameFace = face.distance <= face.threshold;
      out.textContent = "Face distance " + face.distance.toFixed(3) + " (threshold " + face.threshold + "): " +
        (sameFace ? "the same person" : "a different person");
      out.className = "hint " + (sameFace ? "ok" : "error");
    } else {
      out.textContent = face.face_found === false ? "No face was found on the document." :
        (result.stages.face && result.stages.face.note) || "";
      out.className = "hint";
    }
  }

  async function authorisedBlob(url) {
    const response = await fetch(url, { headers: headers() });
    return response.ok ? URL.createObjectURL(await response.blob()) : null;
  }

  function drawBox(view, geometry, box, kind, label) {
    if (!box) return;
    const el = document.createElement("div");
    el.className = "box " + kind;
    el.dataset.kind = kind;
    if (label) el.dataset.label = label;
    el.style.left = (100 * box[0] / geometry.width) + "%";
    el.style.top = (100 * box[1] / geometry.height) + "%";
    el.style.width = (100 * (box[2] - box[0]) / geometry.width) + "%";
    el.style.height = (100 * (box[3] - box[1]) / geometry.height) + "%";
    el.appendChild(text("span", label || kind));
    view.appendChild(el);
  }

  function drawPortrait(img, geometry) {
    const canvas = $("portrait");
    const ctx = canvas.getContext("2d");
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const box = geometry && geometry.face;
    if (!box) return false;
    const sx = img.naturalWidth / geometry.width, sy = img.naturalHeight / geometry.height;
    ctx.drawImage(img, box[0] * sx, box[1] * sy, (box[2] - box[0]) * sx, (box[3] - box[1]) * sy,
      0, 0, canvas.width, canvas.height);
    canvas.dataset.drawn = "true";
    return true;
  }

  // The document as the pipeline saw it (kept only while the check waits for a clerk), with its boxes.
  async function showDocument(result) {
    const view = $("document-view");
    for (const old of view.querySelectorAll(".box")) old.remove();
    view.classList.add("hidden");
    delete $("portrait").dataset.drawn;
    const geometry = result.geometry;
    if (!result.check_id || !geometry) return;
    const url = await authorisedBlob("/v1/checks/" + result.check_id + "/document.jpg");
    if (!url) return;
    const img = $("document-image");
    const loaded = await new Promise((resolve) => {
      img.onload = () => resolve(true);
      img.onerror = () => resolve(false);
      img.src = url;
    });
    if (!loaded) {
      $("document-caption").textContent = "The document kept for this check could not be shown";
      return;
    }
    drawBox(view, geometry, geometry.mrz, "mrz", "MRZ");
    drawBox(view, geometry, geometry.face, "face", "face");
    for (const [name, box] of Object.entries(geometry.fields || {})) drawBox(view, geometry, box, "field", name);
    drawPortrait(img, geometry);
    view.classList.remove("hidden");
    $("preview").classList.add("hidden");
    $("document-caption").textContent = "The document, upright and rectified, as it was read";
  }

  // The person the check is about: their record beside the fields, their enrolled photo beside the portrait.
  async function showPerson(result) {
    const photo = $("enrolled-photo");
    photo.removeAttribute("src");
    const id = result.person_id || result.claimed_person_id;
    if (!id) return;
    const response = await fetch("/v1/persons/" + id, { headers: headers() });
    if (response.ok) showFields(result.fields || {}, await response.json());
    const url = await authorisedBlob("/v1/persons/" + id + "/photo.jpg");
    if (url) photo.src = url;
  }

  async function openResult(result) {
    show(result);
    showDesk(result);
    await Promise.all([showDocument(result), showPerson(result)]);
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
    await openResult(result);
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
      $("preview").classList.remove("hidden");
      $("document-caption").textContent = "Submitted image";
      await openResult(result);
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
