export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

/** One structured event per line. Callers pass counts and identifiers, never a token or an auth header. */
export type Logger = (level: LogLevel, event: string, fields?: Record<string, unknown>) => void

/** JSON lines on stdout (or the given sink); `time`, `level` and `event` come first. */
export function jsonLogger(write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  return (level, event, fields = {}) => {
    write(`${JSON.stringify({ time: new Date().toISOString(), level, event, ...fields })}\n`)
  }
}

/** A short, single-line description of an error for a log field. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause
    const suffix =
      cause instanceof Error ? ` (${(cause as NodeJS.ErrnoException).code ?? cause.message})` : ''
    return `${error.name}: ${error.message}${suffix}`
  }
  return String(error)
}
