// What the checker said of the editor's text: a word in the toolbar (✓, or how many
// errors), and each finding listed under it.

import { $, el, t, tn } from "./dom.js";

export function showChecked(result, editor) {
  const line = $("#editor-status");
  if (result.failed) {
    line.textContent = result.failed;
    line.className = "bad";
    return;
  }
  const errors = result.diagnostics.filter((d) => d.severity === "error").length;
  const warnings = result.diagnostics.length - errors;
  const warned = warnings ? `, ${tn("{n} warning", "{n} warnings", warnings)}` : "";
  line.textContent = result.ok
    ? `${t("✓ checks")}${warned}`
    : `${tn("{n} error", "{n} errors", errors)}${warned}`;
  line.className = result.ok ? "good" : "bad";
  listProblems(result.diagnostics, editor);
}

// The checker's findings in words under the toolbar, each a button to its line: what the
// gutter's marks say only to a mouse over them, readable and reached by the keyboard.
const LISTED = 5;

function listProblems(diagnostics, editor) {
  const shown = diagnostics.slice(0, LISTED).map((d) => {
    const at = d.location || {};
    const here = at.line && (!at.file || at.file === editor.name);
    const where = here ? t("line {line}", { line: at.line })
      : at.file && at.line ? `${at.file}:${at.line}` : "";
    const text = `${where ? `${where}: ` : ""}${d.message}${d.hint ? ` (${d.hint})` : ""}`;
    return el("li", { class: d.severity === "error" ? "bad" : "warned" },
      here ? el("button", { type: "button", class: "link", onclick: () => editor.showLine(at.line) }, text)
        : text);
  });
  const more = diagnostics.length - shown.length;
  if (more > 0) shown.push(el("li", { class: "muted" }, t("… and {n} more", { n: more })));
  $("#editor-problems").replaceChildren(...shown);
  $("#editor-problems").hidden = shown.length === 0;
}
