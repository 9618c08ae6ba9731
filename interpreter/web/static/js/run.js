// Running an action: random dice, a seed, or dice typed in one by one as the rules ask
// for them (the server replays the run with the faces typed so far and names the next
// die); then the result, the changes, the dice and the trace, each line linked to the
// rulebook line it came from.

import { send } from "./api.js";
import { $, el, show } from "./dom.js";

// Where the dice come from: {seed} or {ask: true, dice: [...]}. A "random" run gets a
// fresh seed here, so that saving it later runs it again with the very same dice.
export function diceOf(mode) {
  if (mode === "seed") return { seed: Number($("#seed").value || 0) };
  if (mode === "typed") return { ask: true, dice: [] };
  const word = new Uint32Array(2);
  crypto.getRandomValues(word);
  return { seed: word[0] * 2 ** 21 + (word[1] >>> 11) };
}

// Runs `request` (the body of POST /api/run); with typed dice, asks for each die in the
// page until the run is complete. Resolves to the outcome, or null when cancelled.
export async function runAction(request) {
  if (!request.ask) return send("/api/run", request);
  const typed = [...(request.dice || [])];
  for (;;) {
    const answer = await send("/api/run", { ...request, dice: typed });
    if (!answer.need) {
      hideAsk();
      return answer;
    }
    const face = await askFor(answer.need, typed);
    if (face === null) {
      hideAsk();
      return null;
    }
    if (face === "back") typed.pop();
    else typed.push(face);
  }
}

function hideAsk() {
  $("#ask").hidden = true;
}

// Shows which die the rules need and waits for its face ("back": take one back).
function askFor(need, typed) {
  return new Promise((resolve) => {
    const panel = $("#ask");
    const where = need.line ? ` — line ${need.line}: ${need.roll}` : "";
    $("#ask-prompt").textContent =
      `Roll die ${need.position}: ${need.die} (${need.low}–${need.high})${where}`;
    $("#ask-typed").textContent = typed.length ? `typed so far: ${typed.join(", ")}` : "";
    const input = $("#ask-input");
    input.min = need.low;
    input.max = need.high;
    input.value = "";
    const faces = $("#ask-faces");
    faces.replaceChildren();
    const done = (value) => {
      form.onsubmit = back.onclick = cancel.onclick = null;
      resolve(value);
    };
    if (need.high - need.low < 20) {
      for (let face = need.low; face <= need.high; face++) {
        faces.append(el("button", { type: "button", class: "face", onclick: () => done(face) },
          String(face)));
      }
    }
    const form = $("#ask-form");
    const back = $("#ask-back");
    const cancel = $("#ask-cancel");
    back.disabled = typed.length === 0;
    form.onsubmit = (event) => {
      event.preventDefault();
      const face = Number(input.value);
      if (Number.isInteger(face) && face >= need.low && face <= need.high) done(face);
      else input.setCustomValidity(`a face of ${need.die}: ${need.low} to ${need.high}`);
      input.reportValidity();
    };
    input.oninput = () => input.setCustomValidity("");
    back.onclick = () => done("back");
    cancel.onclick = () => done(null);
    panel.hidden = false;
    input.focus();
  });
}

const ORIGIN = { forced: "forced dice", typed: "typed in", generated: "random" };

// The outcome in the page; onLine(file, line) when a trace line is followed.
export function renderOutcome(outcome, onLine) {
  const result = $("#result");
  result.replaceChildren();
  for (const [name, value] of Object.entries(outcome.result || {})) {
    result.append(el("tr", {}, el("th", {}, name), el("td", {}, show(value))));
  }
  if (!outcome.result) result.append(el("tr", {}, el("td", { class: "muted" }, "no result")));
  const changes = $("#changes");
  changes.replaceChildren();
  for (const change of outcome.changes) {
    changes.append(el("li", { class: "change", dataset: { path: change.path } },
      `${change.path}: ${show(change.before)} → ${show(change.after)}`));
  }
  if (!outcome.changes.length) changes.append(el("li", { class: "muted" }, "none"));
  const dice = outcome.dice.length ? outcome.dice.join(", ") : "none";
  $("#dice").textContent = `dice: ${dice} (${ORIGIN[outcome.origin] || outcome.origin})`;
  const trace = $("#trace");
  trace.replaceChildren();
  for (const step of outcome.trace) {
    const link = step.line
      ? el("a", {
          class: "line", href: "#editor", title: `${step.file}:${step.line}`,
          dataset: { file: step.file || "", line: step.line },
          onclick: (event) => { event.preventDefault(); onLine(step.file, step.line); },
        }, String(step.line))
      : el("span", { class: "line" }, "");
    trace.append(el("li", { class: `step-${step.kind}` }, link,
      el("span", { class: "text", style: `padding-left:${(step.depth + 1) * 1.2}em` },
        step.text)));
  }
  $("#outcome").hidden = false;
}
