// The mcp-sim workbench page: plain DOM, no framework, no build step. Everything a world or the
// model says is put on the page as text (textContent), never as markup.
"use strict";

const $ = (id) => document.getElementById(id);
const view = { overview: null, world: null, episode: null, tool: null, toolPicks: 0, rawEdited: false, busy: false };
const tokens = {};  // episode id -> its token, for the episodes this page made

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function authToken() {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem("mcp-sim-token", decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname);
  }
  return sessionStorage.getItem("mcp-sim-token");
}
const operatorToken = authToken();

function say(text) { $("message").textContent = text || ""; }

async function api(method, path, body) {
  const headers = { "content-type": "application/json" };
  if (operatorToken) headers.authorization = "Bearer " + operatorToken;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) {
    let detail = response.statusText;
    try { const data = await response.json(); detail = data.message || data.error || detail; } catch (_) { /* not JSON */ }
    throw new Error(`${method} ${path}: ${response.status} ${detail}`);
  }
  return response;
}
const getJson = async (path) => (await api("GET", path)).json();
const postJson = async (path, body) => (await api("POST", path, body || {})).json();
const pretty = (value) => JSON.stringify(value, null, 2);

// --- worlds, files and episodes ------------------------------------------------------------

async function loadOverview() {
  view.overview = await getJson("/ui/api/overview");
  showProblems(view.overview.files);
  const select = $("world");
  select.replaceChildren(...view.overview.worlds.map((w) => el("option", { value: w.id }, w.title ? `${w.id} — ${w.title}` : w.id)));
  if (view.overview.worlds.length) await chooseWorld(view.overview.worlds[0].id);
  else say("No world loads: fix the problems below, then Reload worlds.");
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

async function reloadWorlds() {
  const before = view.overview.instance;
  const reply = await postJson("/ui/api/reload");
  showProblems(reply.files);
  say("");
  $("progress").textContent = "reloading the world files…";
  const deadline = Date.now() + 180000;
  for (;;) {
    await sleep(300);
    try {
      if ((await getJson("/ui/api/overview")).instance !== before) break;
    } catch (_) { /* the server is starting again */ }
    if (Date.now() > deadline) throw new Error("the workbench did not come back: see its terminal");
  }
  $("progress").textContent = "";
  $("episode").replaceChildren();
  $("calls").replaceChildren();
  $("verdict").hidden = true;
  $("result").replaceChildren(el("p", { class: "muted" }, "Reloaded: the world files as they are now (episodes from before are gone)."));
  await loadOverview();
}

function showProblems(files) {
  const broken = files.filter((f) => f.problems.length || f.changed);
  $("problems").hidden = broken.length === 0;
  $("problem-list").replaceChildren(...broken.map((f) => el("div", {},
    el("h3", {}, f.file, f.changed ? (f.problems.length ? " (changed)" : " (changed, loads: Reload worlds to use it)") : ""),
    el("ul", {}, f.problems.map((p) => el("li", { class: "problem" }, `${p.line}:${p.column}  ${p.path ? p.path + ": " : ""}${p.message}`))))));
}

async function chooseWorld(id) {
  view.world = view.overview.worlds.find((w) => w.id === id);
  $("world").value = id;
  $("tool-list").replaceChildren(...view.world.tools.map((tool) => el("li", {},
    el("button", { type: "button", "data-tool": tool.name, onclick: () => chooseTool(tool.name) },
      tool.name, el("span", { class: "effect" }, tool.effect)))));
  const tasks = view.world.tasks;
  $("task").replaceChildren(...tasks.map((t) => el("option", { value: t.name, title: t.description }, t.name)));
  $("task").disabled = $("verify").disabled = tasks.length === 0;
  // A tool the user picks while the episodes load stays picked: the first tool is only a default.
  const picks = view.toolPicks;
  const listing = await getJson("/episodes").catch(() => ({ episodes: [] }));
  const mine = listing.episodes.filter((e) => e.world === id);
  if (mine.length) fillEpisodes(mine.map((e) => e.id), mine[0].id);
  else await newEpisode();
  if (view.toolPicks === picks && view.world.tools.length) chooseTool(view.world.tools[0].name);
}

function fillEpisodes(ids, chosen) {
  $("episode").replaceChildren(...ids.map((id) => el("option", { value: id }, id.length > 14 ? id.slice(0, 12) + "…" : id)));
  chooseEpisode(chosen);
}

function episodeIds() { return [...$("episode").options].map((o) => o.value); }

async function newEpisode() {
  const made = await postJson("/episodes", { world: view.world.id });
  tokens[made.id] = made.token;
  fillEpisodes([...episodeIds(), made.id], made.id);
}

async function chooseEpisode(id) {
  view.episode = id;
  $("episode").value = id;
  $("verdict").hidden = true;
  await refreshEpisode();
}

async function refreshEpisode(selectStep) {
  const data = await getJson(`/ui/api/episodes/${view.episode}/calls`);
  const e = data.episode;
  $("episode-info").textContent = `version ${e.version} · ${e.steps} call${e.steps === 1 ? "" : "s"} · seed ${e.seed}${e.parent ? " · forked from " + e.parent.slice(0, 8) : ""}`;
  $("calls").replaceChildren(...data.calls.map((c) => el("li", { "data-step": c.step, class: c.step === selectStep ? "selected" : "", onclick: () => showStep(c.step) },
    el("span", { class: "step" }, `#${c.step}`), el("code", {}, c.tool), el("span", { class: "muted" }, summaryArgs(c.arguments)),
    badges(c))));
  if ($("state-box").open) await showState();
}

function summaryArgs(args) {
  const text = JSON.stringify(args);
  return text.length > 80 ? text.slice(0, 77) + "…" : text;
}

async function showState() {
  const data = await getJson(`/episodes/${view.episode}/state`);
  $("state-json").textContent = `version ${data.version}\n` + pretty(data.state);
}

// --- the call form, generated from the tool's input schema ----------------------------------

function chooseTool(name) {
  view.toolPicks = (view.toolPicks || 0) + 1;
  view.tool = view.world.tools.find((t) => t.name === name);
  for (const b of document.querySelectorAll("#tool-list button")) b.classList.toggle("selected", b.dataset.tool === name);
  $("tool-name").textContent = name;
  const hints = Object.entries(view.tool.annotations || {}).map(([k, v]) => `${k}: ${v}`).join(" · ");
  $("tool-description").replaceChildren(view.tool.description || "", hints ? el("small", { class: "hints" }, hints) : "");
  const schema = view.tool.input_schema || {};
  const required = new Set(schema.required || []);
  const fields = Object.entries(schema.properties || {}).map(([arg, spec]) => field(arg, spec || {}, required.has(arg)));
  $("call-form").replaceChildren(...fields);
  view.rawEdited = false;
  syncRaw();
  $("call-button").disabled = false;
}

function field(name, spec, required) {
  const id = "arg-" + name;
  const type = Array.isArray(spec.type) ? spec.type.find((t) => t !== "null") : spec.type;
  let control;
  if (Array.isArray(spec.enum)) {
    control = el("select", { id }, required ? [] : [el("option", { value: "" }, "")], spec.enum.map((v) => el("option", { value: JSON.stringify(v) }, String(v))));
    control.dataset.kind = "enum";
  } else if (type === "boolean") {
    control = el("select", { id }, el("option", { value: "" }, ""), el("option", { value: "true" }, "true"), el("option", { value: "false" }, "false"));
    control.dataset.kind = "enum";
  } else if (type === "integer" || type === "number") {
    control = el("input", { id, type: "number", step: type === "integer" ? "1" : "any", min: spec.minimum, max: spec.maximum });
    control.dataset.kind = type;
  } else if (type === "string") {
    control = el("input", { id, type: "text", placeholder: spec.format || (spec.default !== undefined ? String(spec.default) : "") });
    control.dataset.kind = "string";
  } else {
    control = el("textarea", { id, rows: 3, placeholder: type === "array" ? "[ ... ] (JSON)" : "{ ... } (JSON)" });
    control.dataset.kind = "json";
  }
  control.dataset.arg = name;
  control.addEventListener("input", () => { view.rawEdited = false; syncRaw(); });
  return el("div", {}, el("label", { for: id }, name, required ? " *" : "", el("span", { class: "hint" }, spec.description || type || "")), control);
}

function formArguments() {
  const args = {};
  for (const control of $("call-form").querySelectorAll("[data-arg]")) {
    const raw = control.value;
    if (raw === "") continue;
    const kind = control.dataset.kind;
    if (kind === "string") args[control.dataset.arg] = raw;
    else if (kind === "integer" || kind === "number") args[control.dataset.arg] = Number(raw);
    else args[control.dataset.arg] = JSON.parse(raw);
  }
  return args;
}

function syncRaw() {
  try { $("raw-args").value = pretty(formArguments()); } catch (_) { /* a JSON field is being typed */ }
}

// --- a call, answered as it goes ------------------------------------------------------------

async function makeCall() {
  if (view.busy) return;
  let args;
  try { args = view.rawEdited ? JSON.parse($("raw-args").value || "{}") : formArguments(); } catch (e) { say("The arguments are not JSON: " + e.message); return; }
  view.busy = true;
  $("call-button").disabled = true;
  say("");
  $("progress").textContent = "calling…";
  try {
    const response = await api("POST", `/ui/api/episodes/${view.episode}/calls`, { tool: view.tool.name, arguments: args });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffered = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, cut);
        buffered = buffered.slice(cut + 1);
        if (line.trim()) await onLine(JSON.parse(line));
      }
    }
  } catch (e) {
    say(e.message);
  } finally {
    view.busy = false;
    $("call-button").disabled = false;
  }
}

async function onLine(line) {
  if (line.progress) {
    const p = line.progress;
    $("progress").textContent = `model: ${p.tokens} tokens${p.message ? " — " + p.message : ""}`;
  } else if (line.error) {
    $("progress").textContent = "";
    say(line.error);
  } else if (line.result) {
    $("progress").textContent = `answered: step ${line.result.step}, ${line.result.source}`;
    showTrace(line.trace || line.result);
    await refreshEpisode(line.result.step);
  }
}

async function showStep(step) {
  const trace = await getJson(`/ui/api/episodes/${view.episode}/calls/${step}`);
  for (const li of document.querySelectorAll("#calls li")) li.classList.toggle("selected", Number(li.dataset.step) === step);
  showTrace(trace);
}

// --- what a call did and what the model was shown -------------------------------------------

function badges(call) {
  const status = call.patch_status || "none";
  return el("span", { class: "badges" },
    el("span", { class: "badge" }, call.source),
    call.is_error ? el("span", { class: "badge error" }, "error") : null,
    status !== "none" ? el("span", { class: "badge " + status }, "patch " + status) : null,
    el("span", { class: "badge" }, call.version_after !== undefined && call.version_after !== call.version ? `v${call.version} → v${call.version_after}` : `v${call.version}`),
    (call.violations || []).length ? el("span", { class: "badge error" }, `${call.violations.length} violation(s)`) : null,
    (call.perturbations || []).length ? el("span", { class: "badge" }, "perturbed") : null,
    call.regenerated ? el("span", { class: "badge" }, "regenerated") : null,
    call.cache ? el("span", { class: "badge" }, "cache " + call.cache) : null);
}

function diffTable(rows) {
  const shown = (v) => v.absent ? el("span", { class: "muted" }, "(absent)") : el("code", {}, v.json + (v.cut ? ` … (${v.cut} chars)` : ""));
  return el("table", { class: "diff", id: "diff" },
    el("tr", {}, el("th", {}, "op"), el("th", {}, "path"), el("th", {}, "before"), el("th", {}, "after")),
    rows.map((r) => r.error
      ? el("tr", {}, el("td", {}, r.op), el("td", {}, el("code", {}, r.path)), el("td", { colspan: 2 }, "does not apply: " + r.error))
      : el("tr", {}, el("td", {}, r.op), el("td", {}, el("code", {}, r.from ? `${r.from} → ${r.path}` : r.path)),
        el("td", { class: "before" }, shown(r.before)), el("td", { class: "after" }, shown(r.after)))));
}

function stateChange(t) {
  const parts = [el("h3", {}, "State change")];
  if (t.patch_status === "committed") parts.push(el("p", {}, `committed: version ${t.version} → ${t.version_after}`), diffTable(t.diff || []));
  else if (t.patch_status === "rejected") {
    parts.push(el("p", { class: "badge rejected" }, "rejected: " + (t.patch_error || "")));
    if (t.patch) parts.push(el("details", { open: true }, el("summary", {}, "The rejected patch"), t.diff && t.diff.length ? diffTable(t.diff) : el("pre", {}, pretty(t.patch))));
  } else parts.push(el("p", { class: "muted" }, t.patch_status === "unchanged" ? "the call changed nothing" : "no change (a read, a fixture or an error)"));
  return parts;
}

function exchangeView(x, index, count) {
  const stateSections = x.turn.filter((s) => s.state);
  const otherSections = x.turn.filter((s) => !s.state);
  const title = (count > 1 ? `Model request ${index + 1} of ${count}` : "Model request") + `: ${x.purpose}`;
  return el("div", { class: "exchange" },
    el("h3", {}, title, x.cached ? " (from the answer cache)" : ""),
    stateSections.length
      ? stateSections.map((s) => el("details", { class: "state", open: true }, el("summary", {}, "Prompt: " + (s.heading || "state")), el("pre", { class: "state-section" }, s.text)))
      : el("p", { class: "muted" }, "no state section in this request (the history already holds the state)"),
    el("details", {}, el("summary", {}, "Prompt: the call's turn"), otherSections.map((s) => el("pre", {}, s.text))),
    el("details", {}, el("summary", {}, `Prompt: history (${x.history.length} messages)`), x.history.map((m) => el("pre", {}, `[${m.role}]\n${m.content}`))),
    el("details", {}, el("summary", {}, "Prompt: system"), el("pre", {}, x.system)),
    x.after.length ? el("details", {}, el("summary", {}, `Follow-up (${x.after.length} messages: repair, patch or regeneration)`), x.after.map((m) => el("pre", {}, `[${m.role}]\n${m.content}`))) : null,
    x.reasoning ? el("details", { open: true }, el("summary", {}, "Reasoning"), el("pre", { class: "reasoning" }, x.reasoning)) : null,
    el("details", {}, el("summary", {}, "The model's answer, raw"), el("pre", {}, x.answer)));
}

function showTrace(t) {
  const parts = [
    el("h2", {}, `Step ${t.step} · ${t.tool}`),
    badges(t),
    el("h3", {}, "Arguments"), el("pre", {}, pretty(t.arguments)),
    el("h3", {}, "Observation"), el("pre", { id: "observation" }, t.observation !== undefined ? t.observation : t.text),
  ];
  if (t.structured !== null && t.structured !== undefined) parts.push(el("h3", {}, "Structured content"), el("pre", {}, pretty(t.structured)));
  parts.push(...stateChange(t));
  if ((t.violations || []).length) parts.push(el("h3", {}, "Auditor violations"), el("ul", { class: "flags" }, t.violations.map((v) => el("li", {}, v))));
  if ((t.perturbations || []).length) parts.push(el("h3", {}, "Perturbations that fired"), el("ul", { class: "flags" }, t.perturbations.map((p) => el("li", {}, el("code", {}, JSON.stringify(p))))));
  if (t.traced === false) parts.push(el("p", { class: "muted" }, "This call was made before the workbench kept traces: its prompt is not known."));
  const exchanges = t.exchanges || [];
  if (t.traced !== false && !exchanges.length) parts.push(el("p", { class: "muted" }, "The model was not asked: " + t.source + "."));
  exchanges.forEach((x, i) => parts.push(exchangeView(x, i, exchanges.length)));
  parts.push(el("p", { class: "muted" }, `${t.prompt_tokens || 0} prompt + ${t.completion_tokens || 0} completion tokens${t.model ? " · " + t.model : ""}`));
  $("result").replaceChildren(...parts);
}

// --- episode buttons ------------------------------------------------------------------------

async function guarded(action) {
  say("");
  try { await action(); } catch (e) { say(e.message); }
}

function download(name, text) {
  const link = el("a", { href: URL.createObjectURL(new Blob([text], { type: "application/json" })), download: name });
  document.body.append(link);
  link.click();
  link.remove();
}

function showVerdict(v) {
  $("verdict").hidden = false;
  $("verdict").replaceChildren(
    el("h2", {}, `Verdict on ${v.task}: reward ${Number(v.reward).toFixed(2)}`),
    el("ul", { class: "flags" }, (v.checks || []).map((c) => el("li", {},
      c.passed === true ? "✔ " : c.passed === false ? "✘ " : "? ", el("b", {}, c.name), c.detail ? " — " + c.detail : "", c.reason ? " — " + c.reason : ""))));
}

function wire() {
  $("world").addEventListener("change", (e) => guarded(() => chooseWorld(e.target.value)));
  $("episode").addEventListener("change", (e) => guarded(() => chooseEpisode(e.target.value)));
  $("new-episode").addEventListener("click", () => guarded(newEpisode));
  $("call-button").addEventListener("click", () => makeCall());
  $("call-form").addEventListener("submit", (e) => { e.preventDefault(); makeCall(); });
  $("raw-args").addEventListener("input", () => { view.rawEdited = true; });
  $("state-box").addEventListener("toggle", () => $("state-box").open && guarded(showState));
  $("reset").addEventListener("click", () => guarded(async () => {
    await postJson(`/episodes/${view.episode}/reset`);
    $("result").replaceChildren(el("p", { class: "muted" }, "Reset: back to the world's start."));
    await refreshEpisode();
  }));
  $("snapshot").addEventListener("click", () => guarded(async () => {
    const text = await (await api("POST", `/episodes/${view.episode}/snapshot`, {})).text();
    download(`${view.world.id}-${view.episode.slice(0, 8)}.snapshot.json`, text);
  }));
  $("fork").addEventListener("click", () => guarded(async () => {
    const made = await postJson(`/episodes/${view.episode}/fork`);
    tokens[made.id] = made.token;
    fillEpisodes([...episodeIds(), made.id], made.id);
  }));
  $("verify").addEventListener("click", () => guarded(async () => showVerdict(await postJson(`/episodes/${view.episode}/verify`, { task: $("task").value }))));
  $("check").addEventListener("click", () => guarded(async () => showProblems((await postJson("/ui/api/check")).files)));
  $("reload").addEventListener("click", () => guarded(reloadWorlds));
}

wire();
guarded(loadOverview);
