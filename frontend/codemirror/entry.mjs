// What the page uses of CodeMirror 6, re-exported from one ES module
// (interpreter/web/static/vendor/codemirror.js), bundled by build.mjs.
export { EditorState, Compartment } from "@codemirror/state";
export {
  EditorView,
  keymap,
  lineNumbers,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  drawSelection,
  Decoration,
  hoverTooltip,
} from "@codemirror/view";
export { autocompletion, startCompletion, completionStatus } from "@codemirror/autocomplete";
export { history, defaultKeymap, historyKeymap, indentWithTab } from "@codemirror/commands";
export {
  StreamLanguage,
  syntaxHighlighting,
  HighlightStyle,
  defaultHighlightStyle,
  bracketMatching,
} from "@codemirror/language";
export { linter, lintGutter, forceLinting, setDiagnostics } from "@codemirror/lint";
export { searchKeymap, highlightSelectionMatches } from "@codemirror/search";
export { tags } from "@lezer/highlight";
