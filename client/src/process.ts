// Running a program (never through a shell) with a time limit, its output line by line to a callback.
import { spawn } from "node:child_process";

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the program could not be started (ENOENT, EACCES, ...) or ran out of time. */
  error?: string;
}

export interface RunOptions {
  timeoutMs: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  onLine?: (line: string) => void;
}

// Python puts the working folder first on sys.path for `-m` and `-c`: started in a workspace, a
// `gradguard/`, `json.py` or `venv.py` there would run instead of ours. Every Python this extension
// starts runs in a folder of its own (its global storage) unless told otherwise.
let ownFolder: string | undefined;

export function setOwnFolder(dir: string): void {
  ownFolder = dir;
}

export function run(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let settled = false;
    const finish = (result: RunResult): void => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(result);
      }
    };
    let child;
    try {
      child = spawn(command, args, {
        cwd: options.cwd ?? ownFolder,
        env: options.env ?? process.env,
        stdio: ["ignore", "pipe", "pipe"],
        windowsHide: true,
      });
    } catch (err) {
      resolve({ code: null, stdout, stderr, error: String(err) });
      return;
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ code: null, stdout, stderr, error: `timed out after ${Math.round(options.timeoutMs / 1000)} s` });
    }, options.timeoutMs);
    const lines = (chunk: string, buffer: { rest: string }): void => {
      if (options.onLine === undefined) return;
      const parts = (buffer.rest + chunk).split(/\r?\n/);
      buffer.rest = parts.pop() ?? "";
      for (const part of parts) if (part.trim() !== "") options.onLine(part);
    };
    const outBuffer = { rest: "" };
    const errBuffer = { rest: "" };
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
      lines(chunk, outBuffer);
    });
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
      lines(chunk, errBuffer);
    });
    child.on("error", (err) => finish({ code: null, stdout, stderr, error: err.message }));
    child.on("close", (code) => {
      for (const buffer of [outBuffer, errBuffer]) {
        if (buffer.rest.trim() !== "" && options.onLine !== undefined) options.onLine(buffer.rest);
      }
      finish({ code, stdout, stderr });
    });
  });
}

/** The environment for Python processes: no PYTHONHOME/PYTHONPATH leaking into the private env. */
export function pythonEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra, PYTHONUNBUFFERED: "1", PYTHONIOENCODING: "utf-8" };
  delete env.PYTHONHOME;
  delete env.PYTHONPATH;
  delete env.PYTHONSTARTUP;
  return env;
}
