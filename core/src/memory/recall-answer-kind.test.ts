import { describe, expect, it } from 'vitest'
import { GraphStore } from '../graph/store.js'
import { answerKinds, waypointKinds, workspaceMemoryKinds } from './recall-answer-kind.js'

const KINDS = new Set([
  'person',
  'team',
  'decision',
  'meeting',
  'project',
  'attack-pattern',
  'malware',
  'campaign',
])

describe('the kind of memory an objective asks for', () => {
  it('reads it where a question puts it: who, or the word after what/which', () => {
    expect(answerKinds('Who works on the Falcon launch?', KINDS)).toEqual(new Set(['person']))
    expect(answerKinds('whom did Ada meet', KINDS)).toEqual(new Set(['person']))
    expect(answerKinds('Which team is Ada a member of?', KINDS)).toEqual(new Set(['team']))
    expect(answerKinds('What decisions came out of the meetings about Falcon?', KINDS)).toEqual(
      new Set(['decision']),
    )
    expect(answerKinds('which malware uses Modify Parameter', KINDS)).toEqual(new Set(['malware']))
  })

  it('names none for a lookup, a statement, a kind named later, or a word of a longer kind', () => {
    expect(answerKinds('What do I know about Ada Schultz?', KINDS).size).toBe(0)
    expect(answerKinds('malware that wipes disks on workstations', KINDS).size).toBe(0)
    expect(answerKinds('what did campaigns attributed to Sandworm use', KINDS).size).toBe(0)
    expect(answerKinds('which attacker uploads logic to a PLC', KINDS).size).toBe(0)
    expect(answerKinds('Who attended the kickoff?', new Set(['note', 'meeting'])).size).toBe(0)
    expect(answerKinds('Which team?', new Set()).size).toBe(0)
  })

  it("learns the workspace's memory kinds as memories are added", () => {
    const store = new GraphStore()
    const tx = store.begin()
    const label = store.names.id('Memory')
    const kind = store.names.id('kind')
    tx.createNode([label], new Map([[kind, 'person']]))
    tx.createNode([store.names.id('Other')], new Map([[kind, 'ignored']]))
    store.publish(tx.prepare(), 1)
    expect([...workspaceMemoryKinds(store)]).toEqual(['person'])
    const more = store.begin()
    more.createNode([label], new Map([[kind, 'team']]))
    store.publish(more.prepare(), 2)
    expect([...workspaceMemoryKinds(store)].sort()).toEqual(['person', 'team'])
  })

  it('reads waypoint kinds: the other kinds a typed question names, with the words that name them', () => {
    const waypoints = (objective: string) => waypointKinds(objective, KINDS, answerKinds(objective, KINDS))
    expect(waypoints('Who else is in the same team as Ada?')).toEqual({
      kinds: new Set(['team']),
      words: new Set(['team']),
    })
    expect(waypoints('What decisions came out of the meetings about Falcon?').kinds).toEqual(
      new Set(['meeting']),
    )
    // The answer kind is not its own waypoint; an untyped lookup has none.
    expect(waypoints('Which team is Ada a member of?').kinds.size).toBe(0)
    expect(waypoints('Pull up my notes on the Falcon launch project').kinds.size).toBe(0)
    // A word of a longer kind names no kind.
    expect(waypoints('Who used the attack on the pattern?').kinds.size).toBe(0)
  })
})
