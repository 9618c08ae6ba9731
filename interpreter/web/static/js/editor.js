// Authoring in the page: CodeMirror 6 with the rulebook language highlighted and the
// checker's diagnostics underlined as you type (POST /api/check), did-you-mean included.

import {
  EditorState, EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  highlightSpecialChars, drawSelection, history, defaultKeymap, historyKeymap,
  StreamLanguage, syntaxHighlighting, HighlightStyle, bracketMatching, linter, lintGutter,
  searchKeymap, highlightSelectionMatches, tags,
} from "../vendor/codemirror.js";
import { send } from "./api.js";
import { t } from "./dom.js";
import { assists, showOutline } from "./assist.js";

// The rulebook language for highlighting: comments, texts, quoted names, dice terms,
// numbers, the grammar's keywords (sent by the server, read from the grammar itself).
function rulebookLanguage(keywords) {
  const words = new Set(keywords);
  const definers = new Set(["action", "check", "opposed", "table", "formula", "roll", "ladder",
    "die"]);
  return StreamLanguage.define({
    name: "rulebook",
    startState: () => ({ defining: false }),
    token(stream, state) {
      if (stream.eatSpace()) return null;
      // The name after `action`, `table`, ... is a definition (quoted or not).
      const defining = state.defining;
      state.defining = false;
      if (stream.match(/#.*/)) return "comment";
      if (stream.match(/"(?:[^"\\\n]|\\.)*"?/)) return "string";
      if (stream.match(/'[^'\n]*'?/)) return defining ? "variableName.definition" : "variableName";
      if (stream.match(/(?:\d+)?d(?:\d+|%|F)(?:[a-z]{1,2}|[<>=!]{1,2}|-?\d+)*(?![\p{L}\p{N}_])/u)) {
        return "atom";
      }
      // a pool of a die of symbols: `2dBoost`, `(n)dAbility` (its count always written)
      if (stream.match(/(?:\d+|\([^()\n]*\))d[\p{L}_][\p{L}\p{N}_]*/u)) return "atom";
      if (stream.match(/(?:-?\d+)?\.\.(?:-?\d+)?|\d+(?:\.\d+)?/)) return "number";
      const word = stream.match(/[\p{L}_][\p{L}\p{N}_]*/u);
      if (word) {
        if (defining) return "variableName.definition";
        if (words.has(word[0])) {
          state.defining = definers.has(word[0]);
          return "keyword";
        }
        return /^\p{Lu}/u.test(word[0]) ? "typeName" : "variableName";
      }
      if (stream.match(/[<>!=]=?|[-+*/→]/)) return "operator";
      stream.next();
      return null;
    },
    languageData: { commentTokens: { line: "#" } },
  });
}

const style = HighlightStyle.define([
  { tag: tags.keyword, color: "var(--cm-keyword)", fontWeight: "600" },
  { tag: tags.string, color: "var(--cm-string)" },
  { tag: tags.comment, color: "var(--cm-comment)", fontStyle: "italic" },
  { tag: tags.atom, color: "var(--cm-atom)", fontWeight: "600" },
  { tag: tags.number, color: "var(--cm-number)" },
  { tag: tags.typeName, color: "var(--cm-type)" },
  { tag: tags.definition(tags.variableName), color: "var(--ink)", fontWeight: "700" },
  { tag: tags.operator, color: "var(--cm-operator)" },
]);

// The checker's findings for `text` as CodeMirror diagnostics; those in another file
// (a base rulebook) are shown at the start, saying where they are.
function diagnosticsOf(result, doc, name) {
  const out = [];
  for (const finding of result.diagnostics) {
    const d = { ...finding, ...(finding.location || {}) }; // file, line, column, end_…
    const message = d.hint ? `${d.message}\n${d.hint}` : d.message;
    if (!d.line || d.file !== name) {
      const where = d.file && d.line ? ` (${d.file}:${d.line}:${d.column})` : "";
      out.push({ from: 0, to: Math.min(doc.length, doc.line(1).to), severity: d.severity,
        message: message + where });
      continue;
    }
    const line = doc.line(Math.min(d.line, doc.lines));
    const from = Math.min(line.from + d.column - 1, line.to);
    let to = from + 1;
    if (d.end_line) {
      const end = doc.line(Math.min(d.end_line, doc.lines));
      to = Math.min(end.from + d.end_column - 1, end.to);
    }
    out.push({ from, to: Math.max(to, from + (from < doc.length ? 1 : 0)), severity: d.severity,
      message, source: "rulebook check" });
  }
  return out;
}

export class RuleEditor {
  constructor(parent, keywords, onChecked) {
    this.name = "<editor>.rules";
    this.onChecked = onChecked;
    const check = async (view) => {
      const text = view.state.doc.toString();
      let result;
      try {
        result = await send("/api/check", { text, name: this.name });
      } catch (error) {
        this.onChecked({ ok: false, failed: error.message });
        return [];
      }
      this.onChecked(result);
      showOutline(() => this.name, view.state, (line) => this.showLine(line));
      return diagnosticsOf(result, view.state.doc, this.name);
    };
    this.view = new EditorView({
      parent,
      state: EditorState.create({
        doc: "",
        extensions: [
          lineNumbers(), highlightActiveLineGutter(), highlightSpecialChars(), history(),
          drawSelection(), highlightActiveLine(), bracketMatching(), highlightSelectionMatches(),
          rulebookLanguage(keywords), syntaxHighlighting(style),
          lintGutter(), linter(check, { delay: 350 }), assists(() => this.name),
          keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap]),
          // an accessible name; Tab is not captured, so it moves focus out (issue 26); its
          // tabindex says it is focusable to those who read no contenteditable (axe-core)
          EditorView.contentAttributes.of({ "aria-label": t("rulebook editor"), tabindex: "0" }),
          EditorView.lineWrapping,
        ],
      }),
    });
  }

  get text() {
    return this.view.state.doc.toString();
  }

  // Loads a rulebook's text; `name` is what its diagnostics call it.
  load(text, name) {
    this.name = name;
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
  }

  // Scrolls to a line and selects it (a trace line followed).
  showLine(number) {
    const doc = this.view.state.doc;
    const line = doc.line(Math.max(1, Math.min(number, doc.lines)));
    this.view.dispatch({
      selection: { anchor: line.from, head: line.to },
      effects: EditorView.scrollIntoView(line.from, { y: "center" }),
    });
    this.view.focus();
  }
}
