// vacheck explore: the page. The state of the page is its URL:
// ?spec=NAME&init=K&path=a.b.c&at=N shows the state after the first N
// steps of the path from initial state K (N defaults to the whole path).
"use strict";

const $ = (id) => document.getElementById(id);
const el = (tag, props, ...kids) => {
  const e = document.createElement(tag);
  if (props) for (const [k, v] of Object.entries(props)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of kids) if (c != null) e.append(c);
  return e;
};

// loc.sample, when not null, is the seed that drew the initial state (a
// random run's: run 0 of vacheck simulate --seed S), in place of init.
const loc = { spec: "", init: 0, sample: null, path: [], at: 0 };
let model = null;       // /api/model
let view = null;        // /api/state of the state shown
let labels = [];        // labels of the whole path, as far as known
let serial = 0;         // of state requests, so that a late answer is dropped
let clickedAt = 0;      // performance.now() of the last transition clicked
let graph = null;       // /api/graph

function readURL() {
  const q = new URLSearchParams(location.search);
  loc.spec = q.get("spec") || "";
  loc.init = Math.max(0, parseInt(q.get("init") || "0", 10) || 0);
  const s = q.get("sample");
  loc.sample = s === null || s === "" ? null : Math.max(0, parseInt(s, 10) || 0);
  const p = q.get("path") || "";
  loc.path = p === "" ? [] : p.split(/[.,]/).map((x) => parseInt(x, 10)).filter((x) => x >= 0);
  const at = q.get("at");
  loc.at = at === null ? loc.path.length : Math.min(loc.path.length, Math.max(0, parseInt(at, 10) || 0));
}

// originQ is the query naming the initial state of the path.
function originQ() {
  return loc.sample !== null ? "sample=" + loc.sample : "init=" + loc.init;
}

// originName names the initial state of the path.
function originName() {
  return loc.sample !== null ? "initial state drawn with seed " + loc.sample : "initial state #" + (loc.init + 1);
}

function urlOf(l) {
  const q = new URLSearchParams();
  if (l.spec) q.set("spec", l.spec);
  if (l.sample !== null) q.set("sample", String(l.sample));
  else q.set("init", String(l.init));
  if (l.path.length) q.set("path", l.path.join("."));
  if (l.at !== l.path.length) q.set("at", String(l.at));
  return "?" + q.toString();
}

function go(replace) {
  const u = urlOf(loc);
  if (u !== location.search) {
    if (replace) history.replaceState(null, "", u);
    else history.pushState(null, "", u);
  }
  return loadState();
}

async function api(path, opts) {
  const r = await fetch(path, opts);
  let body = null;
  try { body = await r.json(); } catch (e) { body = { error: r.status + " " + r.statusText }; }
  if (!r.ok) {
    const err = new Error(body && body.error ? body.error : r.statusText);
    err.body = body;
    err.status = r.status;
    throw err;
  }
  return body;
}

function say(text, cls) {
  const m = $("message");
  m.textContent = text || "";
  m.className = cls || "";
}

function specQ() { return loc.spec ? "spec=" + encodeURIComponent(loc.spec) + "&" : ""; }

async function loadModel() {
  model = await api("/api/model?" + specQ());
  document.title = "vacheck explore: " + model.spec + " " + model.params;
  $("spec").textContent = model.spec;
  $("params").textContent = model.params;
  const bug = $("bug");
  bug.hidden = !model.bug;
  bug.textContent = model.bug ? "broken on purpose: " + model.bug : "";
  const sel = $("models");
  sel.replaceChildren();
  for (const m of model.models) sel.append(el("option", { value: m.spec, text: m.spec, selected: m.spec === model.spec }));
  sel.hidden = model.models.length < 2;
  $("initial-count").textContent = "(" + model.initial + (model.initial_more ? "+" : "") + ")";
  $("trace-given").hidden = !model.trace;
  $("channel-kind").textContent = {
    unordered: "(unordered: bags, any message may be received first)",
    mailbox: "(mailboxes: one per receiver, any message may be received first; i:v is v sent by i)",
  }[model.channels] || "(FIFO: received from the head)";
  graph = null;
}

async function loadState() {
  const mine = ++serial;
  const prefix = loc.path.slice(0, loc.at);
  let v;
  try {
    v = await api("/api/state?" + specQ() + originQ() + "&path=" + prefix.join("."));
  } catch (e) {
    if (mine === serial) say(e.message, "bad");
    return;
  }
  if (mine !== serial) return;
  view = v;
  // Keep the labels of the future steps we know of.
  for (let k = 0; k < v.labels.length; k++) labels[k] = v.labels[k];
  labels.length = Math.max(v.labels.length, Math.min(labels.length, loc.path.length));
  render();
  if (labels.length < loc.path.length) fillLabels(mine);
}

// fillLabels fetches the labels of the steps after the current one (after
// a reload of a URL with at=), for the history.
async function fillLabels(mine) {
  try {
    const all = await api("/api/state?" + specQ() + originQ() + "&path=" + loc.path.join("."));
    if (mine !== serial) return;
    labels = all.labels.slice();
    renderHistory(view);
  } catch (e) {
    // The history keeps the action indices.
  }
}

function render() {
  const v = view;
  renderProps(v);
  renderProcs(v);
  renderChannels(v);
  renderGlobals(v);
  renderEnabled(v);
  renderHistory(v);
  renderChart(v);
  renderGraphMark();
  document.body.dataset.at = String(loc.at);
  document.body.dataset.steps = String(v.path.length);
  document.body.dataset.deadlock = String(v.deadlock);
  const n = Number(document.body.dataset.render || "0") + 1;
  document.body.dataset.render = String(n);
  if (clickedAt) {
    const t0 = clickedAt;
    clickedAt = 0;
    // Two frames: the second runs once the first has been painted.
    requestAnimationFrame(() => requestAnimationFrame(() => {
      document.body.dataset.paintMs = (performance.now() - t0).toFixed(1);
    }));
  }
}

function renderProps(v) {
  const t = $("props");
  t.replaceChildren();
  for (const p of v.properties) {
    const st = { holds: "holds", violated: "VIOLATED", reached: "goal holds", pending: "not yet" }[p.status] || p.status;
    t.append(el("tr", { class: p.status + (p.claim ? " claim" : ""), "data-prop": p.name, title: p.kind + (p.claim ? ", claimed by the spec" : "") },
      el("td", { class: "name", text: p.name }), el("td", { class: "st", text: st }),
      el("td", { class: "doc", text: p.doc + (p.detail ? " — " + p.detail : "") })));
  }
  const m = $("metrics");
  m.replaceChildren();
  for (const x of v.metrics) m.append(el("span", { title: x.doc }, x.name + " ", el("b", { text: x.text || String(x.value) })));
  const ex = $("explanation");
  ex.hidden = !(v.explanation && v.explanation.length);
  ex.replaceChildren();
  if (!ex.hidden) {
    ex.append(el("h3", { text: "What this state means" }));
    const ul = el("ul");
    for (const l of v.explanation) ul.append(el("li", { text: l }));
    ex.append(ul);
  }
}

function actorOfLast(v) {
  if (!v.labels.length) return 0;
  // a shared action names every participant, its actor first: tick_{1,2,3}
  const m = /_\{(\d+)(?:,(\d+))?(?:,\d+)*\}$/.exec(v.labels[v.labels.length - 1]);
  if (!m) return 0;
  return v.labels[v.labels.length - 1].startsWith("receive") && m[2] ? Number(m[2]) : Number(m[1]);
}

function renderProcs(v) {
  const box = $("procs");
  box.replaceChildren();
  const actor = actorOfLast(v);
  $("state-title").textContent = v.path.length ? "after step " + v.path.length + ": " + v.labels[v.labels.length - 1] : (v.sample !== undefined ? "initial state drawn with seed " + v.sample : "initial state #" + (v.init + 1));
  for (const p of v.processes) {
    const rows = el("table");
    for (const x of p.vars) {
      rows.append(el("tr", { class: x.changed ? "chg" : "", title: x.changed ? "changed by the last step" : "" },
        el("td", { text: x.name }), el("td", null, x.changed ? el("span", { class: "old", text: x.old || "(none)" }) : null, x.value)));
    }
    box.append(el("div", { class: "proc" + (p.crashed ? " crashed" : "") + (p.id === actor ? " acting" : ""), "data-proc": String(p.id) },
      el("h3", { text: "p" + p.id + (p.crashed ? " (crashed)" : "") }), rows));
  }
}

function renderChannels(v) {
  const box = $("channels");
  box.replaceChildren();
  for (const c of v.channels) {
    const msgs = el("span", { class: "msgs" });
    if (!c.messages.length) msgs.append(el("span", { class: "empty", text: "empty" }));
    c.messages.forEach((m, k) => {
      const ready = m.action >= 0;
      const over = ready && !c.fifo && m.ahead > 0 && m.sent >= 0;
      let title = ready ? "can be received now: click to receive it" : (c.fifo ? "behind the head: received after the messages before it" : "cannot be received now");
      if (m.sent >= 0) title = "sent in step " + m.sent + "; " + title;
      if (over) title += " (ahead of the " + m.ahead + " sent before it" + (c.mailbox ? " by the same process" : "") + ": it overtakes them)";
      const chip = el("span", { class: "m" + (ready ? " ready" : "") + (over ? " over" : ""), text: m.value, title });
      if (ready) chip.addEventListener("click", () => take(m.action));
      msgs.append(chip);
    });
    const kids = [el("span", { class: "cname", text: c.mailbox ? "mailbox of " + c.to : c.from + " → " + c.to }), msgs];
    if (c.fifo && c.messages.length) kids.push(el("span", { class: "head", text: "◀ head" }));
    box.append(el("div", { class: "chan " + (c.fifo ? "fifo" : "bag") + (c.changed ? " changed" : ""), "data-chan": c.name, title: c.name }, ...kids));
  }
}

function renderGlobals(v) {
  const t = $("globals");
  t.replaceChildren();
  for (const x of v.globals) {
    t.append(el("tr", { class: x.changed ? "chg" : "" }, el("td", { text: x.name }),
      el("td", null, x.changed ? el("span", { class: "old", text: x.old || "(none)" }) : null, x.value)));
  }
}

function renderEnabled(v) {
  const box = $("enabled");
  box.replaceChildren();
  if (!v.enabled.length || v.terminal) {
    box.append(el("p", { class: "none" + (v.deadlock ? " bad" : ""), text: v.deadlock ? "DEADLOCK: no transition is enabled, and this is not a valid end state." : "A terminal state: no transition is enabled (a valid end state)." }));
  }
  const groups = new Map();
  for (const a of v.enabled) {
    const g = a.process > 0 ? "process p" + a.process : "other";
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push(a);
  }
  for (const [g, acts] of groups) {
    const grp = el("div", { class: "grp" }, el("h4", { text: g }));
    for (const a of acts) {
      grp.append(el("button", { class: "act" + (a.fault ? " fault" : ""), "data-index": String(a.index), text: a.label, title: a.fault ? "a fault (the environment's)" : "take this transition", onclick: () => take(a.index) }));
    }
    box.append(grp);
  }
}

function renderHistory(v) {
  const ol = $("history");
  ol.replaceChildren();
  const mk = (k, text) => {
    const li = el("li", { class: (k === loc.at ? "cur" : "") + (k > loc.at ? " future" : "") + (cycleStart >= 0 && k > cycleStart ? " cycle" : ""), "data-step": String(k), text, onclick: () => jump(k) });
    ol.append(li);
  };
  mk(0, originName());
  for (let k = 1; k <= loc.path.length; k++) mk(k, labels[k - 1] || "#" + loc.path[k - 1]);
  $("position").textContent = "step " + loc.at + " / " + loc.path.length;
  $("back").disabled = loc.at === 0;
  $("forward").disabled = loc.at >= loc.path.length;
  const cur = ol.querySelector("li.cur");
  if (cur) cur.scrollIntoView({ block: "nearest" });
}

function renderChart(v) {
  const box = $("chart");
  box.innerHTML = v.chart || ""; // the server's SVG: every value in it is escaped
  const from = v.chart_from || 0; // the step of the chart's row 0
  $("chart-from").textContent = from > 0 ? "(the last " + (loc.at - from) + " steps: row 0 is the state after step " + from + ")" : "";
  const rows = box.querySelectorAll("svg .row");
  rows.forEach((r) => {
    const k = from + Number(r.getAttribute("data-step"));
    if (k === loc.at) r.classList.add("cur");
    r.addEventListener("click", () => jump(k));
  });
  box.querySelectorAll("svg .lbl").forEach((l) => { if (from + Number(l.getAttribute("data-step")) === loc.at) l.classList.add("cur"); });
  box.scrollTop = box.scrollHeight;
}

let cycleStart = -1;

function take(a) {
  clickedAt = performance.now();
  loc.path = loc.path.slice(0, loc.at).concat([a]);
  labels.length = loc.at;
  loc.at = loc.path.length;
  cycleStart = -1;
  say("");
  return go(false);
}

function jump(k) {
  if (k < 0 || k > loc.path.length || k === loc.at) return;
  loc.at = k;
  return go(false);
}

function setPath(ref, note) {
  loc.spec = ref.spec || loc.spec;
  loc.init = ref.init;
  loc.sample = ref.sample === undefined ? null : ref.sample;
  loc.path = ref.path.slice();
  loc.at = loc.path.length;
  labels = [];
  cycleStart = ref.cycle_start === undefined ? -1 : ref.cycle_start;
  say(note, ref.property ? "bad" : "good");
  return loadModel().then(() => go(false));
}

async function runToViolation() {
  const b = $("run-violation");
  b.disabled = true;
  say("checking " + model.spec + " " + model.params + " …");
  try {
    const r = await api("/api/check?" + specQ(), { method: "POST" });
    if (r.shortest < 0) {
      say("check: " + r.status + (r.reason ? " (" + r.reason + ")" : "") + ", " + r.states + " states: no counterexample", r.status === "ok" ? "good" : "");
    } else {
      const v = r.violations[r.shortest];
      await setPath(v, "loaded the shortest counterexample: " + v.property + " violated in " + v.path.length + " steps (" + r.states + " states checked)");
    }
  } catch (e) {
    say(e.message, "bad");
  } finally {
    b.disabled = false;
  }
}

// randomRun does a new random run, run 0 of vacheck simulate --seed S (its
// initial state drawn, then uniform steps), or with "from here" checked
// extends the path by a seeded random walk.
async function randomRun() {
  const seed = Math.max(0, parseInt($("seed").value || "1", 10) || 0);
  const here = $("random-here").checked;
  try {
    const r = here
      ? await api("/api/random?" + specQ() + originQ() + "&path=" + loc.path.slice(0, loc.at).join(".") + "&seed=" + seed)
      : await api("/api/random?" + specQ() + "new=1&seed=" + seed);
    if (here) {
      labels.length = loc.at;
    } else {
      labels = [];
      loc.init = 0;
      loc.sample = r.sample;
    }
    loc.path = r.path;
    loc.at = r.path.length;
    cycleStart = -1;
    say((here ? "random steps (seed " + r.seed + ")" : "random run (seed " + r.seed + ", as vacheck simulate --seed " + r.seed + " does its first run)") + ": stopped at a " + ({ terminal: "terminal state", violation: "violation", steps: "step limit", bound: "state outside the constraint" }[r.stopped] || r.stopped), r.stopped === "violation" ? "bad" : "");
    $("seed").value = String(seed + 1);
    await go(false);
  } catch (e) {
    say(e.message, "bad");
  }
}

async function loadTraceFile(file) {
  try {
    const text = await file.text();
    const r = await api("/api/trace?" + specQ(), { method: "POST", body: text, headers: { "Content-Type": "application/json" } });
    await setPath(r, "loaded " + file.name + ": " + (r.property ? r.property + " violated, " : "") + r.path.length + " steps");
  } catch (e) {
    say(e.message, "bad");
  }
}

async function loadTraceGiven() {
  try {
    const r = await api("/api/trace");
    await setPath(r, "loaded the --trace file: " + (r.property ? r.property + " violated, " : "") + r.path.length + " steps");
  } catch (e) {
    say(e.message, "bad");
  }
}

// The initial-state chooser.
let initialOffsets = [0];
async function showInitial(offset) {
  $("initial-dialog").hidden = false;
  const q = $("initial-q").value;
  const list = $("initial-list");
  try {
    const r = await api("/api/initial?" + specQ() + "offset=" + offset + "&limit=20&q=" + encodeURIComponent(q));
    list.replaceChildren();
    for (const s of r.states) {
      list.append(el("li", { class: loc.sample === null && s.index === loc.init ? "cur" : "", "data-index": String(s.index), onclick: () => chooseInitial(s.index) },
        el("span", { class: "idx", text: "#" + (s.index + 1) }), s.summary));
    }
    if (!r.states.length) list.append(el("li", { text: "no initial state matches" }));
    $("initial-next").disabled = r.next < 0;
    $("initial-next").onclick = () => { initialOffsets.push(r.next); showInitial(r.next); };
    $("initial-prev").disabled = initialOffsets.length < 2;
    $("initial-info").textContent = (r.total >= 0 ? r.total + " initial states" : "scanned " + r.scanned) + (r.stopped ? "; " + r.stopped : "");
  } catch (e) {
    say(e.message, "bad");
  }
}

function chooseInitial(k) {
  $("initial-dialog").hidden = true;
  loc.init = k;
  loc.sample = null;
  loc.path = [];
  loc.at = 0;
  labels = [];
  cycleStart = -1;
  return go(false);
}

async function showGraph() {
  $("graph-dialog").hidden = false;
  const box = $("graph");
  if (!graph) {
    box.textContent = "drawing …";
    try {
      graph = await api("/api/graph?" + specQ());
    } catch (e) {
      box.textContent = e.message;
      $("graph-info").textContent = e.body && e.body.states ? "" : "";
      return;
    }
    box.innerHTML = graph.svg; // the server's SVG: every value in it is escaped
    $("graph-info").textContent = graph.states + " states, " + graph.edges + " transitions: click a state to go there (by a shortest path)";
    box.querySelectorAll("svg .node[data-node]").forEach((n) => {
      n.addEventListener("click", () => {
        const g = graph.nodes[Number(n.getAttribute("data-node"))];
        $("graph-dialog").hidden = true;
        loc.init = g.init;
        loc.sample = null;
        loc.path = g.path.slice();
        loc.at = loc.path.length;
        labels = [];
        go(false);
      });
    });
  }
  // The graph knows the state now (the server built it): ask again.
  await loadState();
}

function renderGraphMark() {
  const box = $("graph");
  box.querySelectorAll("svg .node.cur").forEach((n) => n.classList.remove("cur"));
  if (view && view.node >= 0) {
    const n = box.querySelector('svg .node[data-node="' + view.node + '"]');
    if (n) {
      n.classList.add("cur");
      if (!$("graph-dialog").hidden) n.scrollIntoView({ block: "center", inline: "center" });
    }
  }
}

function wire() {
  $("back").addEventListener("click", () => jump(loc.at - 1));
  $("forward").addEventListener("click", () => jump(loc.at + 1));
  $("run-violation").addEventListener("click", runToViolation);
  $("random").addEventListener("click", randomRun);
  $("trace-file").addEventListener("change", (e) => { if (e.target.files.length) loadTraceFile(e.target.files[0]); e.target.value = ""; });
  $("trace-given").addEventListener("click", loadTraceGiven);
  $("choose-initial").addEventListener("click", () => { initialOffsets = [0]; showInitial(0); });
  $("initial-close").addEventListener("click", () => { $("initial-dialog").hidden = true; });
  $("initial-prev").addEventListener("click", () => { initialOffsets.pop(); showInitial(initialOffsets[initialOffsets.length - 1]); });
  let timer = 0;
  $("initial-q").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => { initialOffsets = [0]; showInitial(0); }, 250); });
  $("show-graph").addEventListener("click", showGraph);
  $("graph-close").addEventListener("click", () => { $("graph-dialog").hidden = true; });
  $("models").addEventListener("change", (e) => {
    loc.spec = e.target.value;
    loc.path = [];
    loc.at = 0;
    labels = [];
    loadModel().then(() => go(false));
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "ArrowLeft") { jump(loc.at - 1); e.preventDefault(); }
    if (e.key === "ArrowRight") { jump(loc.at + 1); e.preventDefault(); }
    if (e.key === "Escape") { $("initial-dialog").hidden = true; $("graph-dialog").hidden = true; }
  });
  window.addEventListener("popstate", () => { const spec = loc.spec; readURL(); labels = []; (spec !== loc.spec ? loadModel() : Promise.resolve()).then(loadState); });
}

readURL();
wire();
loadModel().then(() => go(true)).catch((e) => say(e.message, "bad"));
