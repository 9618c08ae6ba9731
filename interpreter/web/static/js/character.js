// Characters in the page: a new one made from the rulebook's sheet (describe's JSON
// Schema of each field), values of the one shown set by hand (healing, advancement), and
// the sheets of the other characters of an action (its targets). The server reads every
// value as a sheet file is read (POST /api/characters, PATCH /api/characters/NAME): the
// first value wrong comes back with its field, and is shown next to it.

import { ApiError, get, quote, send } from "./api.js";
import { $, el, language, show, t } from "./dom.js";
import { renderSheet } from "./sheet.js";

// ─── the form of a sheet's values ────────────────────────────────────────────

// One input per value: numbers, yes/no, texts, lists ("a, b, c") and anything larger
// (a catalog, a resource kept per group) as JSON. `initial`: path → value shown.
function valueInput(id, schema, initial) {
  const type = schema.type;
  let input;
  if (type === "integer" || type === "number") {
    input = el("input", { id, type: "number", step: 1, class: "short",
      min: schema.minimum, max: schema.maximum });
  } else if (type === "boolean") {
    input = el("select", { id },
      el("option", { value: "" }, ""), el("option", { value: "true" }, t("yes")),
      el("option", { value: "false" }, t("no")));
  } else if (Array.isArray(schema.enum)) {
    input = el("select", { id }, el("option", { value: "" }, ""),
      ...schema.enum.map((v) => el("option", { value: String(v) }, String(v))));
  } else if (type === "string") {
    input = el("input", { id, type: "text" });
  } else if (type === "array") {
    input = el("input", { id, type: "text", placeholder: t("a, b, c") });
  } else {
    input = el("textarea", { id, rows: 2, placeholder: "{}" });
  }
  input.dataset.kind = type === "array" ? "list" : input.tagName === "TEXTAREA" ? "json" : type || "json";
  if (initial !== undefined) input.value = written(input, initial);
  input.dataset.initial = input.value;
  return input;
}

function written(input, value) {
  if (value === null || value === undefined) return "";
  if (input.dataset.kind === "list") return value.join(", ");
  if (input.dataset.kind === "json") return JSON.stringify(value);
  return String(value);
}

// The skills of an open list (`skills in 0..5`), any name: "Climbing: 2, Stealth: 1".
function skillsInput(id) {
  const input = el("input", { id, type: "text", placeholder: t("Climbing: 2, Stealth: 1") });
  input.dataset.kind = "skills";
  input.dataset.initial = "";
  return input;
}

// The value an input holds, as JSON (undefined: left empty). Text the server cannot take
// (a number that is not one) is sent as it is typed: the server says what is wrong.
function valueOf(input) {
  const text = input.value.trim();
  if (text === "") return undefined;
  switch (input.dataset.kind) {
    case "skills":
      return Object.fromEntries(text.split(",").map((part) => part.trim()).filter(Boolean).map((part) => {
        const at = part.lastIndexOf(":");
        const level = at < 0 ? "" : part.slice(at + 1).trim();
        return [at < 0 ? part : part.slice(0, at).trim(), /^-?\d+$/.test(level) ? Number(level) : level];
      }));
    case "integer":
    case "number":
      return /^-?\d+$/.test(text) ? Number(text) : text;
    case "boolean":
      return text === "true";
    case "list":
      return text.split(",").map((part) => part.trim()).filter(Boolean);
    case "json":
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    default:
      return text;
  }
}

// A row of the form: its label, its input, where its error goes.
function fieldRow(form, path, label, input, note) {
  const error = el("span", { class: "field-error", id: `${input.id}-error`, role: "alert" });
  input.setAttribute("aria-describedby", error.id);
  form.rows.set(path, { input, error });
  form.grid.append(
    el("label", { for: input.id }, label),
    el("span", {}, input, note ? el("span", { class: "type" }, ` ${note}`) : null, " ", error),
  );
}

function newForm(box, title, submitText) {
  const grid = el("div", { class: "params" });
  const general = el("p", { class: "error field-error", role: "alert", hidden: true });
  const submit = el("button", { type: "submit" }, submitText);
  const cancel = el("button", { type: "button", onclick: () => closeForm(box) }, t("Cancel"));
  // (no check of the browser's own: the server reads every value as the command line does)
  const node = el("form", { class: "character-form", autocomplete: "off", novalidate: true },
    el("h3", {}, title), grid, general, el("div", { class: "buttons" }, submit, cancel));
  box.replaceChildren(node);
  box.hidden = false;
  return { node, grid, general, rows: new Map() };
}

function closeForm(box) {
  box.replaceChildren();
  box.hidden = true;
}

// The server's errors, each next to its field (every value wrong of a new sheet comes as
// `diagnostics`), or above the buttons when it names none; the first field wrong focused.
function showFieldError(form, error) {
  for (const { input, error: place } of form.rows.values()) {
    place.textContent = "";
    input.removeAttribute("aria-invalid");
  }
  form.general.hidden = true;
  if (!(error instanceof ApiError)) throw error;
  const each = error.error.diagnostics && error.error.diagnostics.length ? error.error.diagnostics : [error.error];
  let first = null;
  for (const one of each) {
    const field = one.field;
    const row = form.rows.get(field) || form.rows.get(String(field || "").split(".")[0]);
    const text = [one.message, one.hint].filter(Boolean).join(" · ");
    if (row) {
      row.error.textContent = text;
      row.input.setAttribute("aria-invalid", "true");
      first = first || row.input;
    } else {
      form.general.textContent = text;
      form.general.hidden = false;
    }
  }
  if (first) first.focus();
}

// ─── a new character ─────────────────────────────────────────────────────────

// The form of a new character: a name, and every field of the rulebook's sheet; what is
// left empty is left out (a resource starts full, a field with a default takes it).
export function newCharacterForm(box, page) {
  const book = page.state.rulebook;
  const form = newForm(box, t("New character"), t("Create"));
  fieldRow(form, "name", t("Name"), el("input", { id: "new-name", type: "text", required: true,
    pattern: "[^\\W_][\\w\\-]*" }));
  book.sheet.fields.forEach((field, i) => {
    const schema = field.schema || {};
    const required = field.kind !== "resource" && !("default" in schema) &&
      (schema.type === "integer");
    const note = field.kind === "resource" ? t("empty: full")
      : required ? null : "default" in schema ? t("default: {value}", { value: show(schema.default) }) : t("optional");
    const input = valueInput(`new-field-${i}`, schema, undefined);
    input.dataset.path = field.name;
    fieldRow(form, field.name, field.name, input, note);
  });
  if (book.sheet.schema.properties.skills) fieldRow(form, "skills", t("skills"), skillsInput("new-skills"), t("optional"));
  form.node.addEventListener("submit", (event) => {
    event.preventDefault();
    page.busy(async () => {
      const sheet = {};
      for (const [path, { input }] of form.rows) {
        if (path === "name") continue;
        const value = valueOf(input);
        if (value !== undefined) sheet[path] = value;
      }
      const name = $("#new-name").value.trim();
      let answer;
      try {
        answer = await send("/api/characters", { rulebook: $("#rulebook").value, name, sheet, lang: language });
      } catch (error) {
        showFieldError(form, error);
        return;
      }
      closeForm(box);
      await page.characterMade(answer.created);
      page.status(t("{name} made (journal entry {entry})", { name: answer.created, entry: answer.entry }));
    });
  });
  $("#new-name").focus();
}

// ─── values set by hand ──────────────────────────────────────────────────────

// The form of the character shown: each resource, and each value of its sheet (a list as
// "a, b, c", a catalog as JSON); only what is changed is sent, with what the page showed
// (a stale page refused).
export function editValuesForm(box, page) {
  const book = page.state.rulebook;
  const info = page.state.character;
  const name = info.name;
  const form = newForm(box, t("Edit {name}", { name }), t("Save values"));
  const shown = {};
  let i = 0;
  for (const resource of info.resources) {
    const input = valueInput(`edit-field-${i++}`, { type: "integer", minimum: resource.min, maximum: resource.max }, resource.value);
    shown[resource.path] = resource.value;
    fieldRow(form, resource.path, resource.path, input, t("of {max}", { max: show(resource.max) }));
  }
  const resources = new Set(info.resources.map((r) => r.path.split(".")[0]));
  for (const field of book.sheet.fields) {
    const schema = field.schema || {};
    if (resources.has(field.name)) continue;
    const value = info.sheet[field.name];
    const input = valueInput(`edit-field-${i++}`, schema, value);
    shown[field.name] = value;
    fieldRow(form, field.name, field.name, input, null);
  }
  for (const [skill, level] of Object.entries(info.sheet.skills || {})) {
    const input = valueInput(`edit-field-${i++}`, { type: "integer" }, level);
    shown[`skills.${skill}`] = level;
    fieldRow(form, `skills.${skill}`, skill, input, null);
  }
  if (book.sheet.schema.properties.skills) fieldRow(form, "skills", t("new skills"), skillsInput(`edit-field-${i++}`), null);
  form.node.addEventListener("submit", (event) => {
    event.preventDefault();
    page.busy(async () => {
      const values = {};
      const was = {};
      for (const [path, { input }] of form.rows) {
        if (input.value === input.dataset.initial) continue;
        if (path === "skills") { // each new one a value of its own, as the others
          for (const [skill, level] of Object.entries(valueOf(input))) values[`skills.${skill}`] = level;
          continue;
        }
        values[path] = valueOf(input) ?? null;
        if (shown[path] !== undefined) was[path] = shown[path];
      }
      if (!Object.keys(values).length) {
        closeForm(box);
        return;
      }
      let answer;
      try {
        answer = await send(`/api/characters/${quote(name)}`,
          { rulebook: $("#rulebook").value, values, shown: was, lang: language }, "PATCH");
      } catch (error) {
        if (error instanceof ApiError && error.status === 409) {
          closeForm(box);
          await page.reloadCharacter();
          throw error;
        }
        showFieldError(form, error);
        return;
      }
      closeForm(box);
      await page.reloadCharacter(new Set(answer.changes.map((c) => c.path)));
      page.status(t("{name}: values saved (journal entry {entry})", { name, entry: answer.entry }));
    });
  });
}

// ─── the other characters of an action ───────────────────────────────────────

// Each target chosen in the action's form (a `character` parameter), its sheet shown:
// as it is (GET), or, after a run, as the run left it with its changes marked.
export async function showTargetSheets(fields, outcome = null) {
  const box = $("#target-sheets");
  const chosen = fields.filter(({ input }) => input.classList.contains("character") && input.value)
    .map(({ param, input }) => ({ role: param.name, name: input.value }));
  box.hidden = chosen.length === 0;
  const rulebook = $("#rulebook").value;
  const parts = [];
  for (const { role, name } of chosen) {
    const ran = outcome && (outcome.characters || []).find((c) => c.role === role);
    const info = ran && ran.changes.length
      ? await send("/api/sheet", { rulebook, sheet: ran.sheet })
      : await get(`/api/characters/${quote(name)}?rulebook=${quote(rulebook)}`);
    const sheet = el("div", { class: "target-sheet", dataset: { role, character: name } });
    renderSheet(sheet, info, new Set(ran ? ran.changes.map((c) => c.path) : []));
    parts.push(el("h3", {}, t("{role}: {name}", { role, name })), sheet);
  }
  box.replaceChildren(...parts);
}
