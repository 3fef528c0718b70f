// common.js - what the streamcap web pages share: fetching the JSON API
// (the token travels in a cookie set on the first visit), building DOM
// nodes without innerHTML for daemon-supplied text, and zoom/pan.
"use strict";

const sc = {};

sc.api = async function (path) {
  const r = await fetch("/api/" + path, { credentials: "same-origin" });
  const text = await r.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch (e) {
    body = { error: { status: r.status, message: text } };
  }
  if (!r.ok) {
    const err = new Error((body.error && body.error.message) || r.statusText);
    err.status = r.status;
    throw err;
  }
  return body;
};

sc.svg = async function (id) {
  const r = await fetch("/api/graph/" + id + "/svg", { credentials: "same-origin" });
  const text = await r.text();
  if (!r.ok) {
    let msg = text;
    try {
      msg = JSON.parse(text).error.message;
    } catch (e) {}
    const err = new Error(msg);
    err.status = r.status;
    throw err;
  }
  return text;
};

// el("td", {class: "x"}, "text", child...)
sc.el = function (tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k === "onclick") e.addEventListener("click", v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) {
    if (k === undefined || k === null) continue;
    e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
  return e;
};

sc.clear = function (e) {
  while (e.firstChild) e.removeChild(e.firstChild);
  return e;
};

sc.showError = function (where, err) {
  sc.clear(where).append(sc.el("p", { class: "error", "data-testid": "error" }, err.message || String(err)));
};

// A node's one-line description, as the drawing's label has it.
sc.nodeText = function (n) {
  let s = n.kind;
  if (n.function_name) s += " " + n.function_name;
  else if (n.name) s += " " + n.name;
  else if (n.label) s += " " + n.label;
  return s;
};

sc.launchShape = function (n) {
  if (n.kind !== "kernel") return "";
  if (n.grid) return "grid " + n.grid.join("x") + " block " + n.block.join("x");
  return n.num_blocks + " x " + n.threads_per_block;
};

// Put an SVG drawing into `box` with wheel zoom, drag pan and the buttons
// #zoom-in, #zoom-out, #zoom-reset (when present): a CSS transform on the
// <svg>, so the browser never lays the drawing out again.
sc.zoomPan = function (box, svg, prefix) {
  const w = Number(svg.getAttribute("width")) || 1, h = Number(svg.getAttribute("height")) || 1;
  const fit = () => {
    const k = Math.min(1.5, (box.clientWidth - 8) / w, (box.clientHeight - 8) / h);
    return { k: k > 0 ? k : 1, x: 4, y: 4 };
  };
  const st = fit();
  const apply = () => {
    svg.style.transform = `translate(${st.x}px, ${st.y}px) scale(${st.k})`;
  };
  svg.style.transformOrigin = "0 0";
  apply();
  box.addEventListener(
    "wheel",
    (ev) => {
      ev.preventDefault();
      const f = ev.deltaY < 0 ? 1.15 : 1 / 1.15;
      const r = box.getBoundingClientRect();
      const mx = ev.clientX - r.left, my = ev.clientY - r.top;
      st.x = mx - (mx - st.x) * f;
      st.y = my - (my - st.y) * f;
      st.k *= f;
      apply();
    },
    { passive: false }
  );
  let drag = null;
  box.addEventListener("mousedown", (ev) => {
    drag = { x: ev.clientX - st.x, y: ev.clientY - st.y, moved: false };
  });
  window.addEventListener("mousemove", (ev) => {
    if (!drag) return;
    st.x = ev.clientX - drag.x;
    st.y = ev.clientY - drag.y;
    drag.moved = true;
    apply();
  });
  window.addEventListener("mouseup", () => {
    drag = null;
  });
  const btn = (id, f) => {
    const b = document.getElementById((prefix || "") + id);
    if (b) b.addEventListener("click", f);
  };
  btn("zoom-in", () => { st.k *= 1.25; apply(); });
  btn("zoom-out", () => { st.k /= 1.25; apply(); });
  btn("zoom-reset", () => { Object.assign(st, fit()); apply(); });
  return st;
};

// The id numbers of a drawn node ("n7" -> 7) and of an edge ("e3_7").
sc.nodeOf = function (g) {
  return g && g.id && /^n\d+$/.test(g.id) ? Number(g.id.slice(1)) : null;
};

sc.drawingNode = function (root, id) {
  return root.querySelector("#n" + id);
};

sc.drawingEdge = function (root, u, v) {
  return root.querySelector("#e" + u + "_" + v);
};

// Parse Graphviz's SVG text into an element (never as HTML).
sc.parseSvg = function (text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = doc.documentElement;
  // Graphviz gives its size in points; the viewBox's units as pixels keep
  // the drawing's proportions and let zoomPan scale it to fit.
  const vb = (svg.getAttribute("viewBox") || "").split(/\s+/).map(Number);
  if (vb.length === 4 && vb[2] > 0 && vb[3] > 0) {
    svg.setAttribute("width", vb[2]);
    svg.setAttribute("height", vb[3]);
  }
  return document.importNode(svg, true);
};
