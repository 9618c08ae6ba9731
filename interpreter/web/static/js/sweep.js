// A sweep in the page: the odds of the action over one or two inputs (POST /api/sweep),
// drawn by the server as SVG (a heatmap for two inputs, lines for one, a panel per
// rulebook) and shown as an image, so nothing in it runs in the page.

import { send } from "./api.js";
import { $, t } from "./dom.js";

// An example of what to sweep, from what is on the page: the action's first whole-number
// parameter around its default, else the character's first number, else a made-up name.
export function sweepExample(params, sheet) {
  const whole = params.find((p) => p.type.kind === "named" && p.type.name === "int");
  if (whole) {
    const at = Number.isInteger(whole.default) ? whole.default : 0;
    return `${whole.name}=${at - 3}..${at + 3}`;
  }
  const [name, value] = Object.entries(sheet || {}).find(([, v]) => Number.isInteger(v)) || [];
  return name ? `${name}=${Math.max(0, value - 2)}..${value + 2}` : "bonus=-3..3";
}

// "modificador=-3..3; Voluntad=1..6": each input's values, a range, a list or `all`.
function inputsOf(text, example) {
  const inputs = [];
  const parts = text.split(";").map((p) => p.trim()).filter(Boolean);
  if (!parts.length) throw new Error(t("write NAME=VALUES, such as {example}", { example }));
  for (const part of parts) {
    const at = part.indexOf("=");
    if (at < 1) throw new Error(t("write NAME=VALUES, such as {example}", { example }));
    const name = part.slice(0, at).trim();
    const written = part.slice(at + 1).trim();
    const values = written === "all" || written.includes("..") ? written
      : written.split(",").map((v) => v.trim()).map((v) => (/^-?\d+$/.test(v) ? Number(v) : v));
    inputs.push([name, values]);
  }
  return inputs;
}

// Whether an input takes more than one value: `all`, a range `1..6`, a list of two.
function several(values) {
  if (Array.isArray(values)) return values.length > 1;
  const range = /^(-?\d+)\.\.(-?\d+)$/.exec(values);
  return !range || Number(range[1]) !== Number(range[2]);
}

// What "Sweep over" names, checked in the page's words before it is sent (the server's
// own errors name the command line's --param and --vary): each name a parameter of the
// action or a field of the sheet, a parameter's values among its choices, `all` only for
// a parameter with choices, and one input at least with several values.
function checkInputs(inputs, params, fields, example) {
  for (const [name, values] of inputs) {
    const param = params.find((p) => p.name === name);
    if (!param && !fields.includes(name)) {
      const valid = [...params.map((p) => p.name), ...fields].join(", ");
      throw new Error(t("{name} is neither a parameter of the action nor a field of the sheet: {valid}", { name, valid }));
    }
    const choices = param && param.choices;
    if (values === "all" && !choices) {
      throw new Error(t("give {name} a range or a list, such as {example}", { name, example: `${name}=1..5` }));
    }
    const known = (choices || []).map(String);
    const wrong = choices && Array.isArray(values) ? values.findIndex((v) => !known.includes(String(v))) : -1;
    if (wrong >= 0) {
      throw new Error(t("{name}: {value} is not one of its choices: {choices}", { name, value: values[wrong], choices: known.join(", ") }));
    }
  }
  if (!inputs.some(([, values]) => several(values))) {
    throw new Error(t("give {name} a range or a list, such as {example}", { name: inputs[0][0], example }));
  }
}

// The sweep of `request` (the action's subject and fixed parameters) over what `over`
// names: an action's parameter (of `params`, describe's), else a field of the sheet (of
// `fields`).
export async function sweep(request, over, params, fields) {
  const example = $("#sweep-over").placeholder;
  const inputs = inputsOf(over, example);
  checkInputs(inputs, params, fields, example);
  const names = params.map((p) => p.name);
  const fixed = { ...request.params };
  const vary = {};
  for (const [name, values] of inputs) {
    if (names.includes(name)) fixed[name] = values;
    else vary[name] = values;
  }
  const body = { ...request, params: fixed, vary, picture: {} };
  delete body.targets;
  const answer = await send("/api/sweep", body);
  const picture = $("#sweep-picture");
  picture.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(answer.svg)}`;
  picture.alt = answer.columns.join(", ");
  $("#sweep-summary").textContent = t("{n} cases", { n: answer.rows.length });
  $("#sweep").hidden = false;
  return answer;
}
