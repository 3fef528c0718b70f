// graph.js - one stored graph: Graphviz's drawing (one lane per stream)
// with clicks for details and "happens before?", races in red, stats, and
// a paged node list instead of the drawing for graphs too large to draw.
"use strict";

const gid = Number(location.pathname.split("/")[2]);
const G = { graph: null, succ: new Map(), pred: new Map(), a: null, b: null, root: null };
const PAGE = 100;

function dl(pairs) {
  const d = sc.el("dl", {});
  for (const [k, v] of pairs) if (v !== undefined && v !== null && v !== "") d.append(sc.el("dt", {}, k), sc.el("dd", {}, v));
  return d;
}

function index(graph) {
  for (const n of graph.nodes) {
    G.succ.set(n.id, []);
    G.pred.set(n.id, []);
  }
  for (const [u, v] of graph.edges) {
    G.succ.get(u).push(v);
    G.pred.get(v).push(u);
  }
}

function showDetails(id) {
  const n = G.graph.nodes[id];
  const box = sc.clear(document.getElementById("details"));
  if (!n) return;
  const skip = new Set(["id", "kind", "stream", "name", "accesses"]);
  const attrs = Object.entries(n).filter(([k]) => !skip.has(k)).map(([k, v]) => [k, typeof v === "object" ? JSON.stringify(v) : v]);
  box.append(dl([["id", "N" + n.id], ["kind", n.kind], ["stream", n.stream], ["name", n.name], ["launch", sc.launchShape(n)], ...attrs,
    ["predecessors", G.pred.get(id).map((p) => "N" + p).join(", ") || "none"],
    ["successors", G.succ.get(id).map((p) => "N" + p).join(", ") || "none"]]));
  if (n.accesses && n.accesses.length) {
    const t = sc.el("table", {}, sc.el("tr", {}, sc.el("th", {}, "address"), sc.el("th", {}, "size"), sc.el("th", {}, "mode")));
    for (const a of n.accesses) t.append(sc.el("tr", {}, sc.el("td", {}, "0x" + a.address.toString(16)), sc.el("td", {}, a.size), sc.el("td", {}, a.mode)));
    box.append(sc.el("p", {}, "accesses"), t);
  }
}

// A path from u to v over the edges (breadth first), or null.
function path(u, v) {
  const from = new Map([[u, null]]);
  const q = [u];
  while (q.length) {
    const x = q.shift();
    if (x === v) break;
    for (const y of G.succ.get(x)) if (!from.has(y)) { from.set(y, x); q.push(y); }
  }
  if (!from.has(v)) return null;
  const p = [];
  for (let x = v; x !== null; x = from.get(x)) p.unshift(x);
  return p;
}

function mark(cls, ids) {
  if (!G.root) return;
  for (const e of G.root.querySelectorAll("." + cls)) e.classList.remove(cls);
  for (const id of ids || []) {
    const g = sc.drawingNode(G.root, id);
    if (g) g.classList.add(cls);
  }
}

function markPath(p) {
  mark("onpath", p);
  if (!p) return;
  for (let i = 0; i + 1 < p.length; i++) {
    const e = sc.drawingEdge(G.root, p[i], p[i + 1]);
    if (e) e.classList.add("onpath");
  }
}

async function ask(a, b) {
  const answer = document.getElementById("answer");
  answer.textContent = `N${a} \u2192 N${b}?`;
  try {
    const [ab, ba] = await Promise.all([
      sc.api(`graph/${gid}/reachable?from=${a}&to=${b}`),
      sc.api(`graph/${gid}/reachable?from=${b}&to=${a}`),
    ]);
    let p = null;
    if (ab.reachable) {
      p = path(a, b);
      answer.textContent = `N${a} happens before N${b} (path ${p.map((x) => "N" + x).join(" \u2192 ")})`;
    } else if (ba.reachable) {
      p = path(b, a);
      answer.textContent = `N${a} does not happen before N${b}; N${b} happens before N${a} (path ${p.map((x) => "N" + x).join(" \u2192 ")})`;
    } else {
      answer.textContent = `N${a} and N${b} are unordered: no path either way`;
    }
    answer.dataset.result = ab.reachable ? "before" : ba.reachable ? "after" : "unordered";
    markPath(p);
  } catch (err) {
    answer.textContent = err.message;
  }
}

function select(id) {
  showDetails(id);
  if (G.a === null || G.b !== null) {
    G.a = id;
    G.b = null;
    mark("sel-a", [id]);
    mark("sel-b", []);
    markPath(null);
    document.getElementById("answer").textContent = `N${id} selected: click another node`;
    return;
  }
  G.b = id;
  mark("sel-b", [id]);
  ask(G.a, G.b);
}

function search() {
  const t = document.getElementById("search").value.trim().toLowerCase();
  const hits = !t ? [] : G.graph.nodes.filter((n) => (n.function_name || "").toLowerCase().includes(t) || (n.name || "").toLowerCase().includes(t)).map((n) => n.id);
  mark("match", hits);
  if (G.root) for (const g of G.root.querySelectorAll("g.node")) g.classList.toggle("dim", !!t && !hits.includes(sc.nodeOf(g)));
  document.getElementById("search-count").textContent = t ? hits.length + " found" : "";
  if (!G.root) nodeList(0, hits.length || !t ? hits : null);
}

function showRaces(r) {
  const box = sc.clear(document.getElementById("races"));
  if (!r.count) {
    box.append(sc.el("p", { class: "muted" }, "none: every pair of nodes whose accesses overlap with a write is ordered"));
    return;
  }
  box.append(sc.el("p", { class: "error" }, r.count + (r.count === 1 ? " race" : " races")));
  const ul = sc.el("ul", {});
  const ids = new Set();
  for (const x of r.races) {
    ids.add(x.a);
    ids.add(x.b);
    ul.append(sc.el("li", { "data-race": x.a + "-" + x.b, onclick: () => { G.a = null; select(x.a); select(x.b); } },
      `N${x.a} (${x.a_mode}) / N${x.b} (${x.b_mode}) at 0x${x.address.toString(16)}, ${x.size} B`));
  }
  box.append(ul);
  mark("race", [...ids]);
}

function showStats(s) {
  const kinds = Object.entries(s.by_kind || {}).map(([k, v]) => k + " " + v).join(", ");
  sc.clear(document.getElementById("stats")).append(dl([["nodes", s.nodes], ["edges", s.edges], ["kinds", kinds], ["streams", s.streams],
    ["roots", s.roots], ["leaves", s.leaves], ["redundant edges", s.redundant_edges], ["critical path", s.critical_path], ["width", s.width]]));
}

function showStreams() {
  const per = new Map();
  for (const n of G.graph.nodes) {
    const s = per.get(n.stream) || { nodes: 0, kinds: {} };
    s.nodes++;
    s.kinds[n.kind] = (s.kinds[n.kind] || 0) + 1;
    per.set(n.stream, s);
  }
  const t = sc.el("table", {}, sc.el("tr", {}, sc.el("th", {}, "stream"), sc.el("th", {}, "nodes"), sc.el("th", {}, "kinds")));
  for (const [k, s] of [...per.entries()].sort((x, y) => x[0] - y[0]))
    t.append(sc.el("tr", { "data-stream": k }, sc.el("td", {}, k === 0 ? "S:default" : "S" + k), sc.el("td", {}, s.nodes),
      sc.el("td", {}, Object.entries(s.kinds).map(([a, b]) => a + " " + b).join(", "))));
  sc.clear(document.getElementById("streams")).append(t);
}

// Too large to draw: the nodes as a table, a page at a time.
function nodeList(page, only) {
  const box = sc.clear(document.getElementById("drawing"));
  box.style.overflow = "auto";
  box.append(sc.el("p", { class: "error", "data-testid": "too-large" }, G.tooLarge));
  const nodes = only ? only.map((i) => G.graph.nodes[i]) : G.graph.nodes;
  const last = Math.max(0, Math.ceil(nodes.length / PAGE) - 1);
  const t = sc.el("table", { "data-testid": "node-list" }, sc.el("tr", {}, ...["id", "kind", "stream", "name", "launch", "preds", "succs"].map((h) => sc.el("th", {}, h))));
  for (const n of nodes.slice(page * PAGE, (page + 1) * PAGE))
    t.append(sc.el("tr", { onclick: () => select(n.id) }, sc.el("td", {}, "N" + n.id), sc.el("td", {}, n.kind), sc.el("td", {}, n.stream),
      sc.el("td", {}, n.function_name || n.name || ""), sc.el("td", {}, sc.launchShape(n)), sc.el("td", {}, G.pred.get(n.id).length), sc.el("td", {}, G.succ.get(n.id).length)));
  const pager = sc.el("div", { class: "pager" },
    sc.el("button", { onclick: () => nodeList(Math.max(0, page - 1), only) }, "\u2190"),
    `nodes ${page * PAGE}\u2013${Math.min(nodes.length, (page + 1) * PAGE) - 1} of ${nodes.length}`,
    sc.el("button", { onclick: () => nodeList(Math.min(last, page + 1), only) }, "\u2192"));
  box.append(pager, t);
}

async function main() {
  const box = document.getElementById("drawing");
  try {
    const [graph, stats] = await Promise.all([sc.api("graph/" + gid), sc.api(`graph/${gid}/stats`)]);
    G.graph = graph;
    index(graph);
    document.getElementById("title").textContent = `G${gid} ${graph.label || ""} (${stats.nodes} nodes, ${stats.edges} edges)`;
    showStats(stats);
    showStreams();
    try {
      const svg = sc.parseSvg(await sc.svg(gid));
      sc.clear(box).append(svg);
      G.root = svg;
      sc.zoomPan(box, svg);
      svg.addEventListener("click", (ev) => {
        const id = sc.nodeOf(ev.target.closest("g.node"));
        if (id !== null) select(id);
      });
    } catch (err) {
      if (err.status !== 413) throw err;
      G.tooLarge = err.message;
      nodeList(0, null);
    }
    sc.api(`graph/${gid}/races`).then(showRaces, (err) => sc.showError(document.getElementById("races"), err));
    document.body.dataset.ready = "1";
    window.scReady = performance.now(); // for bench/web_log.py
  } catch (err) {
    sc.showError(box, err);
  }
}

document.getElementById("search").addEventListener("input", search);
document.getElementById("clear").addEventListener("click", () => {
  G.a = G.b = null;
  mark("sel-a", []);
  mark("sel-b", []);
  markPath(null);
  document.getElementById("answer").textContent = "";
});
main();
