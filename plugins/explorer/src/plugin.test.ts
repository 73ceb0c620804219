import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { errorsPlugin } from '@service/plugin-errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import explorerPlugin from './plugin.js'
import { CONTENT_SECURITY_POLICY } from './security-headers.js'

let app: FastifyInstance
const dirs: string[] = []
afterEach(async () => {
  await app?.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

async function build(files: Record<string, string> | null) {
  const root = mkdtempSync(join(tmpdir(), 'explorer-page-'))
  dirs.push(root)
  const web = join(root, 'web')
  if (files !== null) {
    for (const [name, body] of Object.entries(files)) {
      mkdirSync(join(web, name, '..'), { recursive: true })
      writeFileSync(join(web, name), body)
    }
  }
  writeFileSync(join(root, 'secret.json'), '{"not":"served"}')
  app = Fastify()
  await app.register(errorsPlugin)
  await app.register(explorerPlugin, { root: web })
  await app.ready()
}

const PAGE = {
  'index.html': '<!doctype html><title>x</title>',
  'explorer.js': 'export {}',
  'explorer-style.css': 'body{}',
  'explorer.js.map': '{}',
  'notes.txt': 'left out: unknown type',
  'assets/logo.svg': '<svg/>',
}

describe('explorer page plugin', () => {
  it('redirects / and /explorer to /explorer/', async () => {
    await build(PAGE)
    const root = await app.inject('/')
    expect(root.statusCode).toBe(302)
    expect(root.headers.location).toBe('/explorer/')
    const bare = await app.inject('/explorer')
    expect(bare.statusCode).toBe(301)
    expect(bare.headers.location).toBe('/explorer/')
  })

  it('serves the shell and its bundles with their types and a strict CSP', async () => {
    await build(PAGE)
    const shell = await app.inject('/explorer/')
    expect(shell.statusCode).toBe(200)
    expect(shell.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(shell.body).toBe(PAGE['index.html'])
    expect(shell.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(shell.headers['x-content-type-options']).toBe('nosniff')
    expect(shell.headers['referrer-policy']).toBe('no-referrer')
    for (const directive of ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"])
      expect(CONTENT_SECURITY_POLICY).toContain(directive)
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-(inline|eval)|https?:/)
    expect((await app.inject('/explorer/explorer.js')).headers['content-type']).toBe(
      'text/javascript; charset=utf-8',
    )
    expect((await app.inject('/explorer/explorer-style.css')).headers['content-type']).toBe(
      'text/css; charset=utf-8',
    )
    expect((await app.inject('/explorer/assets/logo.svg')).headers['content-type']).toBe('image/svg+xml')
  })

  it('answers 304 to a matching If-None-Match', async () => {
    await build(PAGE)
    const first = await app.inject('/explorer/explorer.js')
    const etag = first.headers.etag as string
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
    const again = await app.inject({ url: '/explorer/explorer.js', headers: { 'if-none-match': etag } })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')
  })

  it('serves nothing outside the built page, and no file of an unknown type', async () => {
    await build(PAGE)
    for (const path of [
      '/explorer/notes.txt',
      '/explorer/../secret.json',
      '/explorer/%2e%2e/secret.json',
      '/explorer/..%2fsecret.json',
      '/explorer/nope.js',
    ]) {
      const res = await app.inject(path)
      expect(res.statusCode, path).toBe(404)
      expect(res.json().error.code, path).toBe('NOT_FOUND')
      expect(res.body).not.toContain('not":"served')
    }
  })

  it('says so when the page was not built', async () => {
    await build(null)
    const res = await app.inject('/explorer/')
    expect(res.statusCode).toBe(404)
    expect(res.json().error.message).toContain('npm run build')
  })

  it('keeps its routes out of the OpenAPI document', async () => {
    await build(PAGE)
    // hide: true is what @fastify/swagger reads; every page route sets it.
    const hidden: boolean[] = []
    const probe = Fastify()
    await probe.register(errorsPlugin)
    probe.addHook('onRoute', (route) => {
      hidden.push((route.schema as { hide?: boolean } | undefined)?.hide === true)
    })
    await probe.register(explorerPlugin, { root: join(dirs[0]!, 'web') })
    await probe.ready()
    await probe.close()
    expect(hidden.length).toBeGreaterThanOrEqual(3)
    expect(hidden.every(Boolean)).toBe(true)
  })
})
