import type { Engine } from '@service/core'
import { describe, expect, it } from 'vitest'
import { bookmarkOf, bookmarkSequence } from './backend.js'
import { engineBackend } from './engine-backend.js'
import type { PackValue } from './packstream/structure.js'

/** The parts of the engine the backend reads, with a replication role and sequences to set. */
function fakeEngine(role: 'primary' | 'follower' | null, applied = 10) {
  const waited: number[] = []
  const engine = {
    replication: () => (role === null ? null : { role, applied_sequence: applied }),
    durableSequence: () => applied,
    waitForSequence: async (sequence: number) => {
      waited.push(sequence)
      return sequence <= applied
    },
  } as unknown as Engine
  return { engine, waited }
}

const auth = (entries: Record<string, PackValue>) => new Map(Object.entries(entries))
const taken = { ok: true as const }

describe('the engine backend', () => {
  it('takes basic with any user and bearer with the token; nothing else', () => {
    const backend = engineBackend({
      engine: fakeEngine(null).engine,
      auth: { tokenMatches: (candidate) => candidate === 'tok', take: () => taken },
      readYourWritesTimeoutMs: 10,
    })
    expect(
      backend.authenticate(auth({ scheme: 'basic', principal: 'anyone', credentials: 'tok' })),
    ).toBeNull()
    expect(backend.authenticate(auth({ scheme: 'bearer', credentials: 'tok' }))).toBeNull()
    for (const refused of [
      auth({ scheme: 'basic', principal: 'x', credentials: 'nope' }),
      auth({ scheme: 'none' }),
      auth({ scheme: 'kerberos', credentials: 'tok' }),
      auth({ scheme: 'basic', credentials: 1n }),
      auth({}),
    ]) {
      expect(backend.authenticate(refused)?.code).toBe('Neo.ClientError.Security.Unauthorized')
    }
    // Local-insecure mode (loopback only): no token to check.
    const open = engineBackend({
      engine: fakeEngine(null).engine,
      auth: { tokenMatches: null, take: () => taken },
      readYourWritesTimeoutMs: 10,
    })
    expect(open.authenticate(auth({ scheme: 'none' }))).toBeNull()
  })

  it('maps databases to workspaces and refuses past the rate limit', () => {
    const backend = engineBackend({
      engine: fakeEngine(null).engine,
      auth: { tokenMatches: null, take: () => ({ ok: false, retryAfterMs: 1500 }) },
      readYourWritesTimeoutMs: 10,
    })
    expect(backend.workspaceOf(undefined)).toBe('workspace--http-default')
    expect(backend.workspaceOf('neo4j')).toBe('workspace--http-default')
    expect(backend.workspaceOf('workspace--x')).toBe('workspace--x')
    expect(backend.admit()).toMatchObject({ code: 'Neo.TransientError.Request.ResourceExhaustion' })
  })

  it('waits for the highest bookmarked sequence, and refuses as follower lag when it does not come', async () => {
    const { engine, waited } = fakeEngine('follower', 10)
    const backend = engineBackend({
      engine,
      auth: { tokenMatches: null, take: () => taken },
      readYourWritesTimeoutMs: 10,
    })
    await backend.awaitBookmarks([bookmarkOf(3), bookmarkOf(9)])
    expect(waited).toEqual([9])
    await expect(backend.awaitBookmarks([bookmarkOf(11)])).rejects.toMatchObject({
      code: 'STORAGE_FOLLOWER_LAGGING',
    })
    // A bookmark of another server says nothing to wait for.
    await backend.awaitBookmarks(['FB:kcwQ...'])
    expect(waited).toEqual([9, 11])
    expect(backend.bookmark()).toBe('commit-seq:10')
    expect(bookmarkSequence(['commit-seq:1', 'commit-seq:x'])).toBeNull()
  })

  it('routes: one node in every role; a primary with read addresses sends reads to them', () => {
    const single = engineBackend({
      engine: fakeEngine(null).engine,
      auth: { tokenMatches: null, take: () => taken },
      readYourWritesTimeoutMs: 10,
    })
    expect(single.routingTable(undefined, 'h:7687').map((s) => [s.role, s.addresses])).toEqual([
      ['ROUTE', ['h:7687']],
      ['READ', ['h:7687']],
      ['WRITE', ['h:7687']],
    ])
    const primary = engineBackend({
      engine: fakeEngine('primary').engine,
      auth: { tokenMatches: null, take: () => taken },
      readYourWritesTimeoutMs: 10,
      followerAddresses: () => ['f1:7687', 'f2:7687'],
    })
    expect(primary.routingTable(undefined, 'p:7687').map((s) => [s.role, s.addresses])).toEqual([
      ['ROUTE', ['p:7687']],
      ['WRITE', ['p:7687']],
      ['READ', ['f1:7687', 'f2:7687']],
    ])
  })
})
