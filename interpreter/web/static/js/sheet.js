// The character's sheet: values in a table, resources as bars; what a run changed marked.

import { el, show, showWarnings, t } from "./dom.js";

// Keys of a sheet file about the file, not values of the character: `rulebook:` names the
// game (interpreter/sheets/validation.py: META_KEYS).
const META_KEYS = new Set(["rulebook"]);

function valueAt(sheet, path) {
  const [name, key] = path.split(".", 2);
  const value = sheet[name] !== undefined ? sheet[name] : (sheet.skills || {})[name];
  return key !== undefined && value && typeof value === "object" ? value[key] : value;
}

// info: {sheet, resources: [{path, value, min, max}]}; changed: a Set of changed paths
export function renderSheet(container, info, changed = new Set()) {
  container.replaceChildren();
  if (!info) {
    container.append(el("p", { class: "muted" }, t("No character.")));
    return;
  }
  if (info.warnings && info.warnings.length) {
    const warned = el("ul", { class: "warnings", id: "sheet-warnings" });
    showWarnings(warned, info.warnings);
    container.append(warned);
  }
  const resourcePaths = new Set(info.resources.map((r) => r.path));
  const resourceNames = new Set(info.resources.map((r) => r.path.split(".")[0]));
  const bars = el("div", { id: "resources" });
  for (const resource of info.resources) {
    // From 0 (or the minimum, when it is above 0) to the maximum: a resource that may go
    // below zero (Esencia at -10) still reads as "how much is left".
    const low = Math.max(0, Number(resource.min));
    const span = Number(resource.max) - low;
    const share = span > 0 ? (Number(resource.value) - low) / span : 1;
    const percent = Math.max(0, Math.min(1, share)) * 100;
    bars.append(
      el(
        "div",
        {
          class: "resource" + (changed.has(resource.path) ? " changed" : ""),
          dataset: { path: resource.path },
        },
        el("div", { class: "label" },
          el("span", {}, resource.path),
          el("span", { class: "value",
            title: t("from {low} to {high}", { low: show(resource.min), high: show(resource.max) }) },
            `${show(resource.value)} / ${show(resource.max)}`)),
        el("div", {
          class: "bar", role: "meter", "aria-label": resource.path,
          "aria-valuemin": resource.min, "aria-valuemax": resource.max,
          "aria-valuenow": resource.value,
        }, el("div", { class: "fill" + (percent <= 25 ? " low" : ""), style: `width:${percent}%` })),
      ),
    );
  }
  if (info.resources.length) container.append(bars);
  // Fields at nothing (0, none, empty) go under a fold: a sheet has many of them.
  const table = el("table", { class: "sheet-table" });
  const idle = el("table", { class: "sheet-table" });
  const place = (name, value, isChanged) =>
    (isEmpty(value) && !isChanged ? idle : table).append(row(name, value, isChanged));
  for (const [name, value] of Object.entries(info.sheet)) {
    if (resourceNames.has(name) || resourcePaths.has(name) || META_KEYS.has(name)) continue;
    if (name === "skills" && value && typeof value === "object") {
      for (const [skill, level] of Object.entries(value)) {
        place(skill, level, changed.has(skill) || changed.has(`skills.${skill}`));
      }
      continue;
    }
    place(name, value, [...changed].some((p) => p === name || p.startsWith(name + ".")));
  }
  container.append(table);
  if (idle.rows.length) {
    container.append(el("details", {}, el("summary", { class: "muted" },
      t("{n} more at 0 or empty", { n: idle.rows.length })), idle));
  }
}

function isEmpty(value) {
  if (value === 0 || value === null || value === "" || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}

function row(name, value, changed) {
  let shown;
  if (Array.isArray(value)) shown = value.map(show).join("; ");
  else if (value && typeof value === "object") {
    shown = Object.entries(value).map(([k, v]) => `${k}: ${show(v)}`).join("; ");
  } else shown = show(value);
  return el("tr", { class: changed ? "changed" : null, dataset: { field: name } },
    el("td", {}, name), el("td", {}, shown));
}

export { valueAt };
