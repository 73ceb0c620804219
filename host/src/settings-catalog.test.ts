import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadSettings } from './settings.js'
import { renderConfigurationDoc, SETTINGS_CATALOG } from './settings-catalog.js'

const root = resolve(import.meta.dirname, '../..')
const catalogNames = SETTINGS_CATALOG.flatMap((g) => g.vars.map(([name]) => name))
const secretNames = new Set(SETTINGS_CATALOG.filter((g) => g.secret).flatMap((g) => g.vars.map(([n]) => n)))

/** The non-test TypeScript sources of a folder, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

/** Every variable the server reads: names passed to the settings reader, and `env.SERVICE_*` reads. */
function variablesRead(): Set<string> {
  const files = [
    ...sources(join(root, 'host/src')).filter((f) => !f.endsWith('settings-catalog.ts')),
    ...sources(join(root, 'plugins/seed/src')),
    ...sources(join(root, 'core/src/seed/embeddings')),
  ]
  const names = new Set<string>()
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(/'(SERVICE_[A-Z0-9_]+)'|env\.(SERVICE_[A-Z0-9_]+)/g))
      names.add((m[1] ?? m[2]) as string)
  }
  // A secret's file form is documented with the secret.
  for (const name of [...names])
    if (name.endsWith('_FILE') && secretNames.has(name.slice(0, -5))) names.delete(name)
  return names
}

describe('the settings catalog', () => {
  it('lists every variable the server reads, and only those', () => {
    const read = variablesRead()
    expect([...read].filter((n) => !catalogNames.includes(n)).sort()).toEqual([])
    expect(catalogNames.filter((n) => !read.has(n)).sort()).toEqual([])
    expect(new Set(catalogNames).size).toBe(catalogNames.length)
  })

  it("shows each literal default exactly as the reader's fallback", () => {
    const fallbacks = new Map<string, unknown>()
    const observe = (name: string, fallback: unknown) => {
      if (!fallbacks.has(name)) fallbacks.set(name, fallback)
    }
    loadSettings({ SERVICE_HTTP_AUTH_TOKEN: 'catalog-test-token' }, '/tmp', 'http', observe)
    let checked = 0
    for (const [name, text] of SETTINGS_CATALOG.flatMap((g) => g.vars)) {
      const literal = /^`([^`]*)`$/.exec(text)?.[1]
      const fallback = fallbacks.get(name)
      if (literal === undefined || fallback === undefined) continue
      expect(`${name}=${String(fallback)}`).toBe(`${name}=${literal}`)
      checked++
    }
    expect(checked).toBeGreaterThan(40)
  })

  it('is what docs/configuration.md says (regenerate: node host/dist/main.js settings-doc > docs/configuration.md)', () => {
    expect(readFileSync(join(root, 'docs/configuration.md'), 'utf8')).toBe(renderConfigurationDoc())
  })

  it('reports a bad embedding provider with the other settings problems', () => {
    expect(() =>
      loadSettings({
        SERVICE_HTTP_AUTH_TOKEN: 't',
        SERVICE_SEED_EMBEDDING_PROVIDER: 'magic',
        SERVICE_HTTP_PORT: 'x',
      }),
    ).toThrow(/SERVICE_HTTP_PORT[\s\S]*SERVICE_SEED_EMBEDDING_PROVIDER must be local, http or none/)
    expect(() =>
      loadSettings({ SERVICE_HTTP_AUTH_TOKEN: 't', SERVICE_SEED_EMBEDDING_PROVIDER: 'http' }),
    ).toThrow(/SERVICE_SEED_EMBEDDING_PROVIDER=http needs SERVICE_SEED_EMBEDDING_URL/)
    expect(() =>
      loadSettings({
        SERVICE_HTTP_AUTH_TOKEN: 't',
        SERVICE_SEED_EMBEDDING_URL: 'http://x',
        SERVICE_SEED_EMBEDDING_TIMEOUT_MS: '-1',
      }),
    ).toThrow(/SERVICE_SEED_EMBEDDING_TIMEOUT_MS must be a positive integer/)
  })
})
