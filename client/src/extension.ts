// gradguard's VS Code client. It finds an interpreter, makes the server's private environment, starts
// `python -m gradguard serve` with vscode-languageclient, passes the settings on, and shows state,
// logs and rule documentation. It does not analyse anything itself.
import * as vscode from "vscode";
import {
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  LanguageClient,
  LanguageClientOptions,
  Message,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from "vscode-languageclient/node";
import { readClientSettings, RESTART_KEYS, SECTION, serverSection } from "./config";
import { EnvironmentError, ensureEnvironment, interpreterEnvironment, ServerEnvironment } from "./environment";
import { LspPosition } from "./graphProtocol";
import { GraphPanel, SHOW_GRAPH } from "./graphView";
import { Log } from "./log";
import * as fs from "node:fs";
import { pythonEnv, run, setOwnFolder } from "./process";
import { findInterpreter, Interpreter, InterpreterError, onPythonInterpreterChange } from "./python";

const FIX_ALL_KIND = "source.fixAll.gradguard";
const RULE_SCHEME = "gradguard-rule";
const RESTART_DELAY_MS = 500;
const CRASH_WINDOW_MS = 3 * 60 * 1000;
const MAX_CRASHES = 3;

// The server links each finding's code to its rule's web page; the extension opens the rule's page
// from the installed server instead, so the link works offline (and the site need not exist).
const RULE_CODE = /^GG\d{3}$/;
const RULE_URL = /https:\/\/gradguard\.dev\/rules\/(GG\d{3})/g;
const SHOW_RULE_DOCS = "gradguard.showRuleDocs";

function ruleDocsUri(code: string): vscode.Uri {
  return vscode.Uri.from({ scheme: RULE_SCHEME, path: `/${code}.md` });
}

/** The code link of a diagnostic: the rule's page as a document, shown as a markdown preview
 * (package.json associates `gradguard-rule:` documents with the preview). */
function linkRuleDocs(diagnostics: vscode.Diagnostic[]): void {
  for (const diagnostic of diagnostics) {
    const code = diagnostic.code;
    const value = typeof code === "object" && code !== null ? code.value : code;
    if (typeof value === "string" && RULE_CODE.test(value)) {
      diagnostic.code = { value, target: ruleDocsUri(value) };
    }
  }
}

/** Links to a rule's web page in hover text become the command that shows the page offline. */
function linkRuleDocsInHover(hover: vscode.Hover): vscode.Hover {
  const contents = hover.contents.map((part) => {
    if (!(part instanceof vscode.MarkdownString) || !RULE_URL.test(part.value)) return part;
    RULE_URL.lastIndex = 0;
    const value = part.value.replace(
      RULE_URL,
      (_url, code: string) => `command:${SHOW_RULE_DOCS}?${encodeURIComponent(JSON.stringify([code]))}`,
    );
    const rewritten = new vscode.MarkdownString(value, part.supportThemeIcons);
    rewritten.isTrusted = { enabledCommands: [SHOW_RULE_DOCS] };
    rewritten.supportHtml = part.supportHtml;
    return rewritten;
  });
  return new vscode.Hover(contents, hover.range);
}

const DOCUMENT_SELECTOR = [
  { scheme: "file", language: "python" },
  { scheme: "untitled", language: "python" },
  { scheme: "vscode-notebook-cell", language: "python" },
];

type ServerState = "starting" | "running" | "stopped" | "failed";

class Status implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;

  constructor() {
    this.item = vscode.languages.createLanguageStatusItem("gradguard.status", DOCUMENT_SELECTOR);
    this.item.name = "gradguard";
    this.item.command = { title: "Show log", command: "gradguard.showLog" };
    this.set("starting", "starting");
  }

  set(state: ServerState, detail: string): void {
    this.item.busy = state === "starting";
    this.item.severity =
      state === "failed" ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
    const label = { starting: "starting", running: "", stopped: "stopped", failed: "failed" }[state];
    this.item.text = label ? `gradguard: ${label}` : "gradguard";
    this.item.detail = detail;
    this.item.accessibilityInformation = { label: `gradguard server ${state}: ${detail}` };
  }

  dispose(): void {
    this.item.dispose();
  }
}

class Controller implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private environment: ServerEnvironment | undefined;
  private interpreter: Interpreter | undefined;
  private queue: Promise<void> = Promise.resolve();
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly shown = new Set<string>();
  private crashes: number[] = [];
  private disposed = false;
  private readonly started = new vscode.EventEmitter<void>();
  /** Fires each time a server is up (first start and every restart). */
  readonly onDidStart = this.started.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: Log,
    private readonly status: Status,
  ) {}

  /** One message per distinct problem and session: no storm of pop-ups on repeated restarts. */
  notifyOnce(key: string, message: string, kind: "error" | "warning" = "warning"): void {
    (kind === "error" ? this.log.error : this.log.warn).call(this.log, message);
    if (this.shown.has(key)) return;
    this.shown.add(key);
    const show = kind === "error" ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
    void show(`gradguard: ${message}`, "Show log").then((choice) => {
      if (choice === "Show log") this.log.show();
    });
  }

  /** Stop and start again; calls are queued so restarts never overlap. */
  restart(reason: string): Promise<void> {
    this.queue = this.queue.then(() => this.doRestart(reason)).catch((err) => this.log.error(String(err)));
    return this.queue;
  }

  /** A restart after a short quiet period (settings and interpreter events come in bursts). */
  restartSoon(reason: string): void {
    if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      void this.restart(reason);
    }, RESTART_DELAY_MS);
  }

  private async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.log.warn(`Stopping the server: ${String(err)}`);
      }
      try {
        await client.dispose();
      } catch {
        // already stopped
      }
    }
  }

  private async doRestart(reason: string): Promise<void> {
    if (this.disposed) return;
    this.log.info(`Starting the server (${reason})`);
    await this.stop();
    this.status.set("starting", "finding a Python interpreter");
    const settings = readClientSettings((key, message) => this.notifyOnce(`setting:${key}`, message));
    this.log.setLevel(settings.logLevel);
    try {
      const resource = vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
      this.interpreter = await findInterpreter(settings.interpreter, this.log, resource);
      this.log.info(
        `Interpreter: ${this.interpreter.executable} (Python ${this.interpreter.version.join(".")}, from ${this.interpreter.source})`,
      );
      this.status.set("starting", "preparing the server environment");
      this.environment =
        settings.importStrategy === "fromEnvironment"
          ? await interpreterEnvironment(this.context, this.interpreter, this.log)
          : await ensureEnvironment(this.context, this.interpreter, this.log);
    } catch (err) {
      const message = err instanceof InterpreterError || err instanceof EnvironmentError ? err.message : String(err);
      this.status.set("failed", message);
      this.notifyOnce(`start:${message}`, `the server cannot start: ${message}`, "error");
      return;
    }
    if (this.disposed) return;
    this.status.set("starting", "starting the server");
    const client = this.createClient(this.environment, settings.logLevel);
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      if (this.client === client) {
        const message = err instanceof Error ? err.message : String(err);
        this.status.set("failed", `the server did not start: ${message}`);
        this.notifyOnce(
          `launch:${message}`,
          `the server did not start (${message}). See the log; 'gradguard: Restart Server' tries again.`,
          "error",
        );
      }
      return;
    }
    if (this.client === client) {
      // A later failure is news again: it gets its own message.
      for (const key of [...this.shown]) if (/^(start|launch):/.test(key) || key === "crashes") this.shown.delete(key);
      this.crashes = [];
      const interpreter = this.interpreter;
      this.status.set(
        "running",
        `server ${this.environment.wheelVersion} running on Python ${interpreter.version.join(".")} (${interpreter.source})`,
      );
      this.log.info("Server running");
      this.started.fire();
    }
  }

  private createClient(environment: ServerEnvironment, logLevel: string): LanguageClient {
    const serverOptions: ServerOptions = {
      command: environment.python,
      args: [...environment.args, "-m", "gradguard", "serve"],
      options: {
        // Not the workspace: `-m` would import a `gradguard/` folder there instead of the server.
        cwd: environment.dir,
        env: pythonEnv({ GRADGUARD_LOG_LEVEL: logLevel }),
      },
    };
    const controller = this;
    const errorHandler: ErrorHandler = {
      error(_error: Error, _message: Message | undefined, count: number | undefined): ErrorHandlerResult {
        return { action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true };
      },
      closed(): CloseHandlerResult {
        if (controller.client !== client || controller.disposed) {
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        const now = Date.now();
        controller.crashes = [...controller.crashes.filter((time) => now - time < CRASH_WINDOW_MS), now];
        if (controller.crashes.length <= MAX_CRASHES) {
          controller.log.warn("The server stopped unexpectedly; restarting it.");
          controller.status.set("starting", "restarting after the server stopped");
          return { action: CloseAction.Restart, handled: true };
        }
        const message = `the server stopped ${controller.crashes.length} times in 3 minutes and was not restarted. See the log; 'gradguard: Restart Server' tries again.`;
        controller.status.set("failed", message);
        controller.notifyOnce("crashes", message, "error");
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      outputChannel: this.log.channel,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: { [SECTION]: serverSection() },
      synchronize: {
        configurationSection: SECTION,
        fileEvents: vscode.workspace.createFileSystemWatcher("**/pyproject.toml"),
      },
      errorHandler,
      middleware: {
        // Pulled (VS Code asks) or pushed (older clients): the same rewrite either way.
        provideDiagnostics: async (document, previousResultId, token, next) => {
          const report = await next(document, previousResultId, token);
          if (report !== undefined && report !== null && "items" in report) linkRuleDocs(report.items);
          return report;
        },
        handleDiagnostics: (uri, diagnostics, next) => {
          linkRuleDocs(diagnostics);
          next(uri, diagnostics);
        },
        provideHover: async (document, position, token, next) => {
          const hover = await next(document, position, token);
          return hover ? linkRuleDocsInHover(hover) : hover;
        },
      },
      initializationFailedHandler: (error) => {
        this.log.error(`Initialization failed: ${String(error)}`);
        return false;
      },
    };
    const client = new LanguageClient(SECTION, "gradguard", serverOptions, clientOptions);
    client.onDidChangeState((event) => {
      if (event.newState === State.Running && this.client === client && this.interpreter !== undefined) {
        this.status.set("running", `server running on Python ${this.interpreter.version.join(".")}`);
      }
    });
    return client;
  }

  /** The running (or starting) client, for requests of the extension's own views. */
  get languageClient(): LanguageClient | undefined {
    return this.client;
  }

  /** How to run the server's Python (`-m gradguard ...` follows), once it is known. */
  get serverCommand(): string[] | undefined {
    return this.environment === undefined ? undefined : [this.environment.python, ...this.environment.args];
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
    this.started.dispose();
    await this.stop();
  }
}

/** Rule documentation as read-only markdown documents (`gradguard-rule:/GG103.md`). */
class RuleDocs implements vscode.TextDocumentContentProvider {
  constructor(private readonly controller: Controller) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const code = uri.path.replace(/^\//, "").replace(/\.md$/, "");
    const command = this.controller.serverCommand;
    if (command === undefined) return `# ${code}\n\nThe gradguard server is not installed yet; see the gradguard log.\n`;
    const [python, ...args] = command;
    const result = await run(python, [...args, "-m", "gradguard", "rule", code], { timeoutMs: 30000, env: pythonEnv() });
    if (result.code !== 0) return `# ${code}\n\n${result.stderr || result.stdout || result.error || "Unknown rule."}\n`;
    return result.stdout;
  }

  async listRules(): Promise<Array<{ code: string; description: string }>> {
    const command = this.controller.serverCommand;
    if (command === undefined) return [];
    const [python, ...args] = command;
    const result = await run(python, [...args, "-m", "gradguard", "rule", "--all"], { timeoutMs: 30000, env: pythonEnv() });
    const rules: Array<{ code: string; description: string }> = [];
    for (const line of result.stdout.split("\n")) {
      const match = /^(GG\d+)\s+(.*)$/.exec(line.trim());
      if (match !== null) rules.push({ code: match[1], description: match[2] });
    }
    return rules;
  }
}

function codesAtCursor(): string[] {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) return [];
  const codes = new Set<string>();
  for (const diagnostic of vscode.languages.getDiagnostics(editor.document.uri)) {
    if (diagnostic.source !== "gradguard" || !diagnostic.range.contains(editor.selection.active)) continue;
    const code = typeof diagnostic.code === "object" ? diagnostic.code.value : diagnostic.code;
    if (code !== undefined) codes.add(String(code));
  }
  return [...codes];
}

async function showRuleDocs(docs: RuleDocs, log: Log, code?: unknown): Promise<void> {
  let chosen = typeof code === "string" && /^GG\d{3}$/i.test(code) ? code.toUpperCase() : undefined;
  if (chosen === undefined) {
    const here = codesAtCursor();
    if (here.length === 1) {
      chosen = here[0];
    } else {
      const rules = await docs.listRules();
      if (rules.length === 0) {
        void vscode.window.showWarningMessage("gradguard: the server is not ready yet; see the log.");
        return;
      }
      const pick = await vscode.window.showQuickPick(
        rules
          .sort((a, b) => Number(!here.includes(a.code)) - Number(!here.includes(b.code)))
          .map((rule) => ({ label: rule.code, description: rule.description })),
        { placeHolder: "Which rule's documentation?", matchOnDescription: true },
      );
      chosen = pick?.label;
    }
  }
  if (chosen === undefined) return;
  const uri = ruleDocsUri(chosen);
  try {
    await vscode.commands.executeCommand("markdown.showPreview", uri);
  } catch (err) {
    log.debug(`Markdown preview unavailable (${String(err)}); opening the text.`);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { preview: true });
  }
}

async function fixAll(log: Log): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || editor.document.languageId !== "python") {
    void vscode.window.showInformationMessage("gradguard: open a Python file or notebook cell to fix.");
    return;
  }
  try {
    await vscode.commands.executeCommand("editor.action.codeAction", { kind: FIX_ALL_KIND, apply: "first" });
  } catch (err) {
    log.error(`Fix all failed: ${String(err)}`);
  }
}

function isPosition(value: unknown): value is LspPosition {
  const candidate = value as Partial<LspPosition> | null;
  return typeof candidate?.line === "number" && typeof candidate.character === "number";
}

/**
 * The code lens passes `[uri, position]` (a string and an LSP position); from the Command Palette
 * the graph is of the active Python editor at its cursor (the server takes the nearest backward call
 * when the line has none), else of the last Python editor used, else of a notebook's selected cell.
 */
function showGraph(panel: GraphPanel, lastPython: () => vscode.TextEditor | undefined, uri?: unknown, position?: unknown): void {
  const uriText = uri instanceof vscode.Uri ? uri.toString() : typeof uri === "string" ? uri : undefined;
  if (uriText !== undefined && isPosition(position)) {
    const shown = vscode.window.visibleTextEditors.find((editor) => editor.document.uri.toString() === uriText);
    panel.show(uriText, position, shown?.viewColumn ?? vscode.window.activeTextEditor?.viewColumn);
    return;
  }
  const active = vscode.window.activeTextEditor;
  const editor = active?.document.languageId === "python" ? active : lastPython();
  if (editor !== undefined) {
    const cursor = editor.selection.active;
    panel.show(editor.document.uri.toString(), { line: cursor.line, character: cursor.character }, editor.viewColumn);
    return;
  }
  const notebook = vscode.window.activeNotebookEditor;
  const cell = notebook?.notebook.cellAt(notebook.selection.start);
  if (notebook !== undefined && cell?.document.languageId === "python") {
    panel.show(cell.document.uri.toString(), { line: 0, character: 0 }, notebook.viewColumn);
    return;
  }
  void vscode.window.showInformationMessage("gradguard: open a Python file or notebook cell with a backward call to show its autograd graph.");
}

let controller: Controller | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  fs.mkdirSync(context.globalStorageUri.fsPath, { recursive: true });
  setOwnFolder(context.globalStorageUri.fsPath);
  const log = new Log();
  const status = new Status();
  controller = new Controller(context, log, status);
  const ctl = controller;
  const docs = new RuleDocs(ctl);
  const graph = new GraphPanel(context.extensionUri, log, () => ctl.languageClient);
  // The Command Palette can be opened from the graph view itself: remember the editor it came from.
  let lastPython =
    vscode.window.activeTextEditor?.document.languageId === "python" ? vscode.window.activeTextEditor : undefined;
  context.subscriptions.push(
    log,
    status,
    vscode.workspace.registerTextDocumentContentProvider(RULE_SCHEME, docs),
    vscode.commands.registerCommand("gradguard.restart", () => ctl.restart("restart command")),
    vscode.commands.registerCommand("gradguard.showLog", () => log.show()),
    vscode.commands.registerCommand(SHOW_RULE_DOCS, (code?: unknown) => showRuleDocs(docs, log, code)),
    vscode.commands.registerCommand("gradguard.fixAll", () => fixAll(log)),
    graph,
    vscode.commands.registerCommand(SHOW_GRAPH, (uri?: unknown, position?: unknown) =>
      showGraph(graph, () => (lastPython?.document.isClosed === false ? lastPython : undefined), uri, position),
    ),
    vscode.window.onDidChangeActiveTextEditor((editor) => {
      if (editor?.document.languageId === "python") lastPython = editor;
    }),
    ctl.onDidStart(() => graph.refresh()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // The rule settings reach the running server through workspace/didChangeConfiguration; only the
      // interpreter and the log level need a new process.
      if (RESTART_KEYS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`))) {
        ctl.restartSoon("settings changed");
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => ctl.restartSoon("workspace trusted")),
    { dispose: () => void ctl.dispose() },
  );
  log.info(`gradguard ${context.extension.packageJSON.version as string} activated (VS Code ${vscode.version})`);
  void onPythonInterpreterChange(log, () => {
    if (readClientSettings(() => undefined).interpreter === undefined) {
      ctl.restartSoon("the Python extension's interpreter changed");
    }
  }).then((disposable) => {
    if (disposable !== undefined) context.subscriptions.push(disposable);
  });
  void ctl.restart("activation");
}

export async function deactivate(): Promise<void> {
  await controller?.dispose();
  controller = undefined;
}
