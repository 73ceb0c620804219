/**
 * `npm run quickstart` runs what it built: the built-in providers with their manifest, medical and research
 * at once, the enterprise packs behind a license that `service-http-server dev-license` issues. A Ctrl-C
 * (SIGINT to the whole process group, as a terminal sends it) stops it gracefully: exit 0, a "stopped"
 * line, no lock file. The script runs with --no-build: `npm test` has built everything already.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort, repoRoot, serverMain, startServer, TOKEN, trackChild } from './harness.js'

const exec = promisify(execFile)
const work = mkdtempSync(join(tmpdir(), 'quickstart-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

interface Quickstart {
  child: ChildProcess
  url: string
  output(): string
  exited: Promise<number | null>
}

/** Starts the quickstart in its own process group (as a terminal runs a foreground job) and waits for ready. */
async function startQuickstart(name: string): Promise<Quickstart> {
  const port = await freePort()
  const child = trackChild(
    spawn(process.execPath, [join(repoRoot, 'scripts', 'quickstart.mjs'), '--no-build'], {
      cwd: repoRoot,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        SERVICE_HTTP_PORT: String(port),
        SERVICE_BOLT_ENABLED: 'false',
        SERVICE_STORAGE_DIR: join(work, name, 'graph'),
        SERVICE_DEV_LICENSE_DIR: join(work, 'dev-license'),
        SERVICE_SEED_EMBEDDING_PROVIDER: 'none',
      },
    }),
  )
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`quickstart exited with ${child.exitCode}:\n${output}`)
    const ready = await fetch(`${url}/health/ready`).then(
      (res) => res.status === 200,
      () => false,
    )
    if (ready) break
    if (Date.now() > deadline) throw new Error(`quickstart not ready:\n${output}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  return { child, url, output: () => output, exited }
}

interface ValidateBody {
  result: { status: string }
  error: { code: string; message: string }
}

const validate = async (url: string, domain: string, payload: unknown) => {
  const res = await fetch(`${url}/v1/domains/${domain}/validate`, {
    method: 'POST',
    headers: { authorization: 'Bearer dev-token', 'content-type': 'application/json' },
    body: JSON.stringify({ payload }),
  })
  return { status: res.status, json: (await res.json()) as ValidateBody }
}

describe('npm run quickstart', () => {
  it('loads the built providers: medical and research answer, the enterprise packs name the dev-license command', async () => {
    const quickstart = await startQuickstart('first')
    const medical = await validate(quickstart.url, 'medical', { labels: ['Study'] })
    expect(medical.status).toBe(200)
    expect(medical.json.result.status).toBe('accepted')
    const research = await validate(quickstart.url, 'research', { labels: ['Dataset'] })
    expect(research.status).toBe(200)
    for (const domain of ['cti', 'fimi', 'crisis']) {
      const refused = await validate(quickstart.url, domain, { labels: ['Report'] })
      expect(refused.status).toBe(403)
      expect(refused.json.error.code).toBe('LICENSE_MODULE_MISSING')
      expect(refused.json.error.message).toContain('service-http-server dev-license')
    }

    // Ctrl-C: the terminal signals the whole foreground process group.
    process.kill(-(quickstart.child.pid as number), 'SIGINT')
    expect(await quickstart.exited).toBe(0)
    expect(quickstart.output()).toContain('"event":"stopped"')
    expect(quickstart.output()).not.toContain('shutdown_forced')
    expect(existsSync(join(work, 'first', '.graph.service.lock'))).toBe(false)
    expect(readdirSync(join(work, 'first'))).toEqual(['graph'])
  })

  it('uses the development license once `service-http-server dev-license` has issued it', async () => {
    const issued = await exec(process.execPath, [
      serverMain,
      'dev-license',
      '--dir',
      join(work, 'dev-license'),
    ])
    expect(issued.stdout).toContain('SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM_FILE=')
    expect(issued.stdout).not.toContain('PRIVATE KEY')
    const quickstart = await startQuickstart('licensed')
    const cti = await validate(quickstart.url, 'cti', {
      labels: ['Malware'],
      name: 'Emotet',
      is_family: true,
    })
    expect(cti.status).toBe(200)
    const status = await fetch(`${quickstart.url}/v1/license/status`, {
      headers: { authorization: 'Bearer dev-token' },
    })
    expect(((await status.json()) as { result: { modules: string[] } }).result.modules).toEqual([
      'crisis',
      'cti',
      'fimi',
    ])
    process.kill(-(quickstart.child.pid as number), 'SIGINT')
    expect(await quickstart.exited).toBe(0)
  })
})

describe('signals during the drain', () => {
  it('treats a repeat within the echo window as the same Ctrl-C, and a later second one as "stop now"', async () => {
    const server = await startServer({ env: { SERVICE_HTTP_SHUTDOWN_TIMEOUT_MS: '60000' } })
    // A request whose body never finishes holds the drain open.
    const socket = connect(server.port, '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write(
      `POST /v1/cypher/read HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
    )
    await new Promise((r) => setTimeout(r, 200))
    server.process.kill('SIGINT')
    server.process.kill('SIGINT') // the same Ctrl-C, delivered twice
    await new Promise((r) => setTimeout(r, 1_000))
    expect(server.process.exitCode).toBeNull()
    expect(server.stdout()).toContain('"event":"draining"')
    server.process.kill('SIGINT')
    expect(await server.exited).toBe(7)
    expect(server.stdout()).toMatch(
      /"event":"shutdown_forced".*second SIGINT during the drain: stopping at once/,
    )
    socket.destroy()
  })
})
