// The Model Explorer page: asks /api/run for a prompt's attention and draws every grid as SVG.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
// matplotlib's viridis at 0, 0.1, ..., 1.
const VIRIDIS = ["#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c", "#22a884",
                 "#44bf70", "#7ad151", "#bddf26", "#fde725"];
const state = { data: null, layer: 0, head: 0 };
const $ = (id) => document.getElementById(id);

function viridis(t) {
  const x = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const [a, b] = [VIRIDIS[i], VIRIDIS[i + 1]].map((h) => [1, 3, 5].map((k) => parseInt(h.slice(k, k + 2), 16)));
  const mix = a.map((v, k) => Math.round(v + (b[k] - v) * (x - i)));
  return `rgb(${mix.join(",")})`;
}

// A head's kind, or what to write for it while there is no classify_head yet (kinds is null).
function kindOf(data, layer, head) {
  return data.kinds ? data.kinds[layer][head] : "kind: write classify_head";
}

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// In words, for a screen reader: where each row (token) looks most, with its value.
function describe(what, values, words, mask) {
  if (what === "mask") {
    return words.map((w, i) => `"${w}" may look at ${mask[i].filter((v) => v !== null).length} of ${words.length}`)
      .join("; ") + ".";
  }
  const verb = what === "weights" ? "looks most at" : "scores highest";
  return words.map((w, i) => {
    let best = -1;
    values[i].forEach((v, k) => { if (mask[i][k] !== null && (best < 0 || v > values[i][best])) best = k; });
    return `"${w}" (row ${i}) ${verb} "${words[best]}" (column ${best}, ${values[i][best].toFixed(2)})`;
  }).join("; ") + ".";
}

// The chosen head's weights as a table: a row per token, where it looks; blocked cells say so.
function weightsTable(head, words, mask, caption) {
  const table = $("weights-table");
  table.replaceChildren();
  table.createCaption().textContent = caption;
  const top = table.createTHead().insertRow();
  top.appendChild(document.createElement("th")).textContent = "row looks at →";
  words.forEach((w, k) => { const th = top.appendChild(document.createElement("th")); th.scope = "col";
                            th.textContent = `${k} ${w}`; });
  const body = table.createTBody();
  words.forEach((w, i) => {
    const row = body.insertRow();
    const th = row.appendChild(document.createElement("th"));
    th.scope = "row";
    th.textContent = `${i} ${w}`;
    words.forEach((_, k) => { row.insertCell().textContent = mask[i][k] === null ? "blocked"
                                                                                    : head.weights[i][k].toFixed(2); });
  });
}

// One labelled grid. what: "weights" (0..1), "scores" (own range) or "mask" (0 or blocked).
function grid(what, values, words, mask, title) {
  const n = words.length;
  const cell = Math.max(9, Math.min(22, Math.floor(260 / n)));
  const margin = 8 + 6 * Math.max(...words.map((w) => w.length));
  const size = margin + n * cell + 4;
  const svg = el("svg", { width: size, height: size + 16, viewBox: `0 0 ${size} ${size + 16}`, class: "grid",
                          "data-what": what, role: "img",
                          "aria-label": `${title}. ${describe(what, values, words, mask)}` });
  const defs = el("defs", {}, svg);
  const hatch = el("pattern", { id: `hatch-${Math.random().toString(36).slice(2)}`, width: 4, height: 4,
                                patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
  el("rect", { width: 4, height: 4, fill: "#f2f2f2" }, hatch);
  el("line", { x1: 0, y1: 0, x2: 0, y2: 4, stroke: "#999", "stroke-width": 1.5 }, hatch);
  el("text", { x: margin, y: 11, "font-weight": 600 }, svg).textContent = title;
  const top = 16 + margin;
  const finite = what === "scores" ? values.flat() : [0, 1];
  const [lo, hi] = [Math.min(...finite), Math.max(...finite)];
  for (let i = 0; i < n; i++) {
    el("text", { x: margin - 4, y: top + i * cell + cell * 0.7, "text-anchor": "end" }, svg).textContent = words[i];
    el("text", { transform: `translate(${margin + i * cell + cell * 0.7},${top - 4}) rotate(-60)` }, svg)
      .textContent = words[i];
    for (let k = 0; k < n; k++) {
      const blocked = mask[i][k] === null;
      let fill, shown;
      if (what === "mask") {
        fill = blocked ? null : "#d9efe9";
        shown = blocked ? "−∞ (blocked)" : "0 (allowed)";
      } else {
        const v = values[i][k];
        fill = what === "weights" && blocked ? null : viridis((v - lo) / (hi - lo || 1));
        shown = v.toFixed(3);
      }
      const rect = el("rect", { x: margin + k * cell, y: top + i * cell, width: cell - 1, height: cell - 1,
                                fill: fill || `url(#${hatch.id})` }, svg);
      if (what === "scores" && blocked) rect.setAttribute("opacity", 0.45);
      el("title", {}, rect).textContent = `${what}: "${words[i]}" (row ${i}) → "${words[k]}" (column ${k}): ${shown}`;
    }
  }
  return svg;
}

function render() {
  const data = state.data;
  if (!data) return;
  const show = $("show").value;
  const overview = $("overview");
  overview.replaceChildren();
  data.layers.forEach((heads, layer) => {
    const h2 = document.createElement("h2");
    h2.textContent = `Layer ${layer}: the ${show} of every head`;
    const row = document.createElement("div");
    row.className = "layer";
    heads.forEach((head, m) => {
      const card = document.createElement("div");
      card.className = "head" + (layer === state.layer && m === state.head ? " selected" : "");
      card.dataset.layer = layer;
      card.dataset.head = m;
      const chosen = layer === state.layer && m === state.head;
      // The kind is what the student's classify_head returned: text, never markup.
      const h3 = document.createElement("h3"), pick = document.createElement("button"), kind = document.createElement("span");
      pick.type = "button";
      pick.className = "pick";
      pick.setAttribute("aria-pressed", String(chosen));
      pick.setAttribute("aria-label", `layer ${layer} head ${m}: ${kindOf(data, layer, m)}`);
      kind.className = "kind";
      kind.textContent = kindOf(data, layer, m);
      pick.append(`head ${m} `, kind);
      h3.appendChild(pick);
      card.appendChild(h3);
      card.appendChild(grid(show, show === "mask" ? null : head[show], data.words, data.mask,
                            `L${layer} H${m} ${show}`));
      card.addEventListener("click", (e) => choose(layer, m, e.target.closest(".pick") !== null));
      row.appendChild(card);
    });
    overview.append(h2, row);
  });
  const head = data.layers[state.layer][state.head];
  $("detail-title").textContent =
    `Layer ${state.layer}, head ${state.head} (${kindOf(data, state.layer, state.head)}): scores, mask and weights`;
  $("detail").replaceChildren(
    grid("scores", head.scores, data.words, data.mask, "scores  QKᵀ/√d_k"),
    grid("mask", null, data.words, data.mask, "causal mask"),
    grid("weights", head.weights, data.words, data.mask, "weights  softmax(scores + mask)"));
  const named = `Layer ${state.layer}, head ${state.head} (${kindOf(data, state.layer, state.head)})`;
  $("description").textContent = `${named}, ${data.weights} weights, on "${data.prompt}": ` +
    describe("weights", head.weights, data.words, data.mask);
  weightsTable(head, data.words, data.mask, `${named}: the weights, row by row`);
}

// Choose a head (by mouse, or by its button with Enter or Space: the focus stays on that button).
function choose(layer, head, byButton) {
  state.layer = layer;
  state.head = head;
  render();
  if (byButton) document.querySelector(`.head[data-layer="${layer}"][data-head="${head}"] .pick`).focus();
}

async function load() {
  const weights = document.querySelector("input[name=weights]:checked").value;
  const query = new URLSearchParams({ prompt: $("prompt").value, weights });
  document.body.dataset.state = "loading";
  try {
    const reply = await fetch(`/api/run?${query}`);
    const data = await reply.json();
    if (!reply.ok) throw new Error(data.error || reply.statusText);
    state.data = data;
    $("error").textContent = "";
    $("vocab").textContent = `Words it knows: ${data.vocab.join(" ")}`;
    render();
    document.body.dataset.weights = data.weights;
    document.body.dataset.prompt = data.prompt;
    document.body.dataset.state = "ready";
  } catch (e) {
    $("error").textContent = e.message;
    document.body.dataset.state = "error";
  }
}

$("form").addEventListener("submit", (e) => { e.preventDefault(); load(); });
document.querySelectorAll("input[name=weights]").forEach((r) => r.addEventListener("change", load));
$("show").addEventListener("change", render);
$("prompt").value = "the cat sat on the mat . the cat sat on the mat";
load();
