// Tests the built provider through the fake host: the server's own loader (digest, interface version,
// metadata, health) and gates, without HTTP. `npm test` builds the provider first.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { openPackHost } from '@service/provider-sdk/testing'

const packDir = new URL('..', import.meta.url)

test('a record with a name is accepted', async (t) => {
  const host = await openPackHost(packDir)
  t.after(() => host.close())
  const response = await host.validate({ id: 'note-1', labels: ['Note'], name: 'first note' })
  assert.equal(response.status, 'accepted')
  assert.deepEqual(response.issues, [])
})

test('a record without a name is rejected with {{PREFIX}}_NAME_REQUIRED', async (t) => {
  const host = await openPackHost(packDir)
  t.after(() => host.close())
  const response = await host.validate({ id: 'note-2', labels: ['Note'], name: '   ' })
  assert.equal(response.status, 'rejected')
  assert.deepEqual(
    response.issues.map((issue) => [issue.code, issue.field, issue.node_id]),
    [['{{PREFIX}}_NAME_REQUIRED', 'name', 'note-2']],
  )
})

test('the host knows the vocabulary from package.json', async (t) => {
  const host = await openPackHost(packDir)
  t.after(() => host.close())
  assert.equal(host.pack.domain, '{{DOMAIN}}')
  assert.deepEqual(host.host.unknownLabels('{{DOMAIN}}', ['Note', 'Unknown']), ['Unknown'])
})
