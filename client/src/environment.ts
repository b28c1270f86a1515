// The server's private environment: a venv in the extension's global storage, made with the chosen
// interpreter on first start, with the gradguard wheel shipped in the .vsix (bundled/) and its
// dependencies pinned by bundled/constraints.txt, installed from the wheels the .vsix carries
// (bundled/wheels, no index: no network needed) or, where none fits, from pip's index. One environment per wheel and interpreter; a
// finished one has a marker file, so an interrupted creation is redone, never used.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { Log } from "./log";
import { pythonEnv, run } from "./process";
import { Interpreter } from "./python";

const READY = ".gradguard-ready";
const LOCK = ".lock";
const LOCK_STALE_MS = 15 * 60 * 1000;

export class EnvironmentError extends Error {}

export interface ServerEnvironment {
  python: string;
  /** Arguments before `-m gradguard` (an interpreter given as a command with arguments). */
  args: string[];
  dir: string;
  wheelVersion: string;
}

interface Bundle {
  wheel: string;
  version: string;
  constraints: string | undefined;
  /** The dependencies' wheels for this platform, when the .vsix carries them (offline install). */
  wheels: string | undefined;
  hash: string;
}

function findBundle(extensionPath: string): Bundle {
  const dir = path.join(extensionPath, "bundled");
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    // reported below
  }
  const wheels = names.filter((name) => /^gradguard-.+\.whl$/.test(name)).sort();
  if (wheels.length === 0) {
    throw new EnvironmentError(
      `the extension has no gradguard wheel in ${dir}; reinstall the extension (or rebuild it with make vsix).`,
    );
  }
  const wheel = path.join(dir, wheels[wheels.length - 1]);
  const version = /^gradguard-([^-]+)-/.exec(path.basename(wheel))?.[1] ?? "0";
  const constraintsPath = path.join(dir, "constraints.txt");
  const constraints = fs.existsSync(constraintsPath) ? constraintsPath : undefined;
  const hash = createHash("sha256");
  hash.update(fs.readFileSync(wheel));
  if (constraints !== undefined) hash.update(fs.readFileSync(constraints));
  const wheelsDir = path.join(dir, "wheels");
  const dependencies = fs.existsSync(wheelsDir) ? wheelsDir : undefined;
  return { wheel, version, constraints, wheels: dependencies, hash: hash.digest("hex").slice(0, 12) };
}

function venvPython(dir: string): string {
  return process.platform === "win32" ? path.join(dir, "Scripts", "python.exe") : path.join(dir, "bin", "python");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A lock folder, so two windows starting at once do not build the same environment together. */
async function lock(dir: string, log: Log): Promise<() => void> {
  const lockDir = dir + LOCK;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      return () => fs.rmSync(lockDir, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      let age = 0;
      try {
        age = Date.now() - fs.statSync(lockDir).mtimeMs;
      } catch {
        continue; // released meanwhile
      }
      if (age > LOCK_STALE_MS) {
        log.warn(`Removing a stale lock ${lockDir}`);
        fs.rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (fs.existsSync(path.join(dir, READY))) {
        return () => undefined; // another window finished it
      }
      await sleep(1000);
    }
  }
}

function explainVenvFailure(interpreter: Interpreter, output: string): string {
  if (/ensurepip|python3[.\d]*-venv/.test(output)) {
    return (
      `${interpreter.executable} cannot create virtual environments (its venv module has no pip). ` +
      "On Debian or Ubuntu install the python3-venv package, or set gradguard.interpreter to another Python 3.10+."
    );
  }
  const last = output.trim().split("\n").pop() ?? "";
  return `${interpreter.executable} -m venv failed${last ? `: ${last}` : ""}. See the gradguard log.`;
}

function explainPipFailure(output: string): string {
  if (/No matching distribution|Could not find a version|ConnectionError|Max retries|Temporary failure|NewConnectionError|ProxyError|SSLError/i.test(output)) {
    return (
      "pip could not download gradguard's dependencies. Check the network connection, or pip's proxy or " +
      "index settings (pip.conf, PIP_INDEX_URL), then run 'gradguard: Restart Server'."
    );
  }
  if (/requires a different Python|Requires-Python/i.test(output)) {
    return "gradguard's dependencies do not support this Python version; set gradguard.interpreter to Python 3.10 to 3.13.";
  }
  const last = output.trim().split("\n").pop() ?? "";
  return `pip could not install gradguard${last ? `: ${last}` : ""}. See the gradguard log.`;
}

/**
 * The environment for `interpreter`, created if needed (with a progress notification).
 * Environments of other wheels made with the same interpreter are removed once the new one is ready.
 */
export async function ensureEnvironment(
  context: vscode.ExtensionContext,
  interpreter: Interpreter,
  log: Log,
): Promise<ServerEnvironment> {
  const bundle = findBundle(context.extensionPath);
  const root = path.join(context.globalStorageUri.fsPath, "envs");
  const pyTag = `py${interpreter.version[0]}${interpreter.version[1]}`;
  const interpreterHash = createHash("sha256").update(interpreter.executable).digest("hex").slice(0, 8);
  const suffix = `${pyTag}-${interpreterHash}`;
  const name = `gradguard-${bundle.version}-${bundle.hash}-${suffix}`;
  const dir = path.join(root, name);
  const python = venvPython(dir);
  const result = { python, args: [], dir, wheelVersion: bundle.version };
  if (fs.existsSync(path.join(dir, READY)) && fs.existsSync(python)) {
    log.info(`Server environment: ${dir}`);
    return result;
  }
  fs.mkdirSync(root, { recursive: true });
  const release = await lock(dir, log);
  try {
    if (fs.existsSync(path.join(dir, READY)) && fs.existsSync(python)) return result;
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `gradguard: installing its server (first start, version ${bundle.version})`,
        cancellable: false,
      },
      async (progress) => {
        const started = Date.now();
        fs.rmSync(dir, { recursive: true, force: true });
        progress.report({ message: `creating an environment with Python ${interpreter.version.join(".")}` });
        log.info(`Creating the server environment ${dir} with ${interpreter.executable}`);
        const [program, ...args] = interpreter.command;
        const venv = await run(program, [...args, "-m", "venv", dir], {
          timeoutMs: 180000,
          env: pythonEnv(),
          onLine: (line) => log.info(`venv: ${line}`),
        });
        if (venv.code !== 0) {
          fs.rmSync(dir, { recursive: true, force: true });
          throw new EnvironmentError(explainVenvFailure(interpreter, `${venv.stdout}\n${venv.stderr}\n${venv.error ?? ""}`));
        }
        progress.report({ message: "installing gradguard and its dependencies with pip" });
        const install = async (offline: boolean) => {
          const pipArgs = ["-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--no-warn-script-location"];
          if (bundle.constraints !== undefined) pipArgs.push("--constraint", bundle.constraints);
          // Offline: only the wheels shipped in the .vsix, never an index (a plane, a proxy, an air-gapped lab).
          if (offline && bundle.wheels !== undefined) pipArgs.push("--no-index", "--find-links", bundle.wheels);
          pipArgs.push(bundle.wheel);
          log.info(`${python} ${pipArgs.join(" ")}`);
          return run(python, pipArgs, {
            timeoutMs: 900000,
            env: pythonEnv({ PIP_NO_INPUT: "1" }),
            onLine: (line) => {
              log.info(`pip: ${line}`);
              const collecting = /^(Collecting|Processing|Installing collected packages)\s+(.*)$/.exec(line.trim());
              if (collecting !== null) progress.report({ message: `pip: ${collecting[1]} ${collecting[2].slice(0, 60)}` });
            },
          });
        };
        let pip = await install(true);
        if (pip.code !== 0 && bundle.wheels !== undefined) {
          // No shipped wheel fits this Python or platform: pip's index is the way left.
          log.warn("The wheels shipped with the extension do not fit this Python; trying pip's index");
          pip = await install(false);
        }
        if (pip.code !== 0) {
          fs.rmSync(dir, { recursive: true, force: true });
          throw new EnvironmentError(explainPipFailure(`${pip.stdout}\n${pip.stderr}\n${pip.error ?? ""}`));
        }
        fs.writeFileSync(path.join(dir, READY), `${bundle.version} ${bundle.hash}\n`);
        log.info(`Server environment ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      },
    );
  } finally {
    release();
  }
  // Environments of older wheels made with this interpreter are no longer needed.
  for (const other of fs.readdirSync(root)) {
    if (other !== name && other.startsWith("gradguard-") && other.endsWith(suffix)) {
      log.info(`Removing the old server environment ${other}`);
      fs.rmSync(path.join(root, other), { recursive: true, force: true });
    }
  }
  return result;
}

/**
 * The gradguard of the interpreter's own environment (`gradguard.importStrategy: fromEnvironment`,
 * for a version pinned in the user's project): checked, never installed or changed.
 */
export async function interpreterEnvironment(
  context: vscode.ExtensionContext,
  interpreter: Interpreter,
  log: Log,
): Promise<ServerEnvironment> {
  const [python, ...args] = interpreter.command;
  // A folder of the extension's own, never the workspace: a `gradguard/` folder there would be
  // imported instead of the installed package.
  const dir = context.globalStorageUri.fsPath;
  fs.mkdirSync(dir, { recursive: true });
  const probe = await run(python, [...args, "-c", "import gradguard; print(gradguard.__version__)"], {
    timeoutMs: 60000,
    env: pythonEnv(),
    cwd: dir,
  });
  const version = probe.stdout.trim().split("\n").pop() ?? "";
  if (probe.code !== 0 || version === "") {
    throw new EnvironmentError(
      `gradguard.importStrategy is fromEnvironment, but ${interpreter.executable} cannot import gradguard. ` +
        "Install it in that environment (pip install gradguard), or set gradguard.importStrategy to useBundled.",
    );
  }
  log.info(`Server: gradguard ${version} from the environment of ${interpreter.executable} (importStrategy fromEnvironment)`);
  return { python, args, dir, wheelVersion: version };
}
