// The editor's help, as an editor with `rulebook lsp` has it: completion, hover and the
// outline, asked of POST /api/editor (the same functions as the language server).

import { autocompletion, hoverTooltip } from "../vendor/codemirror.js";
import { send } from "./api.js";
import { $, el, t } from "./dom.js";

// What the server calls each kind of item, as CodeMirror draws it.
const KINDS = {
  keyword: "keyword", variable: "variable", field: "property", function: "function",
  class: "class", enum: "enum", property: "property",
};

function ask(nameOf, state, position, what) {
  return send("/api/editor", { text: state.doc.toString(), name: nameOf(), position, what });
}

// Markdown as the server writes it (a heading line, code blocks, `code`, **bold**), drawn
// with DOM nodes: the text comes from the rules, never read as HTML.
function markdown(text) {
  const box = el("div", { class: "cm-rulebook-hover" });
  text.split(/\n?```(?:rulebook)?\n?/).forEach((part, index) => {
    if (index % 2 === 1) {
      box.append(el("pre", {}, part));
      return;
    }
    for (const paragraph of part.split(/\n{2,}/)) {
      if (!paragraph.trim()) continue;
      const p = el("p");
      for (const piece of paragraph.split(/(`[^`]+`|\*\*[^*]+\*\*)/)) {
        if (piece.startsWith("`")) p.append(el("code", {}, piece.slice(1, -1)));
        else if (piece.startsWith("**")) p.append(el("strong", {}, piece.slice(2, -2)));
        else if (piece) p.append(piece);
      }
      box.append(p);
    }
  });
  return box;
}

// The CodeMirror extensions; `nameOf()` is the rulebook's name in the folder.
export function assists(nameOf) {
  const complete = async (context) => {
    if (!context.explicit && !context.matchBefore(/[\p{L}_.[("'][\p{L}\p{N}_]*$/u)) return null;
    let answer;
    try {
      answer = await ask(nameOf, context.state, context.pos, "complete");
    } catch {
      return null;
    }
    if (!answer.items.length) return null;
    return {
      from: answer.from,
      to: answer.to,
      options: answer.items.map((item) => ({
        label: item.label, type: KINDS[item.kind] || "text", detail: item.detail,
        apply: item.insert,
      })),
      validFor: /^[\p{L}\p{N}_']*$/u,
    };
  };
  const hover = hoverTooltip(async (view, position) => {
    let answer;
    try {
      answer = await ask(nameOf, view.state, position, "hover");
    } catch {
      return null;
    }
    if (!answer.hover) return null;
    return {
      pos: answer.hover.from, end: answer.hover.to, above: true,
      create: () => ({ dom: markdown(answer.hover.markdown) }),
    };
  });
  return [autocompletion({ override: [complete] }), hover];
}

// The outline of the text: its sheet, tables, checks and actions; a click goes there.
export async function showOutline(nameOf, state, goTo) {
  const box = $("#editor-outline");
  if (!box) return;
  let answer;
  try {
    answer = await ask(nameOf, state, 0, "outline");
  } catch {
    return;
  }
  const item = (symbol) => {
    const link = el("button", { type: "button", class: `outline-${symbol.kind}` }, symbol.name);
    link.title = `${symbol.kind} · ${symbol.line}`;
    link.addEventListener("click", () => goTo(symbol.line));
    const li = el("li", {}, link);
    if (symbol.children.length) li.append(el("ul", {}, ...symbol.children.map(item)));
    return li;
  };
  box.replaceChildren(el("h3", {}, t("Outline")), el("ul", {}, ...answer.outline.map(item)));
}
