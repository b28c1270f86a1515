// The `gradguard.*` settings, validated at the border. The client owns `interpreter` and `logLevel`
// and checks them here (a bad value gives one message and the default); the rule settings (`enable`,
// `select`, `ignore`, `severity`, `codeAction.*`, ...) are passed to the server as they are, and the
// server checks them the same way (one message per bad value, then the default).
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { LOG_LEVELS, LogLevel } from "./log";

export const SECTION = "gradguard";

/** Settings whose change needs a new server process (the others are sent to the running one). */
export const RESTART_KEYS = ["interpreter", "logLevel", "importStrategy"] as const;

export const IMPORT_STRATEGIES = ["useBundled", "fromEnvironment"] as const;
export type ImportStrategy = (typeof IMPORT_STRATEGIES)[number];

export interface ClientSettings {
  /** The interpreter command from the setting, resolved; undefined when not set. */
  interpreter: string[] | undefined;
  logLevel: LogLevel;
  /** Which gradguard runs the server: the shipped one (a private environment) or the interpreter's. */
  importStrategy: ImportStrategy;
}

export type Notify = (key: string, message: string) => void;

function expand(value: string, folder: vscode.WorkspaceFolder | undefined): string {
  let result = value.replace(/\$\{userHome\}/g, os.homedir());
  if (result === "~" || result.startsWith("~/")) {
    result = os.homedir() + result.slice(1);
  }
  if (folder !== undefined) {
    result = result.replace(/\$\{workspaceFolder\}/g, folder.uri.fsPath);
  }
  return result;
}

/** The interpreter setting. In an untrusted workspace only the user's own value counts. */
function interpreterSetting(
  config: vscode.WorkspaceConfiguration,
  notify: Notify,
): string[] | undefined {
  let raw: unknown;
  if (vscode.workspace.isTrusted) {
    raw = config.get<unknown>("interpreter");
  } else {
    // VS Code already drops workspace values of restrictedConfigurations in restricted mode; this
    // makes sure of it.
    raw = config.inspect<unknown>("interpreter")?.globalValue;
  }
  if (raw === undefined || raw === null || raw === "" || (Array.isArray(raw) && raw.length === 0)) {
    return undefined;
  }
  let parts: string[] | undefined;
  if (typeof raw === "string") {
    parts = [raw];
  } else if (Array.isArray(raw) && raw.every((item) => typeof item === "string" && item !== "")) {
    parts = raw as string[];
  }
  if (parts === undefined) {
    notify(
      "interpreter",
      `gradguard.interpreter: expected a path, or a list of a path and its arguments, got ${JSON.stringify(raw)}; ` +
        "using the Python extension's interpreter or python3 on PATH.",
    );
    return undefined;
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  const [first, ...rest] = parts.map((part) => expand(part, folder));
  let command = first;
  // A relative path with a separator is taken from the first workspace folder, not the server's cwd.
  if (folder !== undefined && !path.isAbsolute(command) && /[\\/]/.test(command)) {
    command = path.join(folder.uri.fsPath, command);
  }
  return [command, ...rest];
}

export function readClientSettings(notify: Notify): ClientSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const rawLevel = config.get<unknown>("logLevel", "info");
  let logLevel: LogLevel = "info";
  if (typeof rawLevel === "string" && (LOG_LEVELS as readonly string[]).includes(rawLevel)) {
    logLevel = rawLevel as LogLevel;
  } else {
    notify(
      "logLevel",
      `gradguard.logLevel: expected one of ${LOG_LEVELS.join(", ")}, got ${JSON.stringify(rawLevel)}; using info.`,
    );
  }
  return { interpreter: interpreterSetting(config, notify), logLevel, importStrategy: importStrategySetting(config, notify) };
}

/** The import strategy. In an untrusted workspace only the user's own value counts: the workspace
 * must not make gradguard import code from an environment it chose. */
function importStrategySetting(config: vscode.WorkspaceConfiguration, notify: Notify): ImportStrategy {
  const raw = vscode.workspace.isTrusted
    ? config.get<unknown>("importStrategy", "useBundled")
    : (config.inspect<unknown>("importStrategy")?.globalValue ?? "useBundled");
  if (typeof raw === "string" && (IMPORT_STRATEGIES as readonly string[]).includes(raw)) {
    return raw as ImportStrategy;
  }
  notify(
    "importStrategy",
    `gradguard.importStrategy: expected one of ${IMPORT_STRATEGIES.join(", ")}, got ${JSON.stringify(raw)}; using useBundled.`,
  );
  return "useBundled";
}

/** The section as the server reads it (initializationOptions; later it pulls it itself). */
export function serverSection(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const section: Record<string, unknown> = {};
  for (const key of [
    "enable",
    "select",
    "ignore",
    "severity",
    "codeAction",
    "fixAll",
    "useConfigFile",
    "debounce",
  ]) {
    const value = config.get<unknown>(key);
    if (value !== undefined) section[key] = value;
  }
  return section;
}
