import { afterEach, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../runtime/index.js'
import { memoryGraph } from '../testing/memory-requests.js'
import { HUB_MIN_DEGREE, hubDegree, hubFactor, keptLexicalRanks, PEAK_RATIO } from './recall-fusion.js'
import { seedBudget } from './recall-rank.js'
import { matchRelations, relationRoot, withoutRelationWords } from './recall-relations.js'

const engines: Engine[] = []
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close()
})

// biome-ignore lint/suspicious/noExplicitAny: items are walked as JSON
type Item = any

async function graph() {
  const engine = await openEngine()
  engines.push(engine)
  return memoryGraph(engine)
}

/** A person and two versions of one fact about them: the earlier ended in 2023 and is replaced by the current. */
async function versionedFact(g: Awaited<ReturnType<typeof graph>>, earlierText: string, nowText: string) {
  const person = await g.remember('Noor Okafor', { kind: 'person' })
  const earlier = await g.remember(earlierText, {
    kind: 'fact',
    valid_from: '2019-01-01T00:00:00Z',
    valid_until: '2023-05-01T00:00:00Z',
  })
  const now = await g.remember(nowText, { kind: 'fact', valid_from: '2023-05-01T00:00:00Z' })
  await g.relate(earlier, person, 'about')
  await g.relate(now, person, 'about')
  await g.relate(now, earlier, 'replaces')
  return { person, earlier, now }
}

const ids = (res: { items: Item[] }) => res.items.map((i: Item) => i.record.id)

describe('relation words', () => {
  it('are learned from the kinds present, by root, and leave the text query', () => {
    const kinds = ['mitigates', 'uses', 'subtechnique-of', 'attributed-to']
    expect(relationRoot('mitigations')).toBe('mitig')
    expect([...matchRelations('what mitigations exist for X', kinds).kinds.keys()]).toEqual(['mitigates'])
    expect([...matchRelations('software using X', kinds).kinds.keys()]).toEqual(['uses'])
    expect([...matchRelations('campaigns attributed to G', kinds).kinds.keys()]).toEqual(['attributed-to'])
    // A kind the workspace does not have is never matched, whatever the word.
    expect(matchRelations('what mitigates X', ['uses']).kinds.size).toBe(0)
    const m = matchRelations('what mitigates loss of view', kinds)
    expect(withoutRelationWords('what mitigates loss of view', m)).toBe('what loss of view')
    // Nothing left but the relation word: the objective is kept whole.
    expect(withoutRelationWords('mitigates', matchRelations('mitigates', kinds))).toBe('mitigates')
  })

  it('the seed budget is a third of the items asked for, 2 to 8', () => {
    expect([1, 6, 10, 24, 100].map(seedBudget)).toEqual([2, 2, 4, 8, 8])
  })
})

describe('recall through the graph', () => {
  it('reaches across a relationship even when the objective matches more memories than max_items', async () => {
    const g = await graph()
    // Thirty memories match the objective (more than max_items), none as well as the technique does.
    for (let i = 0; i < 30; i++) await g.remember(`a report on the view from control room ${i}`)
    const technique = await g.remember('Loss of View\nthe operators lose sight of the process')
    const mitigation = await g.remember('Out-of-Band Communications Channel\na second path for commands')
    const rel = await g.relate(mitigation, technique, 'mitigates')
    const res = await g.recall('what mitigates Loss of View', [], { max_items: 5 })
    expect(ids(res)).toContain(mitigation)
    const reached = res.items.find((i: Item) => i.record.id === mitigation)
    expect(reached.depth).toBe(1)
    expect(reached.selection_path).toEqual({ memory_ids: [technique, mitigation], relationship_ids: [rel] })
    expect(reached.selection_reasons).toEqual(
      expect.arrayContaining([
        'authorized_relationship_depth_1',
        'graph_proximity',
        'relation_match:mitigates (objective word "mitigates")',
      ]),
    )
    expect(res.usage.depth).toBeGreaterThanOrEqual(1)
    expect(res.usage.cost).toBeGreaterThan(0)
  })

  it('ranks the far end of a two-relation chain above the hop between (multi-hop, anchored)', async () => {
    const g = await graph()
    const malware = await g.remember('Stuxnet\na worm')
    const technique = await g.remember('Program Download\nsends logic to a controller')
    const sibling = await g.remember('Rootkit\nhides')
    const mitigation = await g.remember('Code Signing\nsigned logic only')
    await g.relate(malware, technique, 'uses')
    await g.relate(malware, sibling, 'uses')
    await g.relate(mitigation, technique, 'mitigates')
    const res = await g.recall('mitigations for the techniques Stuxnet uses', [malware])
    const order = ids(res)
    expect(order.indexOf(mitigation)).toBeGreaterThan(-1)
    expect(order.indexOf(mitigation)).toBeLessThan(order.indexOf(technique))
    const far = res.items.find((i: Item) => i.record.id === mitigation)
    expect(far.depth).toBe(2)
    expect(far.selection_path.memory_ids).toEqual([malware, technique, mitigation])
  })

  it('counts every edge it examines as cost and stops at max_cost', async () => {
    const g = await graph()
    const hub = await g.remember('hub memory')
    for (let i = 0; i < 12; i++) await g.relate(hub, await g.remember(`spoke ${i}`), 'links')
    const full = await g.recall('hub', [], { max_depth: 1 })
    expect(full.usage.cost).toBe(12)
    expect(full.completeness.outcomes).toEqual([])
    const cut = await g.recall('hub', [], { max_depth: 1, max_cost: 5 })
    expect(cut.usage.cost).toBe(5)
    expect(cut.completeness.outcomes).toEqual(['cost_budget_exhausted'])
    const blocked = await g.recall('hub', [], { max_depth: 1, supernode_threshold: 11 })
    expect(blocked.usage.cost).toBe(0)
    expect(blocked.completeness.outcomes).toContain('supernode_blocked')
  })

  it('finds a relationship by its text and evidence and brings both of its ends', async () => {
    const g = await graph()
    const a = await g.remember('first memory')
    const b = await g.remember('second memory')
    await g.remember('unrelated memory')
    const rel = await g.relate(a, b, 'observed_with', { note: 'seen together at the zanzibar relay' })
    for (const objective of ['zanzibar relay', 'report page']) {
      const res = await g.recall(objective, [], { max_depth: 1 })
      expect(ids(res)).toEqual(expect.arrayContaining([a, b]))
      expect(res.items[0].selection_reasons).toContain(`relationship_match:${rel}`)
      // The relationship between them comes back with its evidence.
      expect(res.relationships).toHaveLength(1)
      expect(res.relationships[0].provenance[0]).toMatchObject({ locator: 'report page 4' })
    }
  })

  it('corrects a misspelt word to a near term of the workspace and says so', async () => {
    const g = await graph()
    const target = await g.remember('Spearphishing Attachment\nmail with a malicious file')
    const res = await g.recall('malicous atachment')
    expect(ids(res)[0]).toBe(target)
    expect(res.items[0].selection_reasons).toEqual(
      expect.arrayContaining([
        'term_correction:malicous->malicious',
        'term_correction:atachment->attachment',
      ]),
    )
  })
})

describe('rank rules', () => {
  it('keeps the leading hits of peaked lexical scores, none of flat ones or of a relational objective', () => {
    expect(keptLexicalRanks([10, 3, 2.9], false)).toBe(1)
    expect(keptLexicalRanks([10, 9, 2], false)).toBe(2)
    expect(keptLexicalRanks([10], false)).toBe(1)
    // Flat: no drop below PEAK_RATIO within the first three.
    expect(keptLexicalRanks([10, 9, 8.5, 8, 1], false)).toBe(0)
    expect(keptLexicalRanks([10, PEAK_RATIO * 10 - 0.1], true)).toBe(0)
    expect(keptLexicalRanks([], false)).toBe(0)
  })

  it('demotes a hub in proportion to its degree past a share of the workspace', () => {
    expect(hubDegree(100)).toBe(HUB_MIN_DEGREE)
    expect(hubDegree(10_000)).toBe(1000)
    expect(hubFactor(40, 50)).toBe(1)
    expect(hubFactor(200, 50)).toBe(0.25)
  })
})

describe('recall ranking', () => {
  it('keeps the one named thing first though a neighbour has more graph evidence', async () => {
    const g = await graph()
    const named = await g.remember('Quokka Protocol\nthe handshake the field team adopted')
    const busy = await g.remember('Field notes\nweekly notes of the field team')
    // The busy memory is linked to many others: the walk brings it a lot of activation.
    for (let i = 0; i < 6; i++) {
      const other = await g.remember(`note ${i} of the field team`)
      await g.relate(busy, other, 'links')
      await g.relate(named, other, 'links')
    }
    await g.relate(named, busy, 'links')
    const res = await g.recall('quokka protocol handshake')
    expect(ids(res)[0]).toBe(named)
    const trace = await g.trace(res.recall_id)
    expect(trace.details.items[0]).toMatchObject({ memory_id: named, signals: { lexical_rank: 0 } })
  })

  it('does not let a hub linked to most of the workspace crowd the answers unless it is named', async () => {
    const g = await graph()
    const user = await g.remember('Dana Whitfield\nthe user', { tags: ['user'] })
    const kickoff = await g.remember('Kickoff of Project Heron\nthe first meeting')
    const attendees: string[] = []
    for (let i = 0; i < 3; i++) {
      const person = await g.remember(`Attendee ${i}\na colleague`)
      attendees.push(person)
      await g.relate(person, kickoff, 'attended')
    }
    await g.relate(user, kickoff, 'attended')
    // The user is linked to everything: 60 other memories, past HUB_MIN_DEGREE.
    for (let i = 0; i < 60; i++)
      await g.relate(user, await g.remember(`memory ${i} of the kickoff season`), 'knows')
    const res = await g.recall('who attended the kickoff of project heron')
    const order = ids(res)
    for (const a of attendees)
      expect(order.indexOf(a)).toBeLessThan(order.indexOf(user) === -1 ? 99 : order.indexOf(user))
    const hub = res.items.find((i: Item) => i.record.id === user)
    if (hub !== undefined)
      expect(hub.selection_reasons.some((r: string) => r.startsWith('hub_demoted:'))).toBe(true)
    // Named, the hub is an answer again.
    const named = await g.recall('Dana Whitfield')
    expect(ids(named)[0]).toBe(user)
    expect(named.items[0].selection_reasons.some((r: string) => r.startsWith('hub_demoted:'))).toBe(false)
  })

  it('ranks the same with the anchor as an explicit seed when the objective found it, and adds it when not', async () => {
    const g = await graph()
    const stuxnet = await g.remember('Stuxnet\na worm')
    const technique = await g.remember('Program Download\nsends logic to a controller')
    const mitigation = await g.remember('Code Signing\nsigned logic only')
    await g.relate(stuxnet, technique, 'uses')
    await g.relate(mitigation, technique, 'mitigates')
    for (let i = 0; i < 5; i++) await g.remember(`worm report ${i}`)
    const objective = 'mitigations for the techniques Stuxnet uses'
    const plain = await g.recall(objective)
    const anchored = await g.recall(objective, [stuxnet])
    expect(ids(anchored)).toEqual(ids(plain))
    expect(anchored.items.map((i: Item) => i.score)).toEqual(plain.items.map((i: Item) => i.score))
    // Not named by the objective: the seed adds what lies across its relationships.
    const vague = await g.recall('what mitigates it', [stuxnet])
    expect(ids(vague)).toContain(mitigation)
    const trace = await g.trace(vague.recall_id)
    const seed = trace.details.items.find((i: Item) => i.memory_id === stuxnet)
    expect(seed.signals.seed).toBe(true)
  })

  it('traces the signals that ranked each item and what each contributed', async () => {
    const g = await graph()
    const a = await g.remember('Loss of View\nthe operators lose sight', { confidence: 0.5 })
    const b = await g.remember('Out-of-Band Channel\na second path')
    await g.relate(b, a, 'mitigates')
    const res = await g.recall('what mitigates loss of view')
    const trace = await g.trace(res.recall_id)
    expect(trace.details.items.map((i: Item) => i.memory_id)).toEqual(ids(res))
    const far = trace.details.items.find((i: Item) => i.memory_id === b)
    expect(far.signals.relation.value).toBeGreaterThan(0)
    expect(far.signals.graph.value).toBeGreaterThan(0)
    expect(far.signals.lexical.value).toBe(0)
    const near = trace.details.items.find((i: Item) => i.memory_id === a)
    expect(near.signals.confidence).toEqual({ value: 0.5, factor: 0.9 })
    for (const item of trace.details.items) {
      const s = item.signals
      const sum = s.lexical.contribution + s.graph.contribution + s.relation.contribution
      expect(item.score).toBeCloseTo(sum * s.validity.factor * s.degree.factor * s.confidence.factor, 9)
    }
  })
})

describe('what the objective asks for', () => {
  it('ranks memories of the kind a question asks for above the context around them', async () => {
    const g = await graph()
    const project = await g.remember('Project Falcon launch', { kind: 'project' })
    const meeting = await g.remember('Kickoff meeting for Falcon launch', { kind: 'meeting' })
    const decision = await g.remember('Falcon launch uses Jira', { kind: 'decision' })
    await g.relate(meeting, project, 'about')
    await g.relate(decision, meeting, 'decided-in')
    const res = await g.recall('What decisions came out of the meetings about Falcon launch?', [])
    expect(ids(res)[0]).toBe(decision)
    const first = res.items[0]
    expect(first.selection_reasons).toContain('answer_kind:decision')
    const trace = await g.trace(res.recall_id)
    expect(trace.details.items[0].signals.answer_kind).toEqual({ factor: 1 })
    expect(trace.details.items[1].signals.answer_kind).toEqual({ factor: 0.35 })
  })

  it('prefers, for a question about the past, the version valid then', async () => {
    const g = await graph()
    const { earlier, now } = await versionedFact(
      g,
      'Noor Okafor is employed by Acme',
      'Noor Okafor is employed by Globex',
    )
    // Asked about now: the current version first, the ended one demoted and marked.
    const current = await g.recall('Noor Okafor employed by', [])
    expect(ids(current).indexOf(now)).toBeLessThan(ids(current).indexOf(earlier))
    // A year in the past: the version valid in that year first, above the named person and the current one.
    const in2022 = await g.recall('Noor Okafor employed by in 2022', [])
    expect(ids(in2022)[0]).toBe(earlier)
    expect(in2022.items[0].selection_reasons).toContain('valid_at_the_time_asked')
    expect(ids(in2022).indexOf(earlier)).toBeLessThan(ids(in2022).indexOf(now))
    // "before": the version that ended.
    const before = await g.recall('Noor Okafor employed by before', [])
    expect(ids(before)[0]).toBe(earlier)
  })

  it('reads a relation word as part of the fact when a past question asks when it held', async () => {
    const g = await graph()
    const { person, earlier, now } = await versionedFact(
      g,
      'Noor Okafor works at Acme',
      'Noor Okafor works at Globex',
    )
    const project = await g.remember('Project Granite rollout', { kind: 'project' })
    await g.relate(person, project, 'works-on')
    // "work" names the kind works-on, but the question asks where she worked then: the version valid in 2022
    // first, above the project the relation walk reaches and the person (no validity: context).
    const res = await g.recall('Where did Noor Okafor work in 2022?', [])
    const order = ids(res)
    expect(order[0]).toBe(earlier)
    expect(order.indexOf(earlier)).toBeLessThan(order.indexOf(project))
    expect(order).toContain(now)
    expect(order.indexOf(earlier)).toBeLessThan(order.indexOf(person))
    // Asked now, "work" is the relation again: who works on what.
    const who = await g.recall('Who works on Granite rollout?', [])
    expect(ids(who)[0]).toBe(person)
  })

  it('credits the far end of a path through a waypoint kind the question names, not the waypoint', async () => {
    const g = await graph()
    const ada = await g.remember('Ada Schultz', { kind: 'person' })
    const platform = await g.remember('Platform team\nruns the build farm', { kind: 'team' })
    const other = await g.remember('Design team\ndraws things', { kind: 'team' })
    const mate = await g.remember('Bruno Tanaka', { kind: 'person' })
    const stranger = await g.remember('Hugo Kowalski', { kind: 'person' })
    const project = await g.remember('Project Cedar audit', { kind: 'project' })
    const colleague = await g.remember('Felix Dufour', { kind: 'person' })
    await g.relate(ada, platform, 'member-of')
    await g.relate(mate, platform, 'member-of')
    await g.relate(stranger, other, 'member-of')
    await g.relate(ada, project, 'works-on')
    await g.relate(colleague, project, 'works-on')
    const res = await g.recall('Who else is in the same team as Ada Schultz?', [])
    const order = ids(res)
    // Through Ada's team, not another team the word "team" matches, nor a project she shares.
    expect(order.indexOf(mate)).toBeGreaterThan(-1)
    expect(order.indexOf(mate)).toBeLessThan(order.indexOf(colleague))
    if (order.includes(stranger)) expect(order.indexOf(mate)).toBeLessThan(order.indexOf(stranger))
    const reached = res.items.find((i: Item) => i.record.id === mate)
    expect(reached.selection_path.memory_ids).toEqual([ada, platform, mate])
    expect(reached.selection_reasons).toContain('waypoint:team')
  })
})
