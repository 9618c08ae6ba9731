// The page: choose a rulebook and a character, run actions (checks, rolls), see odds, edit the rules.

import { ApiError, PAGE, get, quote, send } from "./api.js";
import { $, el, language, setWords, show, showPath, t } from "./dom.js";
import { RuleEditor } from "./editor.js";
import { showChecked } from "./checked.js";
import { buildForm, formTargets, formValues, isCharacter } from "./form.js";
import { computeOdds, offerOddsFields, questionOf, renderOdds } from "./odds.js";
import { sweep, sweepExample } from "./sweep.js";
import { offerLanguages } from "./languages.js";
import { answersInAdvance, offerAnswers } from "./advance.js";
import { encounter, fillRivals, offerDamage, offerHealth } from "./encounter.js";
import { diceOf, renderOutcome, runAction } from "./run.js";
import { renderSheet } from "./sheet.js";
import { editValuesForm, newCharacterForm, showTargetSheets } from "./character.js";
import { narrowToPlayer, pickCharacter, readTable, renderTable, showTable, table } from "./table.js";

const state = {
  rulebooks: [], // GET /api/rulebooks
  rulebook: null, // its describe
  character: null, // GET /api/characters/{name}: {name, source, saves_to, sheet, resources}
  characters: [], // GET /api/characters?rulebook=: the names a `character` parameter may be
  fields: [], // the action form's inputs
  lastRun: null, // {request, outcome}
  lastOdds: null,
  editing: null, // the name of the rulebook in the editor
  version: null, // its version as read (the ETag a save over it names: If-Match)
};

function status(text) {
  $("#status").textContent = text;
}

function showError(error, where = "#error") {
  const box = $(where);
  if (!error) {
    box.hidden = true;
    return;
  }
  box.textContent = error instanceof ApiError ? error.text : error.text || error.message;
  box.hidden = false;
}

// Runs `work` with the buttons off; its error shown in `where`: the editor's own errors
// (a save, the odds of the edit) beside the editor, where the one who clicked looks.
async function busy(work, where = "#error") {
  const buttons = [...document.querySelectorAll("#action-form button, #editor-odds")];
  buttons.forEach((b) => (b.disabled = true));
  showError(null);
  showError(null, "#editor-error");
  try {
    return await work();
  } catch (error) {
    showError(error, where);
    return undefined;
  } finally {
    buttons.forEach((b) => (b.disabled = false));
  }
}

function rulebookInfo(name) {
  return state.rulebooks.find((r) => r.name === name);
}

// ─── choosing ──────────────────────────────────────────────────────────────

async function loadRulebooks() {
  const { rulebooks } = await get("/api/rulebooks");
  state.rulebooks = rulebooks;
  const select = $("#rulebook");
  select.replaceChildren(
    // one that does not load is offered too: to be opened in the editor and mended (its
    // errors are listed there, once: not here too)
    ...rulebooks.map((r) => el("option", { value: r.name },
      r.error ? t("{name} (does not load)", { name: r.name })
        : r.title ? `${r.title} (${r.name})` : r.name)),
  );
  const wanted = new URLSearchParams(location.search).get("rulebook");
  const first = rulebooks.find((r) => r.name === wanted) || rulebooks.find((r) => !r.error);
  if (first) select.value = first.name;
}

// The page's words in the rulebook's language (or the one asked for: ?lang=, serve --lang).
async function loadWords(name) {
  const asked = new URLSearchParams(location.search).get("lang");
  const query = `rulebook=${quote(name)}${asked ? `&lang=${quote(asked)}` : ""}`;
  const answer = await get(`/api/words?${query}`);
  setWords(answer);
  offerLanguages(answer.languages || [], asked);
}

// Another language chosen: kept in the address (?lang=, so a reload keeps it), the
// rulebook shown again in it.
async function chooseLanguage() {
  const query = new URLSearchParams(location.search);
  const code = $("#language").value;
  if (code) query.set("lang", code);
  else query.delete("lang");
  history.replaceState(null, "", `${location.pathname}?${query}`);
  await chooseRulebook();
}

// Each rulebook chosen is numbered: a choice's answers that arrive after a newer choice
// began are dropped, so that choosing quickly never leaves an older rulebook on the page.
let choices = 0;

async function chooseRulebook() {
  const mine = ++choices;
  const current = () => mine === choices;
  const name = $("#rulebook").value;
  const info = rulebookInfo(name);
  if (info && info.error) {
    await openBroken(name, current);
    return;
  }
  await loadWords(name);
  if (!current()) return;
  status(t("loading {name}…", { name }));
  const book = await get(`/api/rulebooks/${quote(name)}?lang=${language}`);
  if (!current()) return;
  state.rulebook = book;
  $("#action").replaceChildren(...runnableGroups(book));
  const { characters } = await get(`/api/characters?rulebook=${quote(name)}`);
  if (!current()) return;
  const characterSelect = $("#character");
  state.characters = characters.map((c) => c.name);
  fillRivals(state.characters);
  characterSelect.replaceChildren(
    el("option", { value: "" }, t("(no character)")),
    ...characters.map((c) => el("option", { value: c.name },
      c.source === "shipped" ? t("{name} (shipped)", { name: c.name }) : c.name)),
  );
  const fitting = characters.find((c) => c.rulebook !== null) || characters[0];
  // ?character= with no name asks for none
  const wanted = new URLSearchParams(location.search).get("character");
  characterSelect.value = wanted === "" || characters.some((c) => c.name === wanted) ? wanted
    : fitting ? fitting.name : "";
  if (table.character && state.characters.includes(table.character)) characterSelect.value = table.character;
  fillCompare();
  await chooseCharacter();
  if (!current()) return;
  await openInEditor(name, current);
  if (!current()) return;
  renderTable();
  status(""); // loaded: the rulebook's select names it (said again, a phone's header repeats it)
}

// A rulebook of the folder that does not load: nothing to run, its text in the editor
// (whose checker marks the error's line), and the page says so.
async function openBroken(name, current) {
  await loadWords("");
  if (!current()) return;
  state.rulebook = { rulebook: name, actions: [], checks: [], opposed: [], rolls: [] };
  state.character = null; // (no sheet is read without its rulebook)
  $("#character").value = "";
  renderSheet($("#sheet"), null);
  $("#sheet-title").textContent = t("Character");
  $("#edit-values").hidden = true;
  $("#action").replaceChildren();
  chooseAction();
  status("");
  await openInEditor(name, current);
  if (!current()) return;
  const text = t("{file} does not load: mend it in the editor below (its errors are listed there), then save it.",
    { file: `${name}.rules` });
  throw Object.assign(new Error(text), { text });
}

function fillCompare() {
  const name = $("#rulebook").value;
  const info = rulebookInfo(name);
  const related = state.rulebooks.filter(
    (r) => !r.error && r.name !== name && (r.extends === name || (info && info.extends === r.name)),
  );
  const others = state.rulebooks.filter((r) => !r.error && r.name !== name && !related.includes(r));
  $("#compare").replaceChildren(
    el("option", { value: "" }, t("nothing")),
    el("option", { value: "@editor" }, t("the rules in the editor")),
    ...related.map((r) => el("option", { value: r.name }, r.title)),
    ...others.map((r) => el("option", { value: r.name }, r.title)),
  );
}

async function chooseCharacter() {
  const name = $("#character").value;
  let unfit = null;
  try {
    state.character = name
      ? await get(`/api/characters/${quote(name)}?rulebook=${quote($("#rulebook").value)}`)
      : null;
  } catch (error) {
    // a sheet this rulebook cannot read (another game's, a typo in it): the page goes on
    // without a character, and says why where the sheet would be
    if (!(error instanceof ApiError)) throw error;
    state.character = null;
    unfit = error;
    $("#character").value = "";
  }
  renderSheet($("#sheet"), state.character);
  offerHealth(state.character);
  if (unfit) {
    $("#sheet").replaceChildren(
      el("p", { class: "error", role: "alert", id: "sheet-unfit" },
        t("{name} cannot be played with this rulebook: run without a character, choose another, or correct its file.", { name }),
        el("pre", {}, unfit.text)));
  }
  $("#edit-values").hidden = !state.character;
  $("#sheet-title").textContent = state.character ? t("Character: {name}", { name }) : t("Character");
  chooseAction();
  await showHistory();
}

// The character's saved runs, newest first, each standing run with an undo button.
async function showHistory() {
  const box = $("#history-box");
  const name = state.character && state.character.source === "folder" ? state.character.name : null;
  const entries = name ? (await get(`/api/characters/${quote(name)}/history`)).entries : [];
  box.hidden = entries.length === 0;
  $("#history").replaceChildren(...entries.map((entry) => {
    const changes = entry.changes.map((c) => `${showPath(c.path)} ${show(c.before)} → ${show(c.after)}`);
    const what = entry.kind === "undo" ? t("undo of run {entry}", { entry: entry.undoes })
      : entry.kind === "sheet" ? (entry.action === "create" ? t("character made") : t("sheet edited"))
        : entry.action;
    const standing = ["run", "sheet"].includes(entry.kind) && entry.state === "applied" && entry.undone_by === null;
    return el("li", { class: entry.undone_by !== null ? "undone" : null, dataset: { entry: entry.entry } },
      `#${entry.entry} ${entry.at.slice(0, 16).replace("T", " ")} ${what}: `,
      changes.join(", ") || t("no changes"),
      standing ? el("button", { type: "button", class: "undo", onclick: () => busy(() => undo(entry.entry)) }, t("Undo")) : null);
  }));
}

async function undo(number) {
  await send("/api/undo", { entry: number });
  status(t("entry {entry} undone", { entry: number }));
  $("#saved").textContent = t("entry {entry} undone", { entry: number }); // no longer "saved"
  await reloadCharacter();
}

async function reloadCharacter(changed = new Set()) {
  const name = $("#character").value;
  state.character = await get(`/api/characters/${quote(name)}?rulebook=${quote($("#rulebook").value)}`);
  renderSheet($("#sheet"), state.character, changed);
  await showHistory();
}

// A character made in the page (character.js): offered, chosen and shown.
async function characterMade(name) {
  const { characters } = await get(`/api/characters?rulebook=${quote($("#rulebook").value)}`);
  state.characters = characters.map((c) => c.name);
  fillRivals(state.characters);
  if (![...$("#character").options].some((o) => o.value === name)) {
    $("#character").append(el("option", { value: name }, name));
  }
  $("#character").value = name;
  await chooseCharacter();
}

// What the page can run: the actions first, then the checks, the opposed checks and the
// named rolls (each runs, and has odds, on its own), each kind a group of the list.
const KINDS = [
  ["actions", "Actions"],
  ["checks", "Checks"],
  ["opposed", "Opposed checks"],
  ["rolls", "Rolls"],
];

function runnableGroups(book) {
  const option = (item) => el("option", { value: item.name }, item.label ? `${item.label} (${item.name})` : item.name);
  return KINDS.filter(([kind]) => (book[kind] || []).length)
    .map(([kind, label]) => el("optgroup", { label: t(label) }, ...book[kind].map(option)));
}

function runnable(book, name) {
  for (const [kind] of KINDS) {
    const found = (book[kind] || []).find((item) => item.name === name);
    if (found) return found;
  }
  return undefined;
}

// The characters another of the run may be: never the acting one itself.
const others = () => state.characters.filter((name) => name !== $("#character").value);

function chooseAction() {
  const book = state.rulebook;
  const name = $("#action").value;
  const item = runnable(book, name);
  if (!item) $("#params").replaceChildren();
  state.fields = item
    ? buildForm($("#params"), item.params, state.character && state.character.sheet, others())
    : [];
  showTargetSheets(state.fields).catch(showError);
  // a named roll's result is a number: no field to ask of it (one left from another
  // action would be refused, in the command line's words)
  $("#odds-field").disabled = Boolean(item) && (book.rolls || []).includes(item);
  offerDamage(offerOddsFields(item));
  $("#sweep-over").placeholder = sweepExample(item ? item.params : [], state.character && state.character.sheet);
  const choices = item ? item.choices || [] : [];
  $("#best-box").hidden = choices.length === 0;
  offerAnswers(choices);
  $("#action-choices").textContent = choices.length
    ? t("asks during the run: {choices}", { choices: choices.map((c) => c.name).join(", ") }) : "";
}

// ─── running ───────────────────────────────────────────────────────────────

function subject() {
  const request = { rulebook: $("#rulebook").value, action: $("#action").value, params: formValues(state.fields) };
  if (state.character) request.character = state.character.name;
  const targets = formTargets(state.fields);
  if (Object.keys(targets).length) request.targets = targets;
  request.lang = language;
  return request;
}

// Who each character of the run is, for the page to say who chose what: {role: name}.
function namesOf(request) {
  return { self: request.character, ...(request.targets || {}) };
}

async function run() {
  const mode = document.querySelector('input[name="dice"]:checked').value;
  const request = { ...subject(), ...diceOf(mode), answers: [] };
  if (table.role === "gm" && $("#secret").checked) request.secret = true;
  const outcome = await runAction(request, namesOf(request), followLine);
  if (!outcome) return;
  state.lastRun = { request, outcome };
  renderOutcome(outcome, namesOf(request), followLine, mode === "seed" ? request.seed : null);
  const keys = offerOddsFields(runnable(state.rulebook, request.action), outcome.result);
  if (!$("#odds-field").value && keys.includes("success")) $("#odds-field").value = "success";
  await showChangedSheet(outcome);
  await showTargetSheets(state.fields, outcome);
  const save = $("#save-sheet");
  const changed = outcome.changes.length || (outcome.characters || []).some((c) => c.changes.length);
  save.hidden = !state.character || !changed;
  if (state.character) {
    const file = state.character.saves_to;
    save.textContent = state.character.source === "shipped"
      ? t("Save a copy as {file}", { file }) : t("Save to {file}", { file });
  }
  $("#saved").textContent = "";
}

async function showChangedSheet(outcome) {
  if (!state.character) return;
  const changed = new Set(outcome.changes.map((c) => c.path));
  const info = outcome.changes.length
    ? await send("/api/sheet", { rulebook: $("#rulebook").value, sheet: outcome.sheet })
    : state.character;
  renderSheet($("#sheet"), info, changed);
}

// Saves the run shown: the server runs it again with the same dice and writes it only if
// it comes out as shown (the sheet may have changed since), journaled.
async function save() {
  const { request, outcome } = state.lastRun;
  const characters = (outcome.characters || []).map((c) => ({ role: c.role, changes: c.changes }));
  const expect = { result: outcome.result, changes: outcome.changes, characters };
  let answer;
  try {
    answer = await send("/api/run", { ...request, save: true, expect });
  } catch (error) {
    // the sheet changed since this run was shown (another page saved): shown again now
    if (error instanceof ApiError && error.status === 409) await reloadCharacter();
    throw error;
  }
  const fileOf = (path) => path.split(/[\\/]/).pop();
  const file = fileOf(answer.saved.path);
  const others = Object.values(answer.saved.others || {}).map(fileOf);
  $("#saved").textContent = others.length
    ? t("saved in {file} and {others} (journal entry {entry})",
      { file, others: others.join(", "), entry: answer.saved.entry })
    : t("saved in {file} (journal entry {entry})", { file, entry: answer.saved.entry });
  $("#save-sheet").hidden = true;
  const name = file.replace(/\.[^.]*$/, "");
  const option = [...$("#character").options].find((o) => o.value === name);
  if (option) option.textContent = name;
  $("#character").value = name;
  await reloadCharacter();
}

async function followLine(file, line) {
  const info = rulebookInfo($("#rulebook").value);
  const name = (info && info.files && info.files[file]) || $("#rulebook").value;
  if (state.editing !== name) await openInEditor(name);
  editor.showLine(line);
}

// ─── odds ──────────────────────────────────────────────────────────────────

const oddsField = () => ($("#odds-field").disabled ? "" : $("#odds-field").value.trim());

async function odds(withEditor = false) {
  const request = subject();
  const target = oddsField();
  if (target) request.field = target;
  // The action's choices in the odds: each answered in advance, or the best for a goal
  // (`success`, `mean hit`, `degree=critical`, `success - spent(Effort)/10`), computed
  // exactly: the odds under the best play.
  // Left empty, the server takes the action's own: its first yes/no field, else its
  // first number's mean (interpreter/web/play.py: default_goal).
  const goal = $("#odds-best").value.trim();
  if (!$("#best-box").hidden && goal) request.best = goal;
  const answered = answersInAdvance();
  if (Object.keys(answered).length) request.choices = answered;
  const compare = withEditor ? "@editor" : $("#compare").value;
  if (compare === "@editor") request.compare = { text: editor.text };
  else if (compare) request.compare = { rulebook: compare };
  state.lastOdds = await computeOdds(request);
  renderOdds(state.lastOdds, oddsView());
  const other = request.compare && request.compare.rulebook ? rulebookInfo(request.compare.rulebook) : null;
  const answer = state.lastOdds.a || state.lastOdds; // (compared: A's goal is the question's)
  $("#odds-question").textContent = questionOf(request, runnable(state.rulebook, request.action), other, answer.goal);
}

// The odds over a grid of one or two inputs, the chosen rulebook compared beside.
async function sweepOdds() {
  const request = subject();
  const target = oddsField();
  if (target) request.field = target;
  const compare = $("#compare").value;
  if (compare && compare !== "@editor") request.compare = [compare];
  const params = state.fields.map(({ param }) => param);
  const skills = Object.keys((state.character && state.character.sheet.skills) || {});
  const fields = [...(state.rulebook.sheet ? state.rulebook.sheet.fields.map((f) => f.name) : []), ...skills];
  await sweep(request, $("#sweep-over").value, params, fields);
}

// The chosen character against a rival, round after round: who wins (encounter.js).
async function fight() {
  const roles = state.fields.filter(({ param }) => isCharacter(param)).map(({ param }) => param.name);
  const item = runnable(state.rulebook, $("#action").value);
  await encounter(subject(), roles, (item && item.result_fields) || []);
}

function oddsView() {
  return document.querySelector('input[name="odds-view"]:checked').value;
}

// ─── the editor ────────────────────────────────────────────────────────────

let editor;

async function openInEditor(name, current = () => true) {
  const source = await get(`/api/rulebooks/${quote(name)}/source`);
  if (!current()) return; // (another rulebook was chosen meanwhile: its text goes in)
  state.editing = name;
  state.version = source.version;
  editor.load(source.text, `${name}.rules`);
  $("#editor-file").textContent = source.source === "shipped"
    ? t("{file} (shipped: save under a new name)", { file: `${name}.rules` })
    : t("{file} (in your folder)", { file: `${name}.rules` });
  $("#editor-name").value = source.source === "shipped" ? `${name}_mine` : name;
}

// Saves the editor's text as NAME.rules. Over the rulebook opened, it names the version
// read (If-Match): if someone else saved it meanwhile, nothing is written and the page
// says so; over another rulebook of the folder, it is refused (open that one first).
async function saveRules() {
  const name = $("#editor-name").value.trim();
  const file = `${name}.rules`;
  const over = name === state.editing && state.version ? { "if-match": state.version } : {};
  let answer;
  try {
    answer = await send(`/api/rulebooks/${quote(name)}`, { text: editor.text }, "PUT", over);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (![412, 428].includes(error.status)) {
      const text = `${t("{file} was not saved:", { file })}\n${error.text}`;
      throw Object.assign(new Error(text), { text });
    }
    const text = error.status === 412
      ? t("{file} was changed by someone else since you opened it: nothing was saved. Keep your edit (copy it), open the rulebook again and make it there.", { file })
      : t("{file} is in your folder already: nothing was saved. Open it (choose it above) to save your edit over it, or save under another name.", { file });
    throw Object.assign(new Error(text), { text });
  }
  await loadRulebooks();
  $("#rulebook").value = name;
  await chooseRulebook();
  status(t("saved {file}", { file: answer.file }));
  showRulesSaved(answer);
}

// What a rulebook's save left: its journal entry, with an undo (the text before back).
function showRulesSaved(answer) {
  const box = $("#editor-saved");
  if (answer.entry === null) {
    box.replaceChildren();
    return;
  }
  const undoSave = async () => {
    await send("/api/undo", { entry: answer.entry });
    box.replaceChildren();
    await loadRulebooks();
    const kept = state.rulebooks.some((r) => r.name === answer.saved);
    if (kept) $("#rulebook").value = answer.saved;
    await chooseRulebook();
    status(t("the save of {file} undone", { file: answer.file }));
  };
  box.replaceChildren(
    t("saved {file} (journal entry {entry})", { file: answer.file, entry: answer.entry }), " ",
    el("button", { type: "button", class: "undo", onclick: () => busy(undoSave) }, t("Undo")));
}

function newHouseRule() {
  const base = $("#rulebook").value;
  const title = state.rulebook.rulebook;
  editor.load(
    // in the rulebook's language, so that the editor speaks it too
    `rulebook "${title}: ${t("house rules")}" extends ${base} {\n  language "${language}"\n}\n\n# replace table Name { ... }\n`,
    `${base}_casa.rules`,
  );
  state.editing = null;
  $("#editor-file").textContent = t("a new house rule on {base}", { base });
  $("#editor-name").value = `${base}_casa`;
}

// ─── wiring ────────────────────────────────────────────────────────────────

async function start() {
  const { keywords } = await get("/api/language");
  editor = new RuleEditor($("#editor"), keywords, (result) => showChecked(result, editor));
  $("#rulebook").addEventListener("change", () => busy(chooseRulebook));
  $("#character").addEventListener("change", () => busy(chooseCharacter));
  $("#language").addEventListener("change", () => busy(chooseLanguage));
  $("#encounter-health").addEventListener("input", (event) => {
    event.target.dataset.typed = event.target.value ? "yes" : ""; // (emptied: offered again)
  });
  $("#action").addEventListener("change", chooseAction);
  $("#action-form").addEventListener("submit", (event) => {
    event.preventDefault();
    busy(run);
  });
  $("#odds-button").addEventListener("click", () => busy(() => odds()));
  $("#editor-odds").addEventListener("click", () => busy(() => odds(true), "#editor-error"));
  $("#sweep-button").addEventListener("click", () => busy(sweepOdds));
  $("#encounter-button").addEventListener("click", () => busy(fight));
  $("#save-sheet").addEventListener("click", () => busy(save));
  $("#editor-save").addEventListener("click", () => busy(saveRules, "#editor-error"));
  $("#editor-house").addEventListener("click", newHouseRule);
  for (const radio of document.querySelectorAll('input[name="odds-view"]')) {
    radio.addEventListener("change", () => state.lastOdds && renderOdds(state.lastOdds, oddsView()));
  }
  const page = { state, busy, status, reloadCharacter, characterMade };
  $("#new-character").addEventListener("click", () => newCharacterForm($("#character-editor"), page));
  $("#edit-values").addEventListener("click", () => state.character && editValuesForm($("#character-editor"), page));
  $("#params").addEventListener("change", (event) => {
    if (event.target.classList.contains("character")) busy(() => showTargetSheets(state.fields));
  });
  $("#table-pick").addEventListener("click", () => busy(async () => {
    await pickCharacter();
    narrowToPlayer();
    await chooseRulebook();
    document.body.dataset.picked = table.character; // the page is the player's now
  }));
  await loadRulebooks();
  await readTable();
  narrowToPlayer();
  await chooseRulebook().catch(showError); // (a rulebook that does not load: said, the page ready)
  await showTable({ told: (event) => { told(event); toldRules(event); } });
  document.body.dataset.ready = "yes";
}

// Another page's save or undo of the character shown: shown again as it is now; a
// character made in another page: offered here too.
function told(event) {
  if (event.kind === "character" && event.rulebook === $("#rulebook").value &&
      !state.characters.includes(event.character)) {
    state.characters.push(event.character);
    fillRivals(state.characters);
    $("#character").append(el("option", { value: event.character }, event.character));
  }
  const shown = state.character && state.character.name;
  if (!shown || event.page === PAGE || !["saved", "undo", "edited"].includes(event.kind)) return;
  const named = [event.character, ...Object.values(event.targets || {}), ...(event.characters || []), ...(event.others || [])];
  if (named.includes(shown)) busy(reloadCharacter);
}

// The game master saved the rulebook a player's page shows: shown again with its rules.
function toldRules(event) {
  if (table.role === "player" && event.kind === "rulebook" && event.rulebook === $("#rulebook").value) {
    busy(chooseRulebook);
  }
}

start().catch((error) => {
  showError(error);
  status(t("could not start"));
});
