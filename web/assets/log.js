// log.js - the capture log: one row per session, newest first, paged by
// the daemon's cursors, refreshed when the live stream reports a change.
"use strict";

const state = { cursors: [null], page: 0, next: null, loading: false, again: false };

function filters() {
  const q = new URLSearchParams();
  for (const [k, id] of [["outcome", "f-outcome"], ["host", "f-host"], ["label", "f-label"]]) {
    const v = document.getElementById(id).value.trim();
    if (v) q.set(k, v);
  }
  q.set("limit", document.getElementById("f-limit").value);
  return q;
}

// The call that broke a failed capture, from the captures of a cuda-mode
// session or the entry itself.
function brokeBy(e) {
  const out = [];
  for (const c of e.captures || []) {
    const inv = c.invalidated_by;
    if (inv) out.push((inv.call || inv.method) + (inv.cuda_name ? " (" + inv.cuda_name + ")" : ""));
    else if (c.outcome === "failed" && c.cuda_name) out.push(c.cuda_name);
  }
  if (e.invalidated_by) out.push(e.invalidated_by.call || e.invalidated_by.method);
  return out.join("; ");
}

function graphsOf(e) {
  const ids = [];
  if (e.graph) ids.push(e.graph);
  for (const c of e.captures || []) if (c.graph && !ids.includes(c.graph)) ids.push(c.graph);
  return ids;
}

// This run against the previous run of the same label, among the rows
// shown (newest first, so "previous" is further down).
function previousGraphs(entries) {
  const prev = new Map();
  for (let i = 0; i < entries.length; i++) {
    const g = graphsOf(entries[i]);
    if (!g.length || !entries[i].label) continue;
    for (let j = i + 1; j < entries.length; j++) {
      const h = graphsOf(entries[j]);
      if (entries[j].label === entries[i].label && h.length) {
        prev.set(entries[i].session, [h[0], g[0]]);
        break;
      }
    }
  }
  return prev;
}

function row(e, prev, fresh) {
  const graphs = sc.el("td", {});
  for (const g of graphsOf(e)) graphs.append(sc.el("a", { href: "/graph/" + g, "data-graph": g }, "G" + g), " ");
  const cmp = sc.el("td", {});
  const p = prev.get(e.session);
  if (p) cmp.append(sc.el("a", { href: `/diff/${p[0]}/${p[1]}`, "data-testid": "diff-link" }, `diff G${p[0]}\u2192G${p[1]}`));
  return sc.el("tr", { "data-session": e.session, class: fresh ? "fresh" : null },
    sc.el("td", {}, e.session),
    sc.el("td", {}, e.label || ""),
    sc.el("td", {}, e.host || ""),
    sc.el("td", {}, e.owner_uid),
    sc.el("td", {}, e.owner_pid),
    sc.el("td", {}, e.semantics || "oxicuda"),
    sc.el("td", { class: "outcome-" + e.outcome, "data-testid": "outcome" }, e.outcome),
    sc.el("td", { class: "muted" }, (e.opened_at || "").replace("T", " ").replace("Z", "")),
    sc.el("td", {}, e.node_count),
    graphs,
    sc.el("td", {}, brokeBy(e)),
    cmp);
}

let shown = new Map(); // session -> outcome, to mark what changed

async function load() {
  if (state.loading) {
    state.again = true;
    return;
  }
  state.loading = true;
  const q = filters();
  const cur = state.cursors[state.page];
  if (cur) q.set("before", cur);
  const status = document.getElementById("status");
  try {
    const r = await sc.api("log?" + q.toString());
    const body = sc.clear(document.querySelector("#log tbody"));
    const prev = previousGraphs(r.entries);
    const seen = new Map();
    const rows = document.createDocumentFragment();
    for (const e of r.entries) {
      seen.set(e.session, e.outcome);
      rows.append(row(e, prev, shown.size > 0 && shown.get(e.session) !== e.outcome));
    }
    body.append(rows);
    shown = seen;
    state.next = r.next || null;
    sc.clear(status);
    if (!r.entries.length) status.append(sc.el("p", { class: "muted" }, "No sessions yet: run 'streamcap demo' and they appear here."));
    document.getElementById("older").disabled = !state.next;
    document.getElementById("newer").disabled = state.page === 0;
    document.getElementById("page").textContent = "page " + (state.page + 1) + ", " + r.entries.length + " rows";
    document.body.dataset.loaded = String(Number(document.body.dataset.loaded || 0) + 1);
    // When the first rows were in the page, for bench/web_log.py.
    if (window.scFirstRows === undefined) window.scFirstRows = performance.now();
  } catch (err) {
    sc.showError(status, err);
  } finally {
    state.loading = false;
    if (state.again) {
      state.again = false;
      load();
    }
  }
}

function live() {
  const badge = document.getElementById("live");
  const feed = document.getElementById("feed");
  const es = new EventSource("/api/events");
  let timer = null;
  es.addEventListener("status", (ev) => {
    const m = JSON.parse(ev.data).message;
    badge.className = m === "live" ? "on" : "off";
    badge.textContent = m === "live" ? "live" : m;
  });
  es.addEventListener("log", (ev) => {
    const e = JSON.parse(ev.data);
    const line = `${e.at || ""} ${e.event} session ${e.session}` + (e.outcome ? " " + e.outcome : "") + (e.graph ? " graph " + e.graph : "");
    feed.prepend(sc.el("div", {}, line));
    while (feed.childNodes.length > 200) feed.removeChild(feed.lastChild);
    // Only the newest page changes as events come; older pages stay put.
    if (state.page === 0) {
      clearTimeout(timer);
      timer = setTimeout(load, 150);
    }
  });
  es.onerror = () => {
    badge.className = "off";
    badge.textContent = "reconnecting";
  };
}

document.getElementById("filters").addEventListener("submit", (ev) => {
  ev.preventDefault();
  state.cursors = [null];
  state.page = 0;
  load();
});
document.getElementById("older").addEventListener("click", () => {
  if (!state.next) return;
  state.cursors[state.page + 1] = state.next;
  state.page++;
  load();
});
document.getElementById("newer").addEventListener("click", () => {
  if (state.page > 0) state.page--;
  load();
});

load();
live();
