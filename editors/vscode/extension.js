// The Rulebook extension: starts `rulebook lsp` (the language server of the package)
// for .rules files; highlighting comes from syntaxes/rulebook.tmLanguage.json.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace
    .getConfiguration("rulebook")
    .get("server.command", ["rulebook", "lsp"]);
  const server = { command, args };
  client = new LanguageClient(
    "rulebook",
    "Rulebook",
    { run: server, debug: server },
    { documentSelector: [{ scheme: "file", language: "rulebook" }, { scheme: "untitled", language: "rulebook" }] }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
