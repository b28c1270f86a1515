// The end-to-end harness: a code-server on loopback with the built .vsix installed in a fresh profile,
// driven through Debian's Chromium by playwright-core. Everything lives in one unique temporary
// folder; stop() always ends code-server (its whole process group) and Chromium.
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const E2E_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.dirname(E2E_DIR);
export const ARTIFACTS = path.join(E2E_DIR, "artifacts");

const TOOLS = process.env.GRADGUARD_E2E_TOOLS ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "gradguard-e2e");
export const CODE_SERVER = process.env.CODE_SERVER ?? path.join(TOOLS, "node_modules", ".bin", "code-server");
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-dev-shm-usage",
];

export function log(message) {
  process.stderr.write(`[e2e ${new Date().toISOString().slice(11, 23)}] ${message}\n`);
}

export function vsixPath() {
  const version = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).version;
  const vsix = path.join(REPO, "dist", `gradguard-${version}.vsix`);
  if (!fs.existsSync(vsix)) throw new Error(`${vsix} is missing: run make vsix first`);
  return vsix;
}

/** Waits for `predicate` (sync or async) to return a truthy value, polling; throws after timeoutMs. */
export async function waitFor(what, predicate, timeoutMs, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await predicate();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${last.message})` : ""}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

// Sessions still running: killed if this process is interrupted or exits before their stop().
const live = new Set();

function killGroups() {
  for (const session of live) {
    if (session.server?.pid !== undefined) {
      try {
        process.kill(-session.server.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
}
process.on("exit", killGroups);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    log(`${signal}: stopping code-server`);
    killGroups();
    process.exit(128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[signal] ?? 0));
  });
}

export class Session {
  constructor(name) {
    this.name = name;
    this.root = fs.mkdtempSync(path.join(os.tmpdir(), `gradguard-e2e-${name}-`));
    this.userData = path.join(this.root, "user-data");
    this.extensions = path.join(this.root, "extensions");
    this.workspace = path.join(this.root, "workspace");
    this.output = "";
    this.server = undefined;
    this.browser = undefined;
    this.page = undefined;
  }

  /** A copy of the fixtures workspace (the test edits files in it) and the user settings. */
  prepare(userSettings, workspaceSettings) {
    fs.cpSync(path.join(E2E_DIR, "fixtures", "workspace"), this.workspace, { recursive: true });
    if (workspaceSettings !== undefined) {
      fs.mkdirSync(path.join(this.workspace, ".vscode"), { recursive: true });
      fs.writeFileSync(path.join(this.workspace, ".vscode", "settings.json"), JSON.stringify(workspaceSettings, null, 2));
    }
    fs.mkdirSync(path.join(this.userData, "User"), { recursive: true });
    fs.writeFileSync(path.join(this.userData, "User", "settings.json"), JSON.stringify(userSettings, null, 2));
  }

  installExtension(vsix) {
    const started = Date.now();
    const result = spawnSync(
      CODE_SERVER,
      ["--user-data-dir", this.userData, "--extensions-dir", this.extensions, "--install-extension", vsix],
      { encoding: "utf8", timeout: 120000, env: this.env() },
    );
    if (result.status !== 0) {
      throw new Error(`code-server --install-extension failed (${result.status}): ${result.stdout}\n${result.stderr}`);
    }
    log(`extension installed in ${Date.now() - started} ms`);
  }

  env() {
    const env = { ...process.env, XDG_DATA_HOME: path.join(this.root, "xdg-data"), XDG_CONFIG_HOME: path.join(this.root, "xdg-config") };
    // No package index and no local wheel folder: the extension's first start must install its server
    // from the wheels inside the .vsix alone (pip fails here if it needs anything else).
    for (const name of Object.keys(env)) if (name.startsWith("PIP_")) delete env[name];
    return { ...env, PIP_NO_INDEX: "1", PIP_CONFIG_FILE: os.devnull, PIP_INDEX_URL: "http://127.0.0.1:9/simple" };
  }

  /** Starts code-server on a free loopback port and waits until it says it listens. */
  async startServer() {
    const args = [
      "--auth", "none",
      "--bind-addr", "127.0.0.1:0",
      "--user-data-dir", this.userData,
      "--extensions-dir", this.extensions,
      "--disable-telemetry",
      "--disable-update-check",
      this.workspace,
    ];
    const child = spawn(CODE_SERVER, args, {
      env: this.env(),
      detached: true, // its own process group: stop() ends code-server and everything it started
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.server = child;
    live.add(this);
    const serverLog = fs.createWriteStream(path.join(this.root, "code-server.log"));
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`code-server did not start in 60 s:\n${this.output}`)), 60000);
      const onData = (chunk) => {
        const text = chunk.toString();
        this.output += text;
        serverLog.write(text);
        const match = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(this.output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`code-server exited with ${code}:\n${this.output}`));
      });
    });
    child.removeAllListeners("exit");
    this.url = url;
    log(`code-server at ${url}`);
    return url;
  }

  async openBrowser() {
    this.browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60000 });
    const context = await this.browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
    this.page = await context.newPage();
    this.page.on("pageerror", (err) => log(`page error: ${err.message}`));
    await this.page.goto(`${this.url}/?folder=${encodeURIComponent(this.workspace)}`, { waitUntil: "domcontentloaded", timeout: 60000 });
    await this.page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: 90000 });
    return this.page;
  }

  /** The gradguard output channel as written so far (the extension host's log files). */
  extensionLog() {
    const logs = path.join(this.userData, "logs");
    let text = "";
    const walk = (dir) => {
      for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name === "gradguard.log") text += fs.readFileSync(full, "utf8");
      }
    };
    walk(logs);
    return text;
  }

  async screenshot(name) {
    if (this.page === undefined) return undefined;
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, `${this.name}-${name}.png`);
    await this.page.screenshot({ path: file, timeout: 15000 }).catch((err) => log(`screenshot ${name} failed: ${err.message}`));
    return file;
  }

  /** Ends Chromium and code-server's process group, whatever state they are in. */
  async stop() {
    if (this.browser !== undefined) {
      await Promise.race([this.browser.close().catch(() => undefined), new Promise((r) => setTimeout(r, 10000))]);
      this.browser = undefined;
    }
    const child = this.server;
    this.server = undefined;
    live.delete(this);
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      const done = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 10000))]);
      if (!done) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
    if (child !== undefined) {
      // Language servers and other children started by the extension host share the process group.
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is empty
      }
    }
    if (fs.existsSync(this.root)) {
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      for (const name of ["code-server.log"]) {
        const file = path.join(this.root, name);
        if (fs.existsSync(file)) fs.copyFileSync(file, path.join(ARTIFACTS, `${this.name}-${name}`));
      }
      copyExtensionLogs(this.userData, path.join(ARTIFACTS, `${this.name}-gradguard.log`));
      if (!process.env.GRADGUARD_E2E_KEEP) fs.rmSync(this.root, { recursive: true, force: true });
    }
  }
}

/** The gradguard output channel's log files, concatenated (for a failed run's post-mortem). */
function copyExtensionLogs(userData, target) {
  const logs = path.join(userData, "logs");
  if (!fs.existsSync(logs)) return;
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/gradguard/i.test(entry.name) || /exthost\.log$/.test(entry.name)) found.push(full);
    }
  };
  walk(logs);
  fs.writeFileSync(target, found.map((file) => `===== ${file}\n${fs.readFileSync(file, "utf8")}`).join("\n"));
}
