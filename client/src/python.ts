// Which Python runs the server: the `gradguard.interpreter` setting, else the interpreter selected in
// the Python extension (its public API, when it is installed; not a dependency), else python3 on
// PATH. Each candidate is probed for its version; gradguard needs 3.10+.
import * as vscode from "vscode";
import { Log } from "./log";
import { pythonEnv, run } from "./process";

export const MIN_PYTHON: readonly [number, number] = [3, 10];

export type Source = "setting" | "python-extension" | "path";

export interface Interpreter {
  command: string[];
  source: Source;
  version: [number, number, number];
  executable: string;
}

export class InterpreterError extends Error {}

const PROBE =
  "import json, sys; print(json.dumps({'version': list(sys.version_info[:3]), 'executable': sys.executable}))";

/** The parts of the Python extension's API that are used (ms-python.python, `environments`). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(
      env: { path: string } | string,
    ): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

const PYTHON_EXTENSION = "ms-python.python";

async function pythonApi(log: Log): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (extension === undefined) return undefined;
  try {
    const api = extension.isActive
      ? extension.exports
      : await Promise.race([
          extension.activate(),
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 15000)),
        ]);
    return api?.environments !== undefined ? api : undefined;
  } catch (err) {
    log.warn(`The Python extension's API is not available: ${String(err)}`);
    return undefined;
  }
}

/** Calls `listener` when the Python extension's selected interpreter changes (when it is installed). */
export async function onPythonInterpreterChange(
  log: Log,
  listener: () => void,
): Promise<vscode.Disposable | undefined> {
  const api = await pythonApi(log);
  const event = api?.environments?.onDidChangeActiveEnvironmentPath;
  return event === undefined ? undefined : event(() => listener());
}

async function fromPythonExtension(log: Log, resource: vscode.Uri | undefined): Promise<string | undefined> {
  const api = await pythonApi(log);
  if (api?.environments === undefined) return undefined;
  try {
    const active = api.environments.getActiveEnvironmentPath(resource);
    if (active === undefined) return undefined;
    const resolved = await api.environments.resolveEnvironment(active);
    return resolved?.executable?.uri?.fsPath ?? active.path;
  } catch (err) {
    log.warn(`Could not read the Python extension's interpreter: ${String(err)}`);
    return undefined;
  }
}

export async function probe(
  command: string[],
  log: Log,
): Promise<{ version: [number, number, number]; executable: string } | string> {
  const [program, ...args] = command;
  const result = await run(program, [...args, "-c", PROBE], { timeoutMs: 30000, env: pythonEnv() });
  if (result.error !== undefined) return result.error;
  if (result.code !== 0) return (result.stderr.trim().split("\n").pop() ?? "") || `exit code ${result.code}`;
  try {
    const line = result.stdout.trim().split("\n").pop() ?? "";
    const data = JSON.parse(line) as { version: [number, number, number]; executable: string };
    return data;
  } catch {
    log.debug(`Unexpected probe output of ${command.join(" ")}: ${result.stdout}`);
    return `unexpected output: ${result.stdout.slice(0, 200)}`;
  }
}

function newEnough(version: [number, number, number]): boolean {
  return version[0] > MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] >= MIN_PYTHON[1]);
}

/**
 * The interpreter to build the server's environment with. `setting` is the validated
 * `gradguard.interpreter` (undefined when unset). In an untrusted workspace the Python extension is not
 * asked: its selection may be an interpreter inside the workspace.
 */
export async function findInterpreter(
  setting: string[] | undefined,
  log: Log,
  resource: vscode.Uri | undefined,
): Promise<Interpreter> {
  const wanted = `Python ${MIN_PYTHON.join(".")} or newer`;
  if (setting !== undefined) {
    const found = await probe(setting, log);
    if (typeof found === "string") {
      throw new InterpreterError(
        `gradguard.interpreter (${setting.join(" ")}) could not be run: ${found}. ` +
          `Set it to the path of ${wanted}, or clear it to use python3 on PATH.`,
      );
    }
    if (!newEnough(found.version)) {
      throw new InterpreterError(
        `gradguard.interpreter (${setting.join(" ")}) is Python ${found.version.join(".")}; gradguard needs ${wanted}. ` +
          "Set it to a newer interpreter, or clear it.",
      );
    }
    return { command: setting, source: "setting", ...found };
  }
  const tried: string[] = [];
  const candidates: Array<{ command: string[]; source: Source }> = [];
  if (vscode.workspace.isTrusted) {
    const selected = await fromPythonExtension(log, resource);
    if (selected !== undefined) candidates.push({ command: [selected], source: "python-extension" });
  }
  const onPath = process.platform === "win32" ? [["py", "-3"], ["python"]] : [["python3"], ["python"]];
  for (const command of onPath) candidates.push({ command, source: "path" });
  for (const candidate of candidates) {
    const found = await probe(candidate.command, log);
    if (typeof found === "string") {
      tried.push(`${candidate.command.join(" ")}: ${found}`);
      log.debug(`Interpreter ${candidate.command.join(" ")} not usable: ${found}`);
      continue;
    }
    if (!newEnough(found.version)) {
      tried.push(`${candidate.command.join(" ")}: Python ${found.version.join(".")}`);
      log.info(`Interpreter ${found.executable} is Python ${found.version.join(".")}; gradguard needs ${wanted}.`);
      continue;
    }
    return { ...candidate, ...found };
  }
  throw new InterpreterError(
    `no ${wanted} was found (${tried.join("; ")}). Install one, select it in the Python extension, ` +
      "or set gradguard.interpreter to its path.",
  );
}
