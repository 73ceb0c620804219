import { readFileSync } from 'node:fs'

/** A setting that failed validation; names the variable and never carries a secret's value. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError'
  constructor(readonly problems: readonly string[]) {
    super(`invalid settings:\n  - ${problems.join('\n  - ')}`)
  }
}

/**
 * Reads typed settings from an environment, collecting every problem so an operator sees them all at once.
 * Messages name the variable; values are echoed only for non-secret settings.
 */
export class EnvReader {
  readonly problems: string[] = []
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    /** Told each variable read and the fallback it would take (the settings catalog's test checks defaults). */
    private readonly observe?: (name: string, fallback: unknown) => void,
  ) {}

  private raw(name: string): string | undefined {
    const value = this.env[name]
    return value === undefined || value.trim() === '' ? undefined : value.trim()
  }

  has(name: string): boolean {
    return this.raw(name) !== undefined
  }

  problem(message: string): void {
    this.problems.push(message)
  }

  string(name: string, fallback: string): string
  string(name: string): string | undefined
  string(name: string, fallback?: string): string | undefined {
    this.observe?.(name, fallback)
    return this.raw(name) ?? fallback
  }

  oneOf<T extends string>(
    name: string,
    allowed: readonly T[],
    fallback: T,
    aliases: Record<string, T> = {},
  ): T {
    this.observe?.(name, fallback)
    const value = this.raw(name)
    if (value === undefined) return fallback
    const normalized = value.toLowerCase()
    const hit = allowed.find((a) => a === normalized) ?? aliases[normalized]
    if (hit === undefined) {
      this.problem(`${name} must be one of ${allowed.join(', ')} (got '${value}')`)
      return fallback
    }
    return hit
  }

  integer(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    this.observe?.(name, fallback)
    const value = this.raw(name)
    if (value === undefined) return fallback
    if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
      this.problem(`${name} must be an integer (got '${value}')`)
      return fallback
    }
    const n = Number(value)
    if (n < min || n > max) {
      this.problem(`${name} must be between ${min} and ${max} (got ${n})`)
      return fallback
    }
    return n
  }

  boolean(name: string, fallback: boolean): boolean {
    this.observe?.(name, fallback)
    const value = this.raw(name)
    if (value === undefined) return fallback
    const v = value.toLowerCase()
    if (['true', '1', 'yes', 'on'].includes(v)) return true
    if (['false', '0', 'no', 'off'].includes(v)) return false
    this.problem(`${name} must be true or false (got '${value}')`)
    return fallback
  }

  /**
   * A secret given inline (`NAME`) or as a file (`NAME_FILE`), never both. Trimmed; blank is refused when
   * present. Neither the value nor the file's content ever appears in a message.
   */
  secret(name: string): string | null {
    this.observe?.(name, undefined)
    const inline = this.env[name]
    const file = this.env[`${name}_FILE`]
    const inlineSet = inline !== undefined
    const fileSet = file !== undefined && file.trim() !== ''
    if (inlineSet && fileSet) {
      this.problem(`${name} and ${name}_FILE are both set; set exactly one`)
      return null
    }
    if (fileSet) {
      let content: string
      try {
        content = readFileSync(file.trim(), 'utf8')
      } catch (error) {
        const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable'
        this.problem(`${name}_FILE names a file that cannot be read (${reason})`)
        return null
      }
      if (content.trim() === '') {
        this.problem(`${name}_FILE names an empty file`)
        return null
      }
      return content.trim()
    }
    if (inlineSet) {
      if (inline.trim() === '') {
        this.problem(`${name} is set but blank`)
        return null
      }
      return inline.trim()
    }
    return null
  }

  /** Multi-line PEM material: inline or from a file; kept verbatim apart from outer whitespace. */
  pem(name: string): string | null {
    return this.secret(name)
  }
}
