// Odds in the page: the exact distribution drawn as SVG bars (as AnyDice draws them),
// "exactly" or "at least", one series or two compared; a progress bar while it computes.
// The answer is the odds document of `rulebook odds --json` (or odds_comparison).

import { errorText, stream } from "./api.js";
import { $, el, number, percent, show, showWarnings, t, tn } from "./dom.js";

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
  words.textContent = t("computing…");
  let answer = null;
  let failure = null;
  try {
    await stream("/api/odds", { ...request, progress: true }, (line) => {
      if (line.progress) {
        const { phase, done, total } = line.progress;
        bar.max = total;
        bar.value = done;
        const percent = total ? Math.floor((100 * done) / total) : 0;
        words.textContent = phase === "exact"
          ? t("counting every way the dice can fall: {percent}%", { percent })
          : t("too many ways to count: rolling {done} of {total} times", { done, total });
      } else if (line.result) answer = line.result;
      else if (line.error) failure = line.error;
    });
  } finally {
    box.hidden = true;
  }
  if (failure) {
    const error = new Error(failure.message);
    error.text = errorText(failure);
    throw error;
  }
  return answer;
}

// An outcome as people read it: numbers, yes/no in the page's language, a record's
// fields, or why the action stopped.
function label(outcome) {
  if (outcome !== null && typeof outcome === "object") {
    if ("failure" in outcome) return `✗ ${outcome.failure}`;
    return Object.entries(outcome).map(([k, v]) => `${k}=${label(v)}`).join(", ");
  }
  return show(outcome);
}

// Each series as a Map from an outcome's key to its probability, over the outcomes of
// all series in order: numbers ascending, then the others as the answers order them.
function seriesOf(answer, bodies = answer.a ? [answer.a, answer.b] : [answer], bases = null) {
  const outcomes = new Map();
  for (const body of bodies) {
    for (const item of body.outcomes) outcomes.set(JSON.stringify(item.outcome), item.outcome);
  }
  const keys = [...outcomes.keys()];
  const numbers = keys.filter((k) => typeof outcomes.get(k) === "number")
    .sort((x, y) => outcomes.get(x) - outcomes.get(y));
  const ordered = [...numbers, ...keys.filter((k) => typeof outcomes.get(k) !== "number")];
  const series = bodies.map((body, s) => {
    const base = bases ? bases[s] : answer.a ? (s ? "/b" : "/a") : "";
    const p = new Map();
    const exact = new Map();
    body.outcomes.forEach((item, i) => {
      const key = JSON.stringify(item.outcome);
      p.set(key, item.probability);
      exact.set(key, answer.fractions[`${base}/outcomes/${i}/probability`] || show(item.probability));
    });
    return { body, p, exact };
  });
  return { keys: ordered, outcomes, series, numeric: numbers.length === keys.length };
}

// What an answer left out of its list (it lists at most 200 outcomes: `left_out`, the
// outcomes before the listed ones and after them, each with how many and their
// probability in all): one line for each side that left any out, for each series.
function leftOut(series, side) {
  return series.flatMap(({ body }, i) => {
    const gone = body.left_out && body.left_out[side];
    if (!gone || !gone.outcomes) return [];
    const who = series.length > 1 ? `${i ? "B" : "A"}: ` : "";
    const p = percent(gone.probability, 2);
    return [who + tn("… {n} more outcome ({p} in all)", "… {n} more outcomes ({p} in all)",
      gone.outcomes, { p })];
  });
}

// What was drawn last, drawn again for the chart box's new width (a phone turned, a window
// made narrower): the chart is drawn for its width (layout, below).
let drawn = null;
let resized = 0;
window.addEventListener("resize", () => {
  clearTimeout(resized);
  resized = setTimeout(() => {
    if (drawn && !$("#odds").hidden && $("#odds-chart").clientWidth !== drawn.room) {
      renderOdds(drawn.answer, drawn.view);
    }
  }, 150);
});

// The odds drawn: one chart, or, for a whole result too large to count as one (its
// `fields`), one chart for each field, each with its name.
export function renderOdds(answer, view) {
  const fields = !answer.a && answer.fields && answer.fields.length ? answer.fields : null;
  $("#odds").hidden = false;  // first: the chart's box has its width, the chart's room
  const room = $("#odds-chart").clientWidth;
  drawn = { answer, view, room };
  if (!fields) {
    const { chart, numeric } = chartOf(answer, view, seriesOf(answer), room);
    $("#odds-chart").replaceChildren(chart);
    $("#odds-view").hidden = !numeric;
  } else {
    let anyNumeric = false;
    $("#odds-chart").replaceChildren(...fields.map((body, i) => {
      const drawn = chartOf(answer, view, seriesOf(answer, [body], [`/fields/${i}`]), room);
      anyNumeric = anyNumeric || drawn.numeric;
      return el("figure", { class: "odds-field" }, el("figcaption", {}, body.field || ""), drawn.chart);
    }));
    $("#odds-view").hidden = !anyNumeric;
  }
  const series = answer.a ? [answer.a, answer.b] : [answer];
  const summary = series.map((body, i) => {
    const who = series.length > 1 ? `${i ? "B" : "A"}: ` : "";
    // a whole result drawn field by field says how its fields were found
    const parts = body.fields && body.fields.length ? body.fields : [body];
    const trials = parts.map((part) => part.trials).find((n) => n);
    const how = parts.every((part) => part.exact) ? t("exact")
      : trials ? t("about, from {trials} trials", { trials }) : t("about");
    const mean = body.mean !== null && body.mean !== undefined
      ? `, ${t("mean {mean}", { mean: number(body.mean, 3) })}` : "";
    const mass = Number(body.omitted_mass || 0);
    const lost = mass
      ? `, ${t("{percent} of the chance too small to list", { percent: mass < 1e-4 ? `< ${percent(1e-4, 2)}` : percent(mass, 2) })}` : "";
    // the goal of the best play (the action's own, when none was given, said as the
    // goal it is): what the best play is worth to it (its expectation)
    const goal = body.goal
      ? `, ${t("the best play is worth {worth} to {goal}",
        { worth: worthOf(body.goal), goal: goalOf(body.goal) })}` : "";
    return `${who}${how}${mean}${lost}${goal}`;
  });
  $("#odds-summary").replaceChildren(...summary.map((line) => el("div", {}, line)));
  showWarnings($("#odds-warnings"), answer.warnings);
}

//: characters of an outcome's label drawn at most (the whole of it is in the bar's title)
const MAX_LABEL = 60;
//: px a character of the chart's 12 px text takes, about (for the labels' column)
const CHAR = 7.5;
//: px the bars get at least beside their labels; narrower, each label goes above its bars
const MIN_PLOT = 140;

// A label in lines of at most `most` characters (broken at ", " or a space), 3 lines at most.
function lines(word, most) {
  const out = [];
  let rest = word;
  while (rest.length > most && out.length < 2) {
    const cut = Math.max(rest.lastIndexOf(", ", most), rest.lastIndexOf(" ", most));
    const at = cut > most / 3 ? cut + 1 : most;
    out.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  out.push(rest.length > most ? rest.slice(0, most - 1) + "…" : rest);
  return out;
}

// The chart's geometry for `room` px (the chart's box; 0: unknown): drawn at 1:1 where the
// whole chart does not fit, so that its text stays 12 px on a phone (issue 26) — the bars
// narrower first, then each label above its bars.
function layout(keys, outcomes, room) {
  const longest = Math.max(4, ...keys.map((key) => Math.min(MAX_LABEL, label(outcomes.get(key)).length + 2)));
  const labelWidth = Math.max(80, Math.ceil(longest * CHAR) + 12);
  if (!room || room >= labelWidth + 460 + 90) return { labelWidth, plot: 460, right: 90, stacked: false };
  const right = 64;
  if (room - labelWidth - right >= MIN_PLOT) {
    return { labelWidth, plot: room - labelWidth - right, right, stacked: false };
  }
  return { labelWidth: 0, plot: Math.max(MIN_PLOT, room - right), right, stacked: true };
}

function chartOf(answer, view, { keys, outcomes, series, numeric }, room) {
  const names = answer.names || [null];
  const cumulative = view === "at-least" && numeric;
  const values = series.map(({ p }) => {
    if (!cumulative) return p;
    const out = new Map();
    let rest = 0;
    for (let i = keys.length - 1; i >= 0; i--) {
      rest += p.get(keys[i]) || 0;
      out.set(keys[i], rest);
    }
    return out;
  });
  const peak = Math.max(1e-12, ...values.flatMap((v) => [...v.values()]));
  const { labelWidth, plot, right, stacked } = layout(keys, outcomes, room);
  const width = labelWidth + plot + right;
  const bar = 14, gap = 6, line = 16;
  const above = leftOut(series, "before"), below = leftOut(series, "after");
  // the series' names side by side, or one a line where they would not fit
  const apart = series.length > 1 && width < labelWidth + 520;
  const legend = (series.length > 1 ? (apart ? 20 * series.length : 22) : 0) + above.length * 18;
  const words = keys.map((key) => label(outcomes.get(key)));
  const labelLines = words.map((word) => {
    const shown = (cumulative ? "≥ " : "") + word;
    if (stacked) return lines(shown, Math.max(8, Math.floor(width / CHAR)));
    return [word.length > MAX_LABEL ? (cumulative ? "≥ " : "") + word.slice(0, MAX_LABEL - 1) + "…" : shown];
  });
  const rows = labelLines.map((drawn) => (stacked ? drawn.length * line : 0) + bar * series.length + gap);
  const tops = rows.map((_, i) => legend + rows.slice(0, i).reduce((a, b) => a + b, 0));
  const bottom = legend + rows.reduce((a, b) => a + b, 0);
  const height = bottom + below.length * 18 + 6;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": cumulative ? t("probability of at least each outcome") : t("probability of each outcome") });
  if (series.length > 1) {
    names.forEach((name, i) => {
      const x = apart ? 0 : labelWidth + i * 260;
      const y = apart ? 4 + i * 20 : 4;
      chart.append(svg("rect", { x, y, width: 12, height: 12, class: i ? "bar-b" : "bar-a" }));
      chart.append(svg("text", { x: x + 18, y: y + 10 }, (i ? "B: " : "A: ") + name));
    });
  }
  const noteX = stacked ? 0 : labelWidth;
  above.forEach((note, i) => chart.append(svg("text",
    { x: noteX, y: legend - (above.length - i) * 18 + 13, class: "left-out" }, note)));
  below.forEach((note, i) => chart.append(svg("text",
    { x: noteX, y: bottom + i * 18 + 13, class: "left-out" }, note)));
  for (let tick = 0; tick <= 4; tick++) {
    const x = labelWidth + (plot * tick) / 4;
    chart.append(svg("line", { x1: x, x2: x, y1: legend, y2: bottom, class: "grid" }));
  }
  keys.forEach((key, i) => {
    const word = words[i];
    const drawn = labelLines[i];
    // the bars' top: under the label's lines (stacked), or beside them
    const y = tops[i] + (stacked ? drawn.length * line : 0);
    if (stacked) {
      drawn.forEach((text, n) => chart.append(svg("text", { x: 0, y: tops[i] + n * line + 12 }, text)));
    } else {
      chart.append(svg("text", { x: labelWidth - 8, y: y + (rows[i] - gap) / 2 + 4, "text-anchor": "end" },
        drawn[0]));
    }
    values.forEach((v, s) => {
      const p = v.get(key) || 0;
      const rect = svg("rect", {
        x: labelWidth, y: y + s * bar, height: bar - 2, width: Math.max(0, (plot * p) / peak),
        class: s ? "bar-b" : "bar-a", "data-outcome": word,
      });
      const fraction = !cumulative && series[s].body.exact && series[s].exact.has(key)
        ? ` = ${series[s].exact.get(key)}` : "";
      rect.append(svg("title", {}, `${word}: ${percent(p, 4)}${fraction}`));
      chart.append(rect);
      chart.append(svg("text", { x: labelWidth + plot + 8, y: y + s * bar + bar - 4 },
        percent(p, 2)));
    });
  });
  return { chart, numeric };
}

// A goal of the best play as it would be written (`mean best`, `degree=critical`).
export function goalOf(goal) {
  if (goal.expression) return goal.expression;
  if (goal.mean) return `mean ${goal.field}`;
  const plain = goal.value === null || goal.value === undefined || goal.value === true; // (`success`)
  return plain ? goal.field : `${goal.field}=${show(goal.value)}`;
}

// What the best play is worth to its goal: a chance for a field's value (`success`,
// `degree=critical`), else an expectation (`mean damage`, an expression).
function worthOf(goal) {
  const chance = !goal.expression && !goal.mean && goal.value !== null && goal.value !== undefined;
  return chance ? percent(goal.worth, 2) : number(goal.worth, 4);
}

// What odds answer, in a line over their chart: the action with the values given, who
// plays it, the field, the choices answered or played best, and what it is compared with
// (two answers to two questions look alike without it). `item`: the action's describe;
// `other`: the rulebook compared with, if one of the folder; `goal`: the answer's goal.
export function questionOf(request, item, other, goal = null) {
  const given = Object.entries(request.params).map(([k, v]) => `${k}=${show(v)}`);
  const parts = [`${item && item.label ? item.label : request.action}(${given.join(", ")})`];
  if (request.character) parts.push(request.character);
  if (request.field) parts.push(request.field);
  for (const [choice, answer] of Object.entries(request.choices || {})) parts.push(`${choice}: ${answer}`);
  const answered = Object.keys(request.choices || {});
  if (((item && item.choices) || []).some((c) => !answered.includes(c.name))) {
    const own = goal ? goalOf(goal) : t("the action's own");
    parts.push(t("the best play for {goal}", { goal: request.best || own }));
  }
  if (request.compare) {
    parts.push(t("compared with {other}",
      { other: other ? other.title : t("the rules in the editor") }));
  }
  return parts.join(" · ");
}

// What "Odds of" offers: the fields the item declares (describe's `result_fields`), from
// the start; after a run, any the result had beside them.
export function offerOddsFields(item, result = null) {
  const names = [...(item && item.result_fields ? item.result_fields : [])];
  if (result && typeof result === "object" && !Array.isArray(result)) {
    for (const name of Object.keys(result)) if (!names.includes(name)) names.push(name);
  }
  $("#odds-fields").replaceChildren(...names.map((name) => el("option", { value: name })));
  return names;
}
