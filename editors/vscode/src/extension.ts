// mnemo for VS Code: starts one `mnemo-lsp` per workspace folder and puts its commands in the command
// palette. Hover cards and code lenses come straight from the server; the server writes each answer
// as a Markdown report and asks VS Code to open it (window/showDocument). Settings apply live: the
// server command restarts the servers, the rest reaches them as workspace/didChangeConfiguration.
import { execFile } from 'child_process';
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';

// What the server indexes when it cannot be asked (`mnemo-lsp --languages` names them).
const FALLBACK_EXTENSIONS = ['py', 'pyi', 'js', 'jsx', 'mjs', 'cjs', 'ts', 'mts', 'cts', 'tsx', 'go', 'rs', 'java'];
const LANGUAGES_TIMEOUT_MS = 15000;
const SECTION = 'mnemo';

type Arguments = Record<string, unknown>;

const clients = new Map<string, LanguageClient>(); // workspace folder URI -> its server
let extensions: string[] | undefined;
let lastTask = '';
let output: vscode.OutputChannel | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('mnemo');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('mnemo.palette.task', askTask),
    vscode.commands.registerCommand('mnemo.palette.pr', askPullRequest),
    vscode.commands.registerCommand('mnemo.palette.files', () =>
      withEditor((editor) => run('mnemo.contextForFiles', withBudget({ uris: [editor.document.uri.toString()] }))),
    ),
    vscode.commands.registerCommand('mnemo.palette.blast', () =>
      withEditor((editor) => run('mnemo.blastRadius', withBudget(atCursor(editor)))),
    ),
    vscode.commands.registerCommand('mnemo.palette.explain', () => withEditor(askWhy)),
    vscode.commands.registerCommand('mnemo.palette.reindex', () => run('mnemo.reindex', {})),
    vscode.commands.registerCommand('mnemo.palette.restart', restartAll),
    vscode.workspace.onDidOpenTextDocument(startFor),
    vscode.workspace.onDidChangeWorkspaceFolders(async (event) => {
      await Promise.all(event.removed.map((folder) => stop(folder.uri.toString())));
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration(`${SECTION}.serverCommand`)) {
        extensions = undefined;
        await restartAll();
      }
    }),
  );
  await Promise.all(vscode.workspace.textDocuments.map(startFor));
}

export async function deactivate(): Promise<void> {
  await Promise.all([...clients.keys()].map(stop));
}

function serverCommand(): string[] {
  return vscode.workspace.getConfiguration(SECTION).get<string[]>('serverCommand', ['mnemo-lsp']);
}

// The file extensions the server indexes, asked once (`mnemo-lsp --languages`).
function serverExtensions(): Promise<string[]> {
  if (extensions) {
    return Promise.resolve(extensions);
  }
  const [command, ...args] = serverCommand();
  return new Promise((resolve) => {
    execFile(command, [...args, '--languages'], { timeout: LANGUAGES_TIMEOUT_MS }, (error, stdout) => {
      try {
        if (error) {
          throw error;
        }
        const languages = JSON.parse(stdout) as Record<string, string[]>;
        extensions = Object.values(languages).flat().map((ext) => ext.replace(/^\./, ''));
      } catch (failure) {
        output?.appendLine(`could not ask ${command} for its languages (${String(failure)}); using the defaults`);
        extensions = FALLBACK_EXTENSIONS;
      }
      resolve(extensions);
    });
  });
}

// Start the server of the document's workspace folder, once, when it is a file the server indexes.
async function startFor(document: vscode.TextDocument): Promise<void> {
  if (document.uri.scheme !== 'file') {
    return;
  }
  const folder = vscode.workspace.getWorkspaceFolder(document.uri);
  if (!folder || clients.has(folder.uri.toString())) {
    return;
  }
  const known = await serverExtensions();
  const ext = document.uri.path.split('.').pop() ?? '';
  if (known.includes(ext) && !clients.has(folder.uri.toString())) {
    await start(folder, known);
  }
}

async function start(folder: vscode.WorkspaceFolder, known: string[]): Promise<void> {
  const [command, ...args] = serverCommand();
  const serverOptions: ServerOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', pattern: `${folder.uri.fsPath}/**/*.{${known.join(',')}}` }],
    workspaceFolder: folder,
    outputChannel: output,
    initializationOptions: settings(),
    synchronize: { configurationSection: SECTION },
  };
  // The client id `mnemo` makes `mnemo.trace.server` trace this server's messages.
  const client = new LanguageClient(SECTION, `mnemo (${folder.name})`, serverOptions, clientOptions);
  clients.set(folder.uri.toString(), client);
  try {
    await client.start();
  } catch (error) {
    clients.delete(folder.uri.toString());
    void vscode.window.showErrorMessage(`mnemo: could not start ${command}: ${message(error)}`);
  }
}

async function stop(key: string): Promise<void> {
  const client = clients.get(key);
  clients.delete(key);
  await client?.stop();
}

async function restartAll(): Promise<void> {
  await Promise.all([...clients.keys()].map(stop));
  await Promise.all(vscode.workspace.textDocuments.map(startFor));
  void vscode.window.setStatusBarMessage('mnemo: language server restarted', 3000);
}

// The settings the server reads (section `mnemo`), sent with `initialize`.
function settings(): Arguments {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    budget: config.get<number | null>('budget', null),
    depth: config.get<number | null>('depth', null),
    lens: config.get<boolean>('lens', true),
    hover: config.get<boolean>('hover', true),
    memory: config.get<boolean>('memory', true),
  };
}

async function askTask(): Promise<void> {
  const task = await vscode.window.showInputBox({
    title: 'mnemo: Context for Task',
    prompt: 'Describe the task in words',
    placeHolder: 'fix the redirect after login',
    value: lastTask,
    ignoreFocusOut: true,
  });
  if (task && task.trim()) {
    lastTask = task.trim();
    await run('mnemo.contextForTask', withBudget({ task: lastTask }));
  }
}

async function askWhy(editor: vscode.TextEditor): Promise<void> {
  const task = await vscode.window.showInputBox({
    title: 'mnemo: Why Does This Symbol Matter?',
    prompt: 'For which task? (the score of the symbol at the cursor is explained for it)',
    value: lastTask,
    ignoreFocusOut: true,
  });
  if (task && task.trim()) {
    lastTask = task.trim();
    await run('mnemo.explain', { ...atCursor(editor), task: lastTask });
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
  const budget = vscode.workspace.getConfiguration(SECTION).get<number | null>('budget', null);
  return budget ? { ...args, budget } : args;
}

// The server of the active editor's folder; else the only one; else the folder the user picks.
async function currentClient(): Promise<LanguageClient | undefined> {
  const editor = vscode.window.activeTextEditor;
  const folder = editor ? vscode.workspace.getWorkspaceFolder(editor.document.uri) : undefined;
  if (folder) {
    if (!clients.has(folder.uri.toString())) {
      await start(folder, await serverExtensions());
    }
    return clients.get(folder.uri.toString());
  }
  const folders = vscode.workspace.workspaceFolders ?? [];
  const picked = folders.length === 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick();
  if (!picked) {
    return undefined;
  }
  if (!clients.has(picked.uri.toString())) {
    await start(picked, await serverExtensions());
  }
  return clients.get(picked.uri.toString());
}

async function run(command: string, args: Arguments): Promise<void> {
  const client = await currentClient();
  if (!client) {
    void vscode.window.showWarningMessage('mnemo: open a folder that is a repository first');
    return;
  }
  try {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `mnemo: ${command.replace('mnemo.', '')}` },
      () => client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] }),
    );
  } catch (error) {
    void vscode.window.showErrorMessage(`mnemo: ${message(error)}`);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
