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

// The sweep of `request` (the action's subject and fixed parameters) over what `over`
// names: an action's parameter, else a sheet field.
export async function sweep(request, over, paramNames) {
  const params = { ...request.params };
  const vary = {};
  for (const [name, values] of inputsOf(over, $("#sweep-over").placeholder)) {
    if (paramNames.includes(name)) params[name] = values;
    else vary[name] = values;
  }
  const body = { ...request, params, vary, picture: {} };
  delete body.targets;
  const answer = await send("/api/sweep", body);
  const picture = $("#sweep-picture");
  picture.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(answer.svg)}`;
  picture.alt = answer.columns.join(", ");
  $("#sweep-summary").textContent = t("{n} cases", { n: answer.rows.length });
  $("#sweep").hidden = false;
  return answer;
}
