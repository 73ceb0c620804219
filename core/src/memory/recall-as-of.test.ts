import { afterEach, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../runtime/index.js'
import { context, inner, limits, op } from '../testing/memory-requests.js'

const engines: Engine[] = []
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close()
})

const at = (iso: string) => Date.parse(iso)

/**
 * A memory written, rewritten, linked and forgotten at known instants (the engine's clock is the test's), so
 * recall `as_of` each instant can be checked against what was recorded then.
 */
async function history() {
  let clock = at('2026-01-01T00:00:00Z')
  const engine = await openEngine({ now: () => clock })
  engines.push(engine)
  const ctx = context()
  const text = (value: string) => ({ format: 'text', value })
  const remember = async (value: string) =>
    inner(
      await op(engine, ctx, 'remember', {
        kind: 'note',
        schema_version: '1',
        content: text(value),
        provenance: [],
        tags: [],
      }),
    ).record.id as string
  const emotet = await remember('Emotet spreads through Word attachments')
  clock = at('2026-02-01T00:00:00Z')
  await op(engine, ctx, 'update', {
    target: { kind: 'memory', id: emotet },
    patch: { content: text('Emotet spreads through OneNote files') },
  })
  clock = at('2026-03-01T00:00:00Z')
  const loader = await remember('Qakbot loader drops the payload')
  await op(engine, ctx, 'relate', {
    source_id: emotet,
    target_id: loader,
    kind: 'delivers',
    properties: {},
    provenance: [],
    lifecycle: 'active',
  })
  clock = at('2026-04-01T00:00:00Z')
  await op(engine, ctx, 'forget', { memory_id: emotet, mode: 'tombstone', reason: 'test' })
  clock = at('2026-05-01T00:00:00Z')
  const recall = async (objective: string, as_of?: string) =>
    inner(
      await op(engine, ctx, 'recall', {
        objective,
        seed_ids: [],
        limits: limits(),
        ...(as_of === undefined ? {} : { filters: { as_of } }),
      }),
    )
  return { emotet, loader, recall }
}

// biome-ignore lint/suspicious/noExplicitAny: items are walked as JSON
const items = (res: any) =>
  res.items.map((i: { record: { id: string; version: number; content: { value: string } } }) => ({
    id: i.record.id,
    version: i.record.version,
    text: i.record.content.value,
  }))

describe('recall as_of: the workspace as recorded at an instant', () => {
  it('sees each memory in the version recorded by then, and a memory forgotten later', async () => {
    const { emotet, loader, recall } = await history()
    // Now: the forgotten memory is gone; only the loader answers.
    expect(items(await recall('Emotet Qakbot')).map((i: { id: string }) => i.id)).toEqual([loader])
    // Before its rewrite: the first version, and the loader recorded later is not there.
    expect(items(await recall('Emotet spreads', '2026-01-15T00:00:00Z'))).toEqual([
      { id: emotet, version: 1, text: 'Emotet spreads through Word attachments' },
    ])
    // After the rewrite, before the loader.
    expect(items(await recall('Emotet spreads', '2026-02-15T00:00:00Z'))).toEqual([
      { id: emotet, version: 2, text: 'Emotet spreads through OneNote files' },
    ])
    // After the link, before the forget: the walk reaches the loader through the relationship of then.
    const linked = await recall('Emotet spreads', '2026-03-15T00:00:00Z')
    expect(items(linked).map((i: { id: string }) => i.id)).toEqual([emotet, loader])
    expect(linked.items[1].selection_path.relationship_ids).toHaveLength(1)
  })

  it('gives an empty, complete result before anything was recorded, and reports the filter', async () => {
    const { recall } = await history()
    const before = await recall('Emotet spreads', '2025-12-01T00:00:00Z')
    expect(before.items).toEqual([])
    expect(before.usage.filters).toEqual({ as_of: '2025-12-01T00:00:00Z' })
  })
})
