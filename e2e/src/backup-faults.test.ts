import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { connect, createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cli, cliEnv } from './backup-support.js'
import { ADMIN_TOKEN, type RunningServer, serverMain, startServer, trackChild } from './harness.js'
import { eventually, persistentEnv, writePair } from './storage-faults-support.js'

const scratch = mkdtempSync(join(tmpdir(), 'backup-faults-'))

/** A TCP proxy to `port` that drops both sides once `limit` response bytes went through. */
async function droppingProxy(port: number, limit: number): Promise<{ url: string; close: () => void }> {
  const sockets = new Set<Socket>()
  const proxy = createServer((client) => {
    const upstream = connect(port, '127.0.0.1')
    sockets.add(client).add(upstream)
    let sent = 0
    client.pipe(upstream)
    upstream.on('data', (chunk: Buffer) => {
      sent += chunk.length
      client.write(chunk)
      if (sent > limit) {
        client.destroy()
        upstream.destroy()
      }
    })
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
  })
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))
  const address = proxy.address() as { port: number }
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => {
      for (const s of sockets) s.destroy()
      proxy.close()
    },
  }
}

/** The server's open descriptors into the store: the live WAL segment only, once no backup holds files. */
function storeFds(server: RunningServer): string[] {
  const fds = `/proc/${server.process.pid}/fd`
  return (
    readdirSync(fds)
      .map((fd) => {
        try {
          return readlinkSync(join(fds, fd))
        } catch {
          return ''
        }
      })
      .filter((target) => target.startsWith(join(scratch, 'live')))
      // The payload file is open for the server's whole life (values are read from it on demand).
      .filter((target) => !target.endsWith('/payloads.dat'))
  )
}

describe('backup and restore faults (the real process)', () => {
  let server: RunningServer
  const archive = join(scratch, 'big.tar')
  beforeAll(async () => {
    server = await startServer({
      env: persistentEnv(join(scratch, 'live'), {
        SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN,
        SERVICE_STORAGE_SEGMENT_BYTES: String(1024 * 1024),
      }),
    })
    // ~24 MB of store: large enough that a download and a restore take a while.
    for (let i = 0; i < 240; i++)
      expect((await writePair(server, `big:${i}`, 'q'.repeat(100_000))).acknowledged).toBe(true)
  }, 120_000)
  afterAll(async () => {
    await server.stop()
    rmSync(scratch, { recursive: true, force: true })
  })

  it('a dropped connection ends the backup: no file left, descriptors closed, the next backup runs', async () => {
    // Several cut points: a hang-up mid-file once made the reader close a descriptor behind the backup's back,
    // and the backup's own release then failed and kept the rest open.
    // What the server holds open into the store before any backup: the live log segment (one descriptor per
    // fsync slot). A dropped backup must leave exactly these.
    const held = storeFds(server).sort()
    for (const limit of [200_000, 700_000, 2 * 1024 * 1024, 5 * 1024 * 1024]) {
      const proxy = await droppingProxy(server.port, limit)
      try {
        const out = join(scratch, 'dropped.tar')
        const dropped = await cli(['backup', '--url', proxy.url, '--out', out])
        expect(dropped.code).toBe(1)
        expect(dropped.stderr).toContain('broke off')
        expect(existsSync(out)).toBe(false)
        expect(existsSync(`${out}.partial`)).toBe(false)
      } finally {
        proxy.close()
      }
      // The server noticed the hang-up: its descriptors are back and the one-backup slot is free.
      await eventually(async () => storeFds(server).length <= held.length).catch(() =>
        expect(
          storeFds(server).sort(),
          `descriptors still open into the store after a cut at ${limit} bytes`,
        ).toEqual(held),
      )
    }
    const whole = await cli(['backup', '--url', server.url, '--out', archive])
    expect(whole.code, whole.stderr).toBe(0)
    expect(JSON.parse(whole.stdout)).toMatchObject({ sequence: 240 })
    expect((await writePair(server, 'after-drop', '')).acknowledged).toBe(true)
  }, 60_000)

  it('a restore killed with SIGKILL leaves the target refusable, never half-valid', async () => {
    const target = join(scratch, 'killed')
    const staging = join(scratch, '.killed.restoring')
    const child = trackChild(
      spawn(process.execPath, [serverMain, 'restore', archive, '--storage-dir', target], {
        env: cliEnv,
        stdio: 'ignore',
      }),
    )
    await eventually(async () => existsSync(staging), 20_000)
    child.kill('SIGKILL')
    await new Promise((r) => child.once('exit', r))
    expect(existsSync(target)).toBe(false)
    expect(existsSync(staging)).toBe(true)
    // Nothing can start on the target, and the next restore refuses until the leftover is removed.
    const again = await cli(['restore', archive, '--storage-dir', target])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('did not finish')
    rmSync(staging, { recursive: true })
    const clean = await cli(['restore', archive, '--storage-dir', target])
    expect(clean.code, clean.stderr).toBe(0)
    expect(JSON.parse(clean.stdout)).toMatchObject({ recovery: { durable_sequence: 240 } })
  }, 60_000)

  it('a corrupted byte in a checkpoint refuses the restore, naming the file', async () => {
    const bytes = Buffer.from(
      await (
        await fetch(`${server.url}/v1/admin/backup`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      ).arrayBuffer(),
    )
    const at = bytes.lastIndexOf('big:7')
    bytes[at] = 'B'.charCodeAt(0)
    const file = join(scratch, 'flipped.tar')
    writeFileSync(file, bytes)
    const verify = await cli(['verify', file])
    expect(verify.code).toBe(6)
    expect(verify.stderr).toMatch(/BACKUP_CORRUPT: \S+ fails its checksum/)
  }, 60_000)
})
