import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULTS, loadSettings, redactedSettings, SettingsError } from './settings.js'

const SECRET = 'super-secret-token-value'
const base = {
  SERVICE_INGEST_TAXII_ROOT_URL: 'http://taxii.test/api1',
  SERVICE_INGEST_TAXII_COLLECTION_ID: 'coll-1',
  SERVICE_INGEST_SERVICE_AUTH_TOKEN: SECRET,
}

function problems(env: Record<string, string>): string[] {
  try {
    loadSettings(env)
  } catch (error) {
    if (error instanceof SettingsError) return [...error.problems]
    throw error
  }
  return []
}

describe('loadSettings', () => {
  it('applies the documented defaults', () => {
    const s = loadSettings(base)
    expect(s).toMatchObject({
      taxiiRootUrl: 'http://taxii.test/api1/',
      collectionId: 'coll-1',
      serviceBaseUrl: 'http://127.0.0.1:8080',
      serviceAuthToken: SECRET,
      taxiiAuth: { kind: 'none' },
      workspaceId: 'workspace--ingest-taxii',
      pollIntervalMs: 300_000,
      pageLimit: 100,
      stateDir: '.service-runtime/ingest',
    })
    expect(s.maxBundleBytes).toBe(DEFAULTS.maxBundleBytes)
  })

  it('requires the root URL, the collection and the service token', () => {
    expect(problems({})).toEqual([
      'SERVICE_INGEST_TAXII_ROOT_URL is required',
      'SERVICE_INGEST_TAXII_COLLECTION_ID is required',
      'SERVICE_INGEST_SERVICE_AUTH_TOKEN is required',
    ])
  })

  it('refuses a blank token, and never echoes a secret', () => {
    const found = problems({ ...base, SERVICE_INGEST_SERVICE_AUTH_TOKEN: '   ' })
    expect(found).toEqual(['SERVICE_INGEST_SERVICE_AUTH_TOKEN is set but blank'])
    const both = problems({ ...base, SERVICE_INGEST_TAXII_TOKEN: SECRET, SERVICE_INGEST_TAXII_USERNAME: 'u' })
    expect(both.join('\n')).not.toContain(SECRET)
  })

  it('reads the service token from a file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'taxii-settings-')), 'token')
    writeFileSync(file, `${SECRET}\n`)
    const { SERVICE_INGEST_SERVICE_AUTH_TOKEN: _, ...rest } = base
    expect(loadSettings({ ...rest, SERVICE_INGEST_SERVICE_AUTH_TOKEN_FILE: file }).serviceAuthToken).toBe(
      SECRET,
    )
    expect(problems({ ...base, SERVICE_INGEST_SERVICE_AUTH_TOKEN_FILE: file })).toEqual([
      'SERVICE_INGEST_SERVICE_AUTH_TOKEN and SERVICE_INGEST_SERVICE_AUTH_TOKEN_FILE are both set; set exactly one',
    ])
    expect(problems({ ...rest, SERVICE_INGEST_SERVICE_AUTH_TOKEN_FILE: `${file}.missing` })).toEqual([
      'SERVICE_INGEST_SERVICE_AUTH_TOKEN_FILE names a file that cannot be read (ENOENT)',
    ])
  })

  it('takes a TAXII bearer token xor a username and password pair', () => {
    expect(loadSettings({ ...base, SERVICE_INGEST_TAXII_TOKEN: 't' }).taxiiAuth).toEqual({
      kind: 'bearer',
      token: 't',
    })
    expect(
      loadSettings({ ...base, SERVICE_INGEST_TAXII_USERNAME: 'u', SERVICE_INGEST_TAXII_PASSWORD: 'p' })
        .taxiiAuth,
    ).toEqual({ kind: 'basic', username: 'u', password: 'p' })
    expect(problems({ ...base, SERVICE_INGEST_TAXII_USERNAME: 'u' })).toEqual([
      'SERVICE_INGEST_TAXII_USERNAME and SERVICE_INGEST_TAXII_PASSWORD must be set together',
    ])
    expect(
      problems({
        ...base,
        SERVICE_INGEST_TAXII_TOKEN: 't',
        SERVICE_INGEST_TAXII_USERNAME: 'u',
        SERVICE_INGEST_TAXII_PASSWORD: 'p',
      }),
    ).toHaveLength(1)
  })

  it('validates URLs without echoing them, and numbers', () => {
    expect(
      problems({
        ...base,
        SERVICE_INGEST_TAXII_ROOT_URL: 'ftp://x/',
        SERVICE_INGEST_SERVICE_BASE_URL: 'http://user:pw@host/',
        SERVICE_INGEST_PAGE_LIMIT: '0',
        SERVICE_INGEST_POLL_INTERVAL_MS: 'soon',
      }),
    ).toEqual([
      'SERVICE_INGEST_TAXII_ROOT_URL must use http or https',
      'SERVICE_INGEST_SERVICE_BASE_URL must not embed credentials; use the token or username/password settings',
      "SERVICE_INGEST_POLL_INTERVAL_MS must be an integer >= 1 (got 'soon')",
      "SERVICE_INGEST_PAGE_LIMIT must be an integer >= 1 (got '0')",
    ])
    expect(
      loadSettings({ ...base, SERVICE_INGEST_SERVICE_BASE_URL: 'https://svc:8443/' }).serviceBaseUrl,
    ).toBe('https://svc:8443')
  })

  it('redacts secrets for logging', () => {
    const shown = JSON.stringify(
      redactedSettings(loadSettings({ ...base, SERVICE_INGEST_TAXII_TOKEN: 'taxii-secret' })),
    )
    expect(shown).not.toContain(SECRET)
    expect(shown).not.toContain('taxii-secret')
    expect(shown).toContain('"taxiiAuth":"bearer"')
  })
})
