"""The language server: converts between LSP and gradguard's API; it never analyses by itself."""
