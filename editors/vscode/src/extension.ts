// mnemo for VS Code: starts `mnemo-lsp` and puts its commands in the command palette. Hover cards
// and code lenses come straight from the server; the server writes each answer as a Markdown report
// and asks VS Code to open it (window/showDocument).
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';

const LANGUAGES = ['python', 'javascript', 'javascriptreact', 'typescript', 'typescriptreact', 'go', 'rust', 'java'];

type Arguments = Record<string, unknown>;

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const settings = vscode.workspace.getConfiguration('mnemo');
  const [command, ...args] = settings.get<string[]>('serverCommand', ['mnemo-lsp']);
  const serverOptions: ServerOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: LANGUAGES.map((language) => ({ scheme: 'file', language })),
    outputChannelName: 'mnemo',
  };
  client = new LanguageClient('mnemo', 'mnemo', serverOptions, clientOptions);
  context.subscriptions.push(
    vscode.commands.registerCommand('mnemo.palette.task', askTask),
    vscode.commands.registerCommand('mnemo.palette.pr', askPullRequest),
    vscode.commands.registerCommand('mnemo.palette.files', () => withEditor((editor) =>
      run('mnemo.contextForFiles', withBudget({ uris: [editor.document.uri.toString()] }))
    )),
    vscode.commands.registerCommand('mnemo.palette.blast', () => withEditor((editor) =>
      run('mnemo.blastRadius', withBudget(atCursor(editor)))
    )),
    vscode.commands.registerCommand('mnemo.palette.explain', () => withEditor((editor) =>
      run('mnemo.explain', atCursor(editor))
    )),
    vscode.commands.registerCommand('mnemo.palette.reindex', () => run('mnemo.reindex', {})),
  );
  await client.start();
}

export function deactivate(): Thenable<void> | undefined {
  return client?.stop();
}

async function askTask(): Promise<void> {
  const task = await vscode.window.showInputBox({
    title: 'mnemo: Context for Task',
    prompt: 'Describe the task in words',
    placeHolder: 'fix the redirect after login',
    ignoreFocusOut: true,
  });
  if (task && task.trim()) {
    await run('mnemo.contextForTask', withBudget({ task }));
  }
}

async function askPullRequest(): Promise<void> {
  const base = await vscode.window.showInputBox({
    title: 'mnemo: Context for PR',
    prompt: 'Base branch or commit (empty: the default branch)',
    ignoreFocusOut: true,
  });
  if (base !== undefined) {
    await run('mnemo.contextForPR', withBudget(base.trim() ? { base: base.trim() } : {}));
  }
}

function withEditor(action: (editor: vscode.TextEditor) => Promise<void>): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showWarningMessage('mnemo: open a file first');
    return Promise.resolve();
  }
  return action(editor);
}

function atCursor(editor: vscode.TextEditor): Arguments {
  const { line, character } = editor.selection.active;
  return { uri: editor.document.uri.toString(), position: { line, character } };
}

function withBudget(args: Arguments): Arguments {
  const budget = vscode.workspace.getConfiguration('mnemo').get<number | null>('budget', null);
  return budget ? { ...args, budget } : args;
}

async function run(command: string, args: Arguments): Promise<void> {
  if (!client) {
    return;
  }
  const running = client;
  try {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `mnemo: ${command.replace('mnemo.', '')}` },
      () => running.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] }),
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(`mnemo: ${message}`);
  }
}
