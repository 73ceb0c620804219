import { describe, expect, it } from 'vitest'
import { loadSettings, redactedSettings, SettingsError } from './settings.js'

const base = { SERVICE_HTTP_AUTH_TOKEN: 'token-1', SERVICE_STORAGE_MODE: 'persistent' }
const URL = 'postgres://service:s3cret-pw@db.internal:5432/graph'
const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadSettings(env, '/srv')
    return []
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError)
    return [...(error as SettingsError).problems]
  }
}

describe('PostgreSQL store settings', () => {
  it('takes the store from SERVICE_STORAGE_POSTGRES_URL with no directory, as a primary by default', () => {
    const s = loadSettings({ ...base, SERVICE_STORAGE_POSTGRES_URL: URL }, '/srv')
    expect(s.storage.dir).toBeNull()
    expect(s.storage.postgres).toEqual({
      url: URL,
      role: 'primary',
      promote: 'off',
      primaryUrl: null,
      leaseMs: 10_000,
      pollMs: 200,
    })
    expect(s.storage.readYourWritesTimeoutMs).toBe(5_000)
  })

  it('reads a follower with promotion and the primary address', () => {
    const s = loadSettings(
      {
        ...base,
        SERVICE_STORAGE_POSTGRES_URL: URL,
        SERVICE_STORAGE_ROLE: 'follower',
        SERVICE_STORAGE_PROMOTE: 'auto',
        SERVICE_PRIMARY_URL: 'https://primary.internal:8443',
        SERVICE_STORAGE_POSTGRES_LEASE_MS: '300',
      },
      '/srv',
    )
    expect(s.storage.postgres).toMatchObject({
      role: 'follower',
      promote: 'auto',
      primaryUrl: 'https://primary.internal:8443',
      leaseMs: 300,
    })
  })

  it('names every bad combination and value', () => {
    const problems = (env: Record<string, string>) => problemsOf({ ...base, ...env }).join('\n')
    expect(problems({})).toContain('SERVICE_STORAGE_DIR (or SERVICE_STORAGE_POSTGRES_URL) is required')
    expect(problems({ SERVICE_STORAGE_DIR: 'd', SERVICE_STORAGE_ROLE: 'follower' })).toContain(
      'SERVICE_STORAGE_ROLE=follower needs SERVICE_STORAGE_POSTGRES_URL',
    )
    expect(problems({ SERVICE_STORAGE_POSTGRES_URL: URL, SERVICE_STORAGE_PROMOTE: 'auto' })).toContain(
      'SERVICE_STORAGE_PROMOTE=auto applies to a follower',
    )
    expect(problems({ SERVICE_STORAGE_POSTGRES_URL: 'mysql://x' })).toContain(
      'SERVICE_STORAGE_POSTGRES_URL must be a postgres:// or postgresql:// URL',
    )
    expect(problems({ SERVICE_STORAGE_POSTGRES_URL: URL, SERVICE_PRIMARY_URL: 'primary:8080' })).toContain(
      'SERVICE_PRIMARY_URL must be an http(s) URL',
    )
    expect(problems({ SERVICE_STORAGE_POSTGRES_URL: URL, SERVICE_STORAGE_ROLE: 'replica' })).toContain(
      'SERVICE_STORAGE_ROLE',
    )
    expect(
      problemsOf({ SERVICE_HTTP_AUTH_TOKEN: 't', SERVICE_STORAGE_POSTGRES_URL: URL }).join('\n'),
    ).toContain('SERVICE_STORAGE_POSTGRES_URL needs SERVICE_STORAGE_MODE=persistent')
    // Lease bounds at their edges.
    expect(
      problems({ SERVICE_STORAGE_POSTGRES_URL: URL, SERVICE_STORAGE_POSTGRES_LEASE_MS: '299' }),
    ).toContain('SERVICE_STORAGE_POSTGRES_LEASE_MS')
    expect(problems({ SERVICE_STORAGE_POSTGRES_URL: URL, SERVICE_STORAGE_POSTGRES_LEASE_MS: '600000' })).toBe(
      '',
    )
    expect(
      problems({ SERVICE_STORAGE_POSTGRES_URL: URL, SERVICE_READ_YOUR_WRITES_TIMEOUT_MS: '0' }),
    ).toContain('SERVICE_READ_YOUR_WRITES_TIMEOUT_MS')
  })

  it('never shows the database password in the effective settings', () => {
    const s = loadSettings({ ...base, SERVICE_STORAGE_POSTGRES_URL: URL }, '/srv')
    const shown = JSON.stringify(redactedSettings(s))
    expect(shown).not.toContain('s3cret-pw')
    expect(shown).toContain('postgres://service:<redacted>@db.internal:5432/graph')
    const bad = problemsOf({ ...base, SERVICE_STORAGE_POSTGRES_URL: 'mysql://u:s3cret-pw@x' }).join()
    expect(bad).not.toContain('s3cret-pw')
  })
})
