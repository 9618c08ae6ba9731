// An action's form, built from `describe`: choices as selects, defaults filled in.
// Only what the person changed (and what is required) is sent: a default the page cannot
// show as a value (a formula, `none`) stays the rulebook's to compute.

import { el } from "./dom.js";

// A default as written in the rulebook (`"Leve"`, `0`, `no`, `none`) → a value, or undefined.
function defaultValue(param) {
  if (param.required || param.default === undefined) return undefined;
  const text = String(param.default).trim();
  if (/^"(.*)"$/s.test(text)) return text.slice(1, -1).replace(/\\(.)/g, "$1");
  if (text === "yes" || text === "true") return true;
  if (text === "no" || text === "false") return false;
  if (/^-?\d+$/.test(text)) return Number(text);
  if (Array.isArray(param.choices) && param.choices.includes(text)) return text;
  return undefined;
}

function catalogEntries(param, sheet) {
  // choices given as a sentence: "the entries of the character's Dominatus"
  const match = typeof param.choices === "string" && param.choices.match(/character's (.+)$/);
  if (!match || !sheet) return null;
  const entries = sheet[match[1]];
  if (Array.isArray(entries)) return entries.map(String);
  if (entries && typeof entries === "object") return Object.keys(entries);
  return null;
}

// params: describe's parameters; sheet: the character's data (for catalog entries)
export function buildForm(container, params, sheet) {
  container.replaceChildren();
  const fields = [];
  for (const param of params) {
    const id = `param-${param.name}`;
    const initial = defaultValue(param);
    const isList = param.type.startsWith("list");
    let choices = Array.isArray(param.choices) ? param.choices : catalogEntries(param, sheet);
    let input;
    if (param.type === "bool") {
      input = el("input", { id, type: "checkbox", name: param.name });
      input.checked = initial === true;
    } else if (choices) {
      input = el("select", { id, name: param.name, multiple: isList });
      if (!isList) {
        const blank = param.required ? "choose…" : `default: ${param.default}`;
        input.append(el("option", { value: "" }, initial === undefined ? blank : ""));
      }
      for (const choice of choices) {
        input.append(el("option", { value: String(choice) }, String(choice)));
      }
      input.value = initial === undefined ? "" : String(initial);
      if (!isList && initial !== undefined) input.querySelector('option[value=""]').remove();
    } else if (param.type === "int") {
      input = el("input", { id, type: "number", step: 1, name: param.name, class: "short" });
      if (initial !== undefined) input.value = String(initial);
      else if (!param.required) input.placeholder = String(param.default);
    } else {
      input = el("input", { id, type: "text", name: param.name });
      if (initial !== undefined) input.value = String(initial);
      else if (!param.required) input.placeholder = String(param.default);
      if (isList) input.placeholder = "a, b, c";
    }
    input.dataset.initial = JSON.stringify(read(input, param) ?? null);
    const type = param.required ? param.type : `${param.type} = ${param.default}`;
    container.append(
      el("label", { for: id }, param.name),
      el("span", {}, input, " ", el("span", { class: "type" }, type)),
    );
    fields.push({ param, input });
  }
  return fields;
}

function read(input, param) {
  if (input.type === "checkbox") return input.checked;
  if (input.multiple) return [...input.selectedOptions].map((o) => o.value);
  const text = input.value.trim();
  if (text === "") return undefined;
  if (param.type === "int" && /^-?\d+$/.test(text)) return Number(text);
  if (param.type.startsWith("list") && input.tagName === "INPUT") {
    return text.split(",").map((part) => part.trim()).filter(Boolean);
  }
  return text;
}

// The parameters to send: those required, and those changed from their default.
export function formValues(fields) {
  const params = {};
  for (const { param, input } of fields) {
    const value = read(input, param);
    if (value === undefined) continue;
    if (!param.required && JSON.stringify(value) === input.dataset.initial) continue;
    params[param.name] = value;
  }
  return params;
}
