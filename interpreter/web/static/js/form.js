// An action's form, built from `describe`: choices as selects, defaults filled in, the
// other characters of the run (a `character` parameter) chosen among the folder's.
// Only what the person changed (and what is required) is sent: a default the rulebook
// computes (a formula: `default_expression`) stays the rulebook's to compute.

import { el, show, t } from "./dom.js";

export const isCharacter = (param) => param.type.kind === "named" && param.type.name === "character";

// The entries of the sheet's catalog a parameter takes one of (`choices_from`), or, for
// a skill of an open list (no fixed choices), the skills the sheet has (and the default).
function catalogEntries(param, sheet) {
  const from = param.choices_from || (param.type.name === "skill" ? "skills" : null);
  if (!from || !sheet) return null;
  const entries = sheet[from];
  let names = null;
  if (Array.isArray(entries)) names = entries.map(String);
  else if (entries && typeof entries === "object") names = Object.keys(entries);
  if (names && param.choices_from === null && typeof param.default === "string" &&
      !names.includes(param.default)) names.unshift(param.default);
  return names && names.length ? names : null;
}

const typeName = (param) => param.type.name || param.type.kind;

// params: describe's parameters; sheet: the character's data (for catalog entries);
// characters: the names of the characters a `character` parameter may be
export function buildForm(container, params, sheet, characters = []) {
  container.replaceChildren();
  const fields = [];
  for (const param of params) {
    const id = `param-${param.name}`;
    const initial = param.default === null ? undefined : param.default;
    const isList = param.type.kind === "list";
    const fixed = Array.isArray(param.choices) && param.choices.length ? param.choices : null;
    const choices = fixed || catalogEntries(param, sheet);
    const shownDefault = param.default_expression ?? show(initial);
    let input;
    if (isCharacter(param)) {
      input = el("select", { id, name: param.name, class: "character" });
      input.append(el("option", { value: "" }, param.required ? t("choose…") : t("none")));
      for (const name of characters) input.append(el("option", { value: name }, name));
    } else if (typeName(param) === "bool") {
      input = el("input", { id, type: "checkbox", name: param.name });
      input.checked = initial === true;
    } else if (choices) {
      input = el("select", { id, name: param.name, multiple: isList });
      if (!isList) {
        const blank = param.required ? t("choose…") : t("default: {value}", { value: shownDefault });
        input.append(el("option", { value: "" }, initial === undefined ? blank : ""));
      }
      for (const choice of choices) {
        input.append(el("option", { value: String(choice) }, String(choice)));
      }
      input.value = initial === undefined ? "" : String(initial);
      if (!isList && initial !== undefined) input.querySelector('option[value=""]').remove();
    } else if (typeName(param) === "int") {
      input = el("input", { id, type: "number", step: 1, name: param.name, class: "short" });
      if (initial !== undefined) input.value = String(initial);
      else if (!param.required) input.placeholder = String(shownDefault);
    } else {
      input = el("input", { id, type: "text", name: param.name });
      if (initial !== undefined && !isList) input.value = String(initial);
      else if (!param.required) input.placeholder = String(shownDefault);
      if (isList) input.placeholder = t("a, b, c");
    }
    input.dataset.initial = JSON.stringify(read(input, param) ?? null);
    const type = param.required ? typeText(param.type) : `${typeText(param.type)} = ${shownDefault}`;
    container.append(
      el("label", { for: id }, param.name),
      el("span", {}, input, " ", el("span", { class: "type" }, type)),
    );
    fields.push({ param, input });
  }
  return fields;
}

// A parameter's type in words, as `rulebook describe` says it (número entero, sí/no,
// lista de …); a type the rulebook names (a table, its own options) as it names it.
const TYPE_WORDS = {
  int: "whole number", number: "number", bool: "yes/no", text: "text", attribute: "attribute",
  skill: "skill", character: "character", dice: "dice",
};

function typeText(type) {
  if (type.kind === "list" && type.item) return t("list of {item}", { item: typeText(type.item) });
  return type.name in TYPE_WORDS ? t(TYPE_WORDS[type.name]) : type.text;
}

function read(input, param) {
  if (input.type === "checkbox") return input.checked;
  if (input.multiple) return [...input.selectedOptions].map((o) => o.value);
  const text = input.value.trim();
  if (text === "") return undefined;
  const item = param.type.kind === "list" ? param.type.item : param.type;
  const number = (part) => (item && item.name === "int" && /^-?\d+$/.test(part) ? Number(part) : part);
  if (param.type.kind === "list") {
    return text.split(",").map((part) => part.trim()).filter(Boolean).map(number);
  }
  return number(text);
}

// The parameters to send: those required, and those changed from their default.
export function formValues(fields) {
  const params = {};
  for (const { param, input } of fields) {
    if (isCharacter(param)) continue;
    const value = read(input, param);
    if (value === undefined) continue;
    if (!param.required && JSON.stringify(value) === input.dataset.initial) continue;
    params[param.name] = value;
  }
  return params;
}

// The other characters of the run: {parameter: character name}, those chosen.
export function formTargets(fields) {
  const targets = {};
  for (const { param, input } of fields) {
    if (isCharacter(param) && input.value) targets[param.name] = input.value;
  }
  return targets;
}
