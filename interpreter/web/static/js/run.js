// Running an action: random dice, a seed, or dice typed in one by one as the rules ask
// for them; choices answered when the action asks them, after seeing what was rolled (the
// server replays the run with the faces and the answers so far and names what it needs
// next); then the result, the changes of every character, who chose what, the dice and
// the trace, each line linked to the rulebook line it came from.

import { send } from "./api.js";
import { $, el, show, showPath, showWarnings, t } from "./dom.js";

// Where the dice come from: {seed} or {ask: true, dice: [...]}. A "random" run gets a
// fresh seed here, so that saving it later runs it again with the very same dice.
export function diceOf(mode) {
  if (mode === "seed") return { seed: Number($("#seed").value || 0) };
  if (mode === "typed") return { ask: true, dice: [] };
  const word = new Uint32Array(2);
  crypto.getRandomValues(word);
  return { seed: word[0] * 2 ** 21 + (word[1] >>> 11) };
}

// Runs `request` (the body of POST /api/run), asking in the page for each die (typed
// dice) and each choice the run makes, until it is complete. Resolves to the outcome
// (`request.dice` and `request.answers` then hold what was typed and answered), or null
// when cancelled. `names` says who each character of the run is: {role: name}.
export async function runAction(request, names, onLine) {
  const typed = [...(request.dice || [])];
  const answers = [...(request.answers || [])];
  try {
    for (;;) {
      const body = { ...request, answers };
      if (request.ask) body.dice = typed;
      const answer = await send("/api/run", body);
      if (!answer.need) {
        request.answers = answers;
        if (request.ask) request.dice = typed;
        return answer;
      }
      const given = answer.need.kind === "choice"
        ? await chooseFor(answer.need, answer.trace, answers, names, onLine)
        : await askFor(answer.need, typed);
      if (given === null) return null;
      const list = answer.need.kind === "choice" ? answers : typed;
      if (given === BACK) list.pop();
      else list.push(given);
    }
  } finally {
    $("#ask").hidden = true;
    $("#choose").hidden = true;
  }
}

const BACK = Symbol("back");

// Shows which die the rules need and waits for its face (BACK: take one back).
function askFor(need, typed) {
  $("#choose").hidden = true;
  return new Promise((resolve) => {
    const panel = $("#ask");
    const where = need.line ? t(" — line {line}: {roll}", { line: need.line, roll: need.roll }) : "";
    // whose die and what for ("thug — Defend: "), and why ("the 10 exploded")
    const whose = need.for && need.who ? t("{who} — {what}: ", { who: need.who, what: need.for })
      : need.for ? `${need.for}: ` : need.who ? t("for {who}: ", { who: need.who }) : "";
    const why = need.why ? ` (${need.why})` : "";
    // after what it is for ("Attack: die 1, d20 (1–20)"), not "Attack: Roll die 1": a
    // check labelled "Roll" would read "Roll: Roll die 1"
    const die = need.for ? t("die {position}, {die} ({low}–{high})", need)
      : t("Roll die {position}: {die} ({low}–{high})", need);
    $("#ask-prompt").textContent = whose + die + why + where;
    $("#ask-typed").textContent = typed.length
      ? t("typed so far: {faces}", { faces: typed.join(", ") }) : "";
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
    if (need.faces) {
      // a die of symbols: one button per face, by its symbols (the face's position is sent)
      const seen = new Set();
      need.faces.forEach((name, i) => {
        if (seen.has(name)) return;
        seen.add(name);
        faces.append(el("button", { type: "button", class: "face", onclick: () => done(i + 1) },
          name));
      });
    } else if (need.high - need.low < 20) {
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
      else input.setCustomValidity(t("a face of {die}: {low} to {high}", need));
      input.reportValidity();
    };
    input.oninput = () => input.setCustomValidity("");
    back.onclick = () => done(BACK);
    cancel.onclick = () => done(null);
    panel.hidden = false;
    input.focus();
  });
}

// Shows the choice the run makes now, who makes it and what was rolled so far, and waits
// for an option (BACK: take the last answer back).
function chooseFor(need, steps, answers, names, onLine) {
  $("#ask").hidden = true;
  return new Promise((resolve) => {
    const who = need.by ? names[need.by] || need.who || need.by : names.self;
    $("#choose-who").textContent = who
      ? t("{who} decides (line {line})", { who, line: need.line })
      : t("line {line}", { line: need.line });
    $("#choose-prompt").textContent = need.label ? `${need.name}: ${need.label}` : need.name;
    const done = (value) => {
      back.onclick = cancel.onclick = null;
      resolve(value);
    };
    $("#choose-options").replaceChildren(...need.options.map((option) =>
      el("button", { type: "button", class: "option", dataset: { value: JSON.stringify(option.value) },
        onclick: () => done(option.value) }, option.text)));
    $("#choose-closed").textContent = need.closed.length
      ? t("not open now: {options}", { options: need.closed.map((o) => o.text).join(", ") }) : "";
    renderTrace($("#choose-trace"), steps, onLine);
    const back = $("#choose-back");
    const cancel = $("#choose-cancel");
    back.disabled = answers.length === 0;
    back.onclick = () => done(BACK);
    cancel.onclick = () => done(null);
    $("#choose").hidden = false;
    $("#choose-options button").focus();
  });
}

// Where the dice came from, and how a choice was made (`how`), in the page's words.
const ORIGIN = () => ({ forced: t("forced dice"), typed: t("typed in"), generated: t("random") });
const HOW = () => ({
  given: t("answered in advance"),
  asked: t("chosen at the table"),
  only: t("the only option open"),
  recorded: t("as chosen then"),
  policy: t("the best choice for the goal"),
});

function changeItem(change, who) {
  const text = `${showPath(change.path)}: ${show(change.before)} → ${show(change.after)}`;
  return el("li", { class: "change", dataset: { path: change.path, role: who ? who.role : "self" } },
    who ? `${who.label}: ${text}` : text);
}

// The outcome in the page; names: {role: character name}; onLine(file, line) when a
// trace line is followed.
// `seed`: the seed the person gave (a "random" run's seed is the page's own: random).
export function renderOutcome(outcome, names, onLine, seed = null) {
  showWarnings($("#run-warnings"), outcome.warnings);
  const result = $("#result");
  result.replaceChildren();
  const value = outcome.result;
  if (value === null || value === undefined) {
    result.append(el("tr", {}, el("td", { class: "muted" }, t("no result"))));
  } else if (typeof value === "object" && !Array.isArray(value)) { // a record: its fields
    for (const [name, field] of Object.entries(value)) {
      result.append(el("tr", {}, el("th", {}, name), el("td", {}, show(field))));
    }
  } else { // a named roll's number
    result.append(el("tr", {}, el("td", {}, show(value))));
  }
  const changes = $("#changes");
  changes.replaceChildren(...outcome.changes.map((change) => changeItem(change, null)));
  for (const other of outcome.characters || []) {
    changes.append(...other.changes.map((change) => changeItem(change, other)));
  }
  if (!changes.children.length) changes.append(el("li", { class: "muted" }, t("none")));
  const choices = outcome.choices || [];
  $("#choices").replaceChildren(...choices.map((choice) => {
    const who = choice.by ? names[choice.by] || choice.by : names.self || t("the acting character");
    return el("li", { dataset: { choice: choice.name } },
      t("{name}: {value} — {who}, {how}", { name: choice.name, value: show(choice.value), who,
        how: HOW()[choice.how] || choice.how }));
  }));
  $("#choices-box").hidden = choices.length === 0;
  const dice = outcome.dice.length ? outcome.dice.join(", ") : t("none");
  const origin = seed !== null && outcome.origin === "generated"
    ? t("seed {seed}", { seed }) : ORIGIN()[outcome.origin] || outcome.origin;
  $("#dice").textContent = t("dice: {dice} ({origin})", { dice, origin });
  renderTrace($("#trace"), outcome.trace, onLine);
  $("#outcome").hidden = false;
}

function renderTrace(list, steps, onLine) {
  list.replaceChildren();
  for (const step of steps) {
    const link = step.line
      ? el("a", {
          class: "line", href: "#editor", title: `${step.file}:${step.line}`,
          dataset: { file: step.file || "", line: step.line },
          onclick: (event) => { event.preventDefault(); onLine(step.file, step.line); },
        }, String(step.line))
      : el("span", { class: "line" }, "");
    list.append(el("li", { class: `step-${step.kind}` }, link,
      el("span", { class: "text", style: `padding-left:${(step.depth + 1) * 1.2}em` },
        step.text)));
  }
}
