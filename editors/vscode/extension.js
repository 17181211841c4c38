// The torchferry extension: starts `ferry server` and hands it Python files and notebooks.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function settings() {
  const c = vscode.workspace.getConfiguration("ferry");
  return {
    ferry: {
      select: c.get("select"),
      extendSelect: c.get("extendSelect"),
      ignore: c.get("ignore"),
      checkWorkspace: c.get("checkWorkspace"),
      debounceMs: c.get("debounceMs"),
      checkAtOnce: c.get("checkAtOnce"),
      ruleDocsUrl: c.get("ruleDocsUrl"),
    },
  };
}

async function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("ferry").get("path");
  const server = { command, args: [...args, "server"] };
  client = new LanguageClient("ferry", "torchferry", server, {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
      { notebook: "*", language: "python" },
    ],
    initializationOptions: settings(),
  });
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("ferry") && client) {
        client.sendNotification("workspace/didChangeConfiguration", { settings: settings() });
      }
    })
  );
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
