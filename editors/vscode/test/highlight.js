// Highlights rulebooks with the extension's TextMate grammar (the engine VS Code uses:
// vscode-textmate on vscode-oniguruma) and fails on any text left unscoped: every
// character that is not a space must get a scope besides the file's own.
// Usage: node test/highlight.js FILE.rules...   (prints one line per file, exits 1 on any)
//        node test/highlight.js --scopes FILE     (each token and its scopes, as JSON)
"use strict";

const fs = require("fs");
const path = require("path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm")).buffer;

async function main(args) {
  const scopes = args[0] === "--scopes";
  const files = scopes ? args.slice(1) : args;
  await oniguruma.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async () =>
      vsctm.parseRawGrammar(
        fs.readFileSync(path.join(__dirname, "..", "syntaxes", "rulebook.tmLanguage.json"), "utf8"),
        "rulebook.tmLanguage.json"
      ),
  });
  const grammar = await registry.loadGrammar("source.rulebook");
  let failed = 0;
  for (const file of files) {
    const lines = fs.readFileSync(file, "utf8").split("\n");
    let state = vsctm.INITIAL;
    let tokens = 0;
    const unscoped = [];
    const listed = [];
    lines.forEach((line, number) => {
      const result = grammar.tokenizeLine(line, state);
      for (const token of result.tokens) {
        const text = line.slice(token.startIndex, token.endIndex);
        tokens += 1;
        if (scopes && text.trim()) listed.push([text, token.scopes.slice(1)]);
        if (text.trim() && token.scopes.length < 2) {
          unscoped.push(`${file}:${number + 1}:${token.startIndex + 1}: ${JSON.stringify(text)}`);
        }
      }
      state = result.ruleStack;
    });
    if (scopes) {
      console.log(JSON.stringify(listed));
      continue;
    }
    if (unscoped.length) {
      failed += 1;
      console.log(`${file}: ${unscoped.length} unscoped\n  ${unscoped.slice(0, 20).join("\n  ")}`);
    } else {
      console.log(`${file}: ${tokens} tokens, all scoped`);
    }
  }
  process.exit(failed ? 1 : 0);
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exit(2);
});
