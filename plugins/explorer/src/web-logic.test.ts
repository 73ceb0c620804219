// The page's pure logic (no DOM): token hand-over, view links, diffs, timeline order, records and error words.
import { describe, expect, it } from 'vitest'
import { graphOfRows } from '../web/src/cypher-records.js'
import { diffProjections } from '../web/src/diff.js'
import { describeProblem, isAuthProblem } from '../web/src/error-words.js'
import {
  displayName,
  labelColours,
  OTHER_COLOUR,
  primaryLabel,
  shortRationale,
  sizeForDegree,
} from '../web/src/records.js'
import { orderedBoundaries } from '../web/src/timeline.js'
import { TOKEN_KEY, TokenKeeper, takeFragmentToken } from '../web/src/token.js'
import type { Boundary, Projection, TimelineNode } from '../web/src/types.js'
import { boundaryQuery, formatViewState, parseViewState } from '../web/src/url-state.js'

describe('fragment token', () => {
  it('takes the token and keeps the rest of the fragment', () => {
    expect(takeFragmentToken('#token=abc')).toEqual({ token: 'abc', rest: '' })
    expect(takeFragmentToken('#token=a%2Bb&x=1')).toEqual({ token: 'a+b', rest: 'x=1' })
    expect(takeFragmentToken('#x=1')).toEqual({ token: null, rest: 'x=1' })
    expect(takeFragmentToken('')).toEqual({ token: null, rest: '' })
    expect(takeFragmentToken('#token=%20%20')).toEqual({ token: null, rest: '' })
  })

  it('keeps the token in the given store under one key', () => {
    const map = new Map<string, string>()
    const keeper = new TokenKeeper({
      getItem: (k) => map.get(k) ?? null,
      setItem: (k, v) => void map.set(k, v),
      removeItem: (k) => void map.delete(k),
    })
    keeper.set('  t0k  ')
    expect(map.get(TOKEN_KEY)).toBe('t0k')
    expect(keeper.get()).toBe('t0k')
    keeper.clear()
    expect(keeper.get()).toBeNull()
  })
})

describe('view links', () => {
  it('round-trips a view and leaves defaults out', () => {
    const view = parseViewState(
      '?session=s1&boundary=timeshot--1&compare=current&select=node--4&stopped=1&max_nodes=20',
    )
    expect(view).toEqual({
      session: 's1',
      boundary: 'timeshot--1',
      compare: 'current',
      select: 'node--4',
      showStopped: true,
      maxNodes: 20,
      maxRelationships: null,
      maxPayloadBytes: null,
    })
    expect(formatViewState(view)).toBe(
      'session=s1&boundary=timeshot--1&compare=current&select=node--4&stopped=1&max_nodes=20',
    )
    expect(formatViewState(parseViewState(''))).toBe('')
  })

  it('ignores budgets that are not positive integers', () => {
    const view = parseViewState('?max_nodes=-1&max_relationships=1.5&max_payload_bytes=abc')
    expect([view.maxNodes, view.maxRelationships, view.maxPayloadBytes]).toEqual([null, null, null])
    expect(parseViewState('?boundary=%20').boundary).toBe('current')
  })

  it('reads the boundary kind from the id', () => {
    expect(boundaryQuery('current')).toEqual({ boundary_kind: 'current' })
    expect(boundaryQuery('snapshot--x')).toEqual({ boundary_kind: 'snapshot', boundary_id: 'snapshot--x' })
    expect(boundaryQuery('timeshot--y')).toEqual({ boundary_kind: 'timeshot', boundary_id: 'timeshot--y' })
  })
})

const projection = (nodes: [string, string][], relationships: [string, string][] = []): Projection =>
  ({
    boundary: { kind: 'current' },
    nodes: nodes.map(([id, version_id]) => ({ id, version_id, labels: [], properties: {} })),
    relationships: relationships.map(([id, version_id]) => ({ id, version_id, source: 'a', target: 'b' })),
    metadata: {},
  }) as unknown as Projection

describe('diff between boundaries', () => {
  it('classifies records as added, removed or changed by version', () => {
    const before = projection(
      [
        ['node--1', 'node--1@3'],
        ['node--2', 'node--2@3'],
        ['node--3', 'node--3@3'],
      ],
      [['relationship--1', 'relationship--1@3']],
    )
    const after = projection(
      [
        ['node--1', 'node--1@3'],
        ['node--2', 'node--2@9'],
        ['node--4', 'node--4@9'],
      ],
      [['relationship--2', 'relationship--2@9']],
    )
    const diff = diffProjections(before, after)
    expect([...diff.nodes]).toEqual([
      ['node--2', 'changed'],
      ['node--4', 'added'],
      ['node--3', 'removed'],
    ])
    expect([...diff.relationships]).toEqual([
      ['relationship--2', 'added'],
      ['relationship--1', 'removed'],
    ])
    expect(diff.counts).toEqual({ added: 2, removed: 2, changed: 1 })
  })

  it('finds nothing between equal projections', () => {
    const p = projection([['node--1', 'node--1@1']])
    expect(diffProjections(p, p).counts).toEqual({ added: 0, removed: 0, changed: 0 })
  })
})

describe('timeline order', () => {
  const b = (id: string, sequence: number): Boundary =>
    ({ boundary_id: id, sequence, kind: id.split('--')[0] }) as Boundary
  it('follows the lineage (a timeshot before the snapshot of the same sequence)', () => {
    const roots: TimelineNode[] = [
      {
        boundary: b('timeshot--b', 5),
        children: [
          { boundary: b('snapshot--a', 5), children: [{ boundary: b('timeshot--c', 9), children: [] }] },
        ],
      },
    ]
    expect(orderedBoundaries(roots).map((x) => x.boundary_id)).toEqual([
      'timeshot--b',
      'snapshot--a',
      'timeshot--c',
    ])
    expect(orderedBoundaries([])).toEqual([])
  })

  it('walks a long chain without recursion', () => {
    let node: TimelineNode = { boundary: b('timeshot--0', 0), children: [] }
    const root = node
    for (let i = 1; i < 50_000; i++) {
      const next: TimelineNode = { boundary: b(`timeshot--${i}`, i), children: [] }
      node.children.push(next)
      node = next
    }
    expect(orderedBoundaries([root])).toHaveLength(50_000)
  })
})

describe('records on the drawing', () => {
  it('colours by the most specific label, the most frequent labels first', () => {
    expect(primaryLabel(['StixObject', 'Malware'])).toBe('Malware')
    expect(primaryLabel(['StixObject'])).toBe('StixObject')
    expect(primaryLabel([])).toBe('(no label)')
    const counts = new Map(Array.from({ length: 14 }, (_, i) => [`L${i}`, 100 - i] as const))
    const colours = labelColours(counts)
    expect(colours.get('L0')).toBe('#4e79a7')
    expect(new Set([...colours.values()].slice(0, 12)).size).toBe(12)
    expect(colours.get('L13')).toBe(OTHER_COLOUR)
  })

  it('names a node by name, title, text, STIX id, then id', () => {
    const p = (props: Record<string, string>) =>
      Object.fromEntries(Object.entries(props).map(([k, v]) => [k, { type: 'string' as const, value: v }]))
    expect(displayName({ id: 'node--1', properties: p({ name: 'APT1', stix_id: 'x--1' }) })).toBe('APT1')
    expect(displayName({ id: 'node--1', properties: p({ text: 'a note' }) })).toBe('a note')
    expect(displayName({ id: 'node--1', properties: p({ stix_id: 'malware--1' }) })).toBe('malware--1')
    expect(displayName({ id: 'node--1', properties: {} })).toBe('node--1')
    expect(displayName({ id: 'node--1', properties: p({ name: 'x'.repeat(100) }) })).toHaveLength(58)
  })

  it('grows node size with degree, bounded', () => {
    expect(sizeForDegree(0)).toBe(3)
    expect(sizeForDegree(100)).toBeGreaterThan(sizeForDegree(4))
    expect(sizeForDegree(1_000_000)).toBe(18)
  })

  it('shortens a rationale to its matched terms', () => {
    expect(shortRationale('hybrid score 0.7 = lexical 0.5; matched terms: triton, safety')).toBe(
      'matched: triton, safety',
    )
    expect(shortRationale('exact id match')).toBe('exact id match')
  })

  it('finds nodes and relationships anywhere in Cypher rows', () => {
    const a = { id: 'node--1', labels: ['A'], properties: {} }
    const b = { id: 'node--2', labels: ['B'], properties: {} }
    const r = { id: 'relationship--7', type: 'R', start: 'node--1', end: 'node--2', properties: {} }
    const found = graphOfRows([[a, r, b], [[a, b]], [{ nested: { path: [a, r] } }], [1, 'text', null]])
    expect(found.nodes.map((n) => n.id).sort()).toEqual(['node--1', 'node--2'])
    expect(found.relationships.map((x) => x.id)).toEqual(['relationship--7'])
  })
})

describe('error words', () => {
  it('says what happened, keeping the service detail', () => {
    expect(describeProblem({ status: 401, code: 'AUTH_INVALID', message: 'invalid bearer token' })).toBe(
      'The token was not accepted: it is wrong or has expired. Enter the current token. (invalid bearer token)',
    )
    expect(describeProblem({ status: 400, code: 'QUERY_BUDGET_EXCEEDED', message: 'rows' })).toMatch(
      /^Budget exceeded/,
    )
    expect(describeProblem({ status: 404, code: 'SOMETHING_ELSE', message: '' })).toMatch(/^Not found/)
    expect(describeProblem({ status: 0, code: 'NETWORK', message: 'x' })).toBe(
      'The service cannot be reached. Check that it is running.',
    )
    expect(describeProblem({ status: 418, code: 'TEAPOT', message: 'short' })).toBe(
      'The service refused the request (TEAPOT). (short)',
    )
    expect(isAuthProblem({ status: 401, code: 'AUTH_REQUIRED', message: '' })).toBe(true)
    expect(isAuthProblem({ status: 404, code: 'NOT_FOUND', message: '' })).toBe(false)
  })
})
