// Odds in the page: the exact distribution drawn as SVG bars (as AnyDice draws them),
// "exactly" or "at least", one series or two compared; a progress bar while it computes.

import { stream } from "./api.js";
import { $, el } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// Computes odds (POST /api/odds, streamed), showing progress; resolves to the answer.
export async function computeOdds(request) {
  const box = $("#odds-progress");
  const bar = $("#odds-progress-bar");
  const words = $("#odds-progress-text");
  box.hidden = false;
  bar.removeAttribute("value");
  words.textContent = "computing…";
  let answer = null;
  let failure = null;
  try {
    await stream("/api/odds", { ...request, progress: true }, (line) => {
      if (line.progress) {
        const { phase, done, total } = line.progress;
        bar.max = total;
        bar.value = done;
        words.textContent = phase === "exact"
          ? `exact: ${done} of ${total} units of work`
          : `sampling: ${done} of ${total} trials`;
      } else if (line.result) answer = line.result;
      else if (line.error) failure = line.error;
    });
  } finally {
    box.hidden = true;
  }
  if (failure) {
    const error = new Error(failure.message);
    error.text = failure.text;
    throw error;
  }
  return answer;
}

const numeric = (key) => /^-?\d+(\.\d+)?$/.test(key) || /^-?\d+\/\d+$/.test(key);
const valueOf = (key) => (key.includes("/") ? ratio(key) : Number(key));
function ratio(key) {
  const [n, d] = key.split("/").map(Number);
  return n / d;
}

// The outcomes of one or two series, in order: numbers ascending, then the others.
function outcomesOf(series) {
  const keys = [];
  for (const s of series) for (const key of Object.keys(s.distribution)) {
    if (!keys.includes(key)) keys.push(key);
  }
  const numbers = keys.filter(numeric).sort((a, b) => valueOf(a) - valueOf(b));
  const order = { false: 0, true: 1 };
  const others = keys.filter((k) => !numeric(k)).sort((a, b) => (order[a] ?? 2) - (order[b] ?? 2));
  return [...numbers, ...others];
}

function atLeast(distribution, outcomes) {
  const out = {};
  let rest = 0;
  for (let i = outcomes.length - 1; i >= 0; i--) {
    rest += distribution[outcomes[i]] || 0;
    out[outcomes[i]] = rest;
  }
  return out;
}

// answer: an Odds JSON, or {a, b, names} for two compared.
export function renderOdds(answer, view) {
  const series = answer.a ? [answer.a, answer.b] : [answer];
  const names = answer.names || [null];
  const outcomes = outcomesOf(series);
  const ordered = outcomes.every(numeric);
  const cumulative = view === "at-least" && ordered;
  const values = series.map((s) => (cumulative ? atLeast(s.distribution, outcomes) : s.distribution));
  const peak = Math.max(1e-12, ...values.flatMap((v) => Object.values(v)));
  const label = 150, right = 150, width = 760, plot = width - label - right;
  const bar = 14, gap = 6, row = bar * series.length + gap;
  const legend = series.length > 1 ? 22 : 0;
  const height = legend + outcomes.length * row + 6;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": cumulative ? "probability of at least each outcome" : "probability of each outcome" });
  if (series.length > 1) {
    names.forEach((name, i) => {
      const x = label + i * 260;
      chart.append(svg("rect", { x, y: 4, width: 12, height: 12, class: i ? "bar-b" : "bar-a" }));
      chart.append(svg("text", { x: x + 18, y: 14 }, (i ? "B: " : "A: ") + name));
    });
  }
  for (let tick = 0; tick <= 4; tick++) {
    const x = label + (plot * tick) / 4;
    chart.append(svg("line", { x1: x, x2: x, y1: legend, y2: height, class: "grid" }));
  }
  outcomes.forEach((outcome, i) => {
    const y = legend + i * row;
    const word = { true: "yes", false: "no" }[outcome] || outcome;
    const shown = word.length > 22 ? word.slice(0, 21) + "…" : word;
    chart.append(svg("text", { x: label - 8, y: y + (row - gap) / 2 + 4, "text-anchor": "end" },
      (cumulative ? "≥ " : "") + shown));
    values.forEach((v, s) => {
      const p = v[outcome] || 0;
      const rect = svg("rect", {
        x: label, y: y + s * bar, height: bar - 2, width: Math.max(0, (plot * p) / peak),
        class: s ? "bar-b" : "bar-a", "data-outcome": outcome,
      });
      const fraction = !cumulative && series[s].fractions ? ` = ${series[s].fractions[outcome] || 0}` : "";
      rect.append(svg("title", {}, `${outcome}: ${(p * 100).toFixed(4)}%${fraction}`));
      chart.append(rect);
      chart.append(svg("text", { x: label + plot + 8, y: y + s * bar + bar - 4 },
        `${(p * 100).toFixed(2)}%`));
    });
  });
  $("#odds-chart").replaceChildren(chart);
  const summary = series.map((s, i) => {
    const who = series.length > 1 ? `${i ? "B" : "A"}: ` : "";
    const how = s.exact ? "exact" : `sampled, ${s.trials} trials`;
    const mean = s.mean !== null && s.mean !== undefined ? `, mean ${s.mean.toFixed(3)}` : "";
    const lost = s.omitted_mass ? `, omitted ${s.omitted_mass.toExponential(1)}` : "";
    return `${who}${how}${mean}${lost}`;
  });
  $("#odds-summary").replaceChildren(...summary.map((line) => el("div", {}, line)));
  $("#odds-view").hidden = !ordered;
  $("#odds").hidden = false;
}
