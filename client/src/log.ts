// The "gradguard" log: one LogOutputChannel shared by the extension, the language client and the
// server's stderr. `gradguard.logLevel` filters the extension's own lines (VS Code's per-channel level
// still applies on top) and is passed to the server as GRADGUARD_LOG_LEVEL.
import * as vscode from "vscode";

export type LogLevel = "error" | "warning" | "info" | "debug";
export const LOG_LEVELS: readonly LogLevel[] = ["error", "warning", "info", "debug"];

const RANK: Record<LogLevel, number> = { error: 0, warning: 1, info: 2, debug: 3 };

export class Log implements vscode.Disposable {
  readonly channel: vscode.LogOutputChannel;
  private level: LogLevel = "info";

  constructor() {
    this.channel = vscode.window.createOutputChannel("gradguard", { log: true });
  }

  setLevel(level: LogLevel): void {
    this.level = level;
  }

  private enabled(level: LogLevel): boolean {
    return RANK[level] <= RANK[this.level];
  }

  error(message: string): void {
    if (this.enabled("error")) this.channel.error(message);
  }

  warn(message: string): void {
    if (this.enabled("warning")) this.channel.warn(message);
  }

  info(message: string): void {
    if (this.enabled("info")) this.channel.info(message);
  }

  debug(message: string): void {
    if (this.enabled("debug")) this.channel.info(message);
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}
