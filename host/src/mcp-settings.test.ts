import { describe, expect, it } from 'vitest'
import { loadSettings, redactedSettings, SettingsError } from './settings.js'

const base = { SERVICE_HTTP_AUTH_TOKEN: 'http-token' }
const problems = (env: Record<string, string>) => {
  try {
    loadSettings({ ...base, ...env })
  } catch (error) {
    if (error instanceof SettingsError) return error.problems
    throw error
  }
  return []
}

describe('SERVICE_MCP_* settings', () => {
  it('default to a loopback-only /mcp, no cypher_write, and the HTTP token for remote mode', () => {
    const { mcp } = loadSettings(base)
    expect(mcp).toMatchObject({
      allowCypherWrite: false,
      allowedHosts: ['127.0.0.1', 'localhost', '::1'],
      allowedOrigins: [],
      maxSessions: 64,
      remoteUrl: null,
      remoteToken: 'http-token',
    })
  })

  it('enforce their limits at the edges and name the variable at fault', () => {
    expect(problems({ SERVICE_MCP_MAX_SESSIONS: '1' })).toEqual([])
    expect(problems({ SERVICE_MCP_MAX_SESSIONS: '10000' })).toEqual([])
    expect(problems({ SERVICE_MCP_MAX_SESSIONS: '0' }).join()).toContain('SERVICE_MCP_MAX_SESSIONS')
    expect(problems({ SERVICE_MCP_MAX_SESSIONS: '10001' }).join()).toContain('SERVICE_MCP_MAX_SESSIONS')
    expect(problems({ SERVICE_MCP_SESSION_IDLE_MS: '999' }).join()).toContain('SERVICE_MCP_SESSION_IDLE_MS')
    expect(problems({ SERVICE_MCP_REMOTE_URL: 'ftp://x' }).join()).toContain('SERVICE_MCP_REMOTE_URL')
    expect(problems({ SERVICE_MCP_ALLOWED_ORIGINS: 'https://ok.example, https://bad.example/path' })).toEqual(
      [
        "SERVICE_MCP_ALLOWED_ORIGINS entry 'https://bad.example/path' must be scheme://host[:port] with no path",
      ],
    )
  })

  it('need no HTTP token for the stdio server, and never print the remote token', () => {
    expect(() => loadSettings({}, process.cwd(), 'stdio')).not.toThrow()
    expect(() => loadSettings({})).toThrow(SettingsError)
    const settings = loadSettings(
      {
        SERVICE_MCP_REMOTE_URL: 'http://127.0.0.1:8080',
        SERVICE_MCP_REMOTE_AUTH_TOKEN: 'remote-secret',
      },
      process.cwd(),
      'stdio',
    )
    expect(settings.mcp.remoteToken).toBe('remote-secret')
    expect(JSON.stringify(redactedSettings(settings))).not.toContain('remote-secret')
  })
})
