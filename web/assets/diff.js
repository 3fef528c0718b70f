// diff.js - graph A against graph B, each drawn by Graphviz, coloured by
// what graph.diff found: nodes and edges added (in B), removed (from A)
// and changed (both), with the list of changes beside them.
"use strict";

const [, , A, B] = location.pathname.split("/").map(Number);

function colour(root, d, side) {
  if (!root) return;
  const add = (id, cls) => {
    const g = sc.drawingNode(root, id);
    if (g) g.classList.add(cls);
  };
  const addEdge = ([u, v], cls) => {
    const e = sc.drawingEdge(root, u, v);
    if (e) e.classList.add(cls);
  };
  if (side === "a") {
    d.nodes_removed.forEach((id) => add(id, "removed"));
    d.edges_removed.forEach((e) => addEdge(e, "removed"));
    d.nodes_changed.forEach((c) => add(c.a, "changed"));
  } else {
    d.nodes_added.forEach((id) => add(id, "added"));
    d.edges_added.forEach((e) => addEdge(e, "added"));
    d.nodes_changed.forEach((c) => add(c.b, "changed"));
  }
}

function describe(graph, id) {
  const n = graph.nodes[id];
  return n ? `N${id} ${sc.nodeText(n)}` : `N${id}`;
}

function changes(d, ga, gb) {
  const box = sc.clear(document.getElementById("changes"));
  if (d.identical) {
    box.append(sc.el("p", { "data-testid": "identical" }, "identical: no node or edge differs"));
    return;
  }
  const ul = sc.el("ul", { class: "changes" });
  for (const id of d.nodes_added) ul.append(sc.el("li", { class: "added", "data-added": id }, "+ node " + describe(gb, id)));
  for (const id of d.nodes_removed) ul.append(sc.el("li", { class: "removed", "data-removed": id }, "\u2212 node " + describe(ga, id)));
  for (const c of d.nodes_changed) ul.append(sc.el("li", { class: "changed" }, `~ N${c.a} \u2192 N${c.b}: ${c.fields.join(", ")}`));
  for (const [u, v] of d.edges_added) ul.append(sc.el("li", { class: "added" }, `+ edge N${u} \u2192 N${v} (in B)`));
  for (const [u, v] of d.edges_removed) ul.append(sc.el("li", { class: "removed" }, `\u2212 edge N${u} \u2192 N${v} (in A)`));
  box.append(ul);
}

async function draw(side, id) {
  const box = document.getElementById(side + "-drawing");
  try {
    const svg = sc.parseSvg(await sc.svg(id));
    sc.clear(box).append(svg);
    sc.zoomPan(box, svg, side + "-");
    return svg;
  } catch (err) {
    sc.showError(box, err);
    return null;
  }
}

async function main() {
  document.getElementById("title").textContent = `G${A} \u2192 G${B}`;
  try {
    const [d, ga, gb] = await Promise.all([sc.api(`diff/${A}/${B}`), sc.api("graph/" + A), sc.api("graph/" + B)]);
    document.getElementById("a-title").textContent = `A: G${A} ${ga.label || ""}`;
    document.getElementById("b-title").textContent = `B: G${B} ${gb.label || ""}`;
    changes(d, ga, gb);
    const [ra, rb] = await Promise.all([draw("a", A), draw("b", B)]);
    colour(ra, d, "a");
    colour(rb, d, "b");
    document.body.dataset.ready = "1";
  } catch (err) {
    sc.showError(document.getElementById("changes"), err);
  }
}
main();
