import type { BundleFacts, FactNode } from './bundle-facts.js'
import type { AgentQuery } from './query-set.js'

/** Lookups, relational and multi-hop questions, subqueries and paths, as text-to-Cypher agents write them. */

/** Names in order, one per node (ATT&CK has deprecated objects that share a name). */
const names = (nodes: FactNode[]): string[] => nodes.map((n) => n.name as string).sort()
const count = (xs: unknown[]) => [[xs.length]]
const uses = (f: BundleFacts, n: FactNode, label?: string) => f.out(n, 'Uses', label)

export const GRAPH_QUERIES: AgentQuery[] = [
  {
    id: 'lookup-by-name',
    style: 'text2cypher',
    feature: 'basic',
    query: "MATCH (m:Malware {name: 'EKANS'}) RETURN m.external_id AS id",
    expect: (f) => f.named('EKANS', 'Malware').map((m) => [m.external_id]),
  },
  {
    id: 'lookup-by-external-id',
    style: 'text2cypher',
    feature: 'basic',
    query: "MATCH (t:AttackPattern) WHERE t.external_id = 'T0887' RETURN t.name",
    expect: (f) =>
      f
        .withLabel('AttackPattern')
        .filter((t) => t.external_id === 'T0887')
        .map((t) => [t.name]),
  },
  {
    id: 'label-or',
    style: 'text2cypher',
    feature: 'label-expression',
    query: 'MATCH (n:Malware|Tool) RETURN count(n) AS software',
    expect: (f) => count([...f.withLabel('Malware'), ...f.withLabel('Tool')]),
  },
  {
    id: 'label-and',
    style: 'text2cypher',
    feature: 'label-expression',
    query: 'MATCH (n:IntrusionSet&ThreatActor) RETURN count(n) AS groups',
    expect: (f) => count(f.withLabel('IntrusionSet').filter((n) => n.labels.includes('ThreatActor'))),
  },
  {
    id: 'label-not',
    style: 'text2cypher',
    feature: 'label-expression',
    query: 'MATCH (n:StixObject&!AttackPattern&!Malware) RETURN count(n) AS rest',
    expect: (f) =>
      count(
        [...f.nodes.values()].filter(
          (n) => !n.labels.includes('AttackPattern') && !n.labels.includes('Malware'),
        ),
      ),
  },
  {
    id: 'label-predicate-or',
    style: 'text2cypher',
    feature: 'basic',
    query: 'MATCH (n) WHERE n:Campaign OR n:Tool RETURN n.name ORDER BY n.name',
    ordered: true,
    expect: (f) => names([...f.withLabel('Campaign'), ...f.withLabel('Tool')]).map((n) => [n]),
  },
  {
    id: 'starts-with',
    style: 'text2cypher',
    feature: 'basic',
    query: "MATCH (n:Malware) WHERE n.name STARTS WITH 'B' RETURN n.name ORDER BY n.name",
    ordered: true,
    expect: (f) => names(f.withLabel('Malware').filter((m) => m.name?.startsWith('B'))).map((n) => [n]),
  },
  {
    id: 'contains-lower',
    style: 'text2cypher',
    feature: 'basic',
    query:
      "MATCH (n:Malware) WHERE toLower(n.description) CONTAINS 'ransomware' RETURN count(n) AS ransomware",
    expect: (f) =>
      count(f.withLabel('Malware').filter((m) => m.description?.toLowerCase().includes('ransomware'))),
  },
  {
    id: 'regex',
    style: 'text2cypher',
    feature: 'basic',
    query: "MATCH (n:AttackPattern) WHERE n.name =~ '(?i).*phishing.*' RETURN n.name ORDER BY n.name",
    ordered: true,
    expect: (f) =>
      names(f.withLabel('AttackPattern').filter((t) => /phishing/i.test(t.name ?? ''))).map((n) => [n]),
  },
  {
    id: 'group-malware',
    style: 'text2cypher',
    feature: 'basic',
    query: 'MATCH (g:IntrusionSet)-[:Uses]->(m:Malware) WHERE g.name = $group RETURN m.name ORDER BY m.name',
    params: { group: 'Sandworm Team' },
    ordered: true,
    expect: (f) => names(uses(f, f.byName('Sandworm Team'), 'Malware')).map((n) => [n]),
  },
  {
    id: 'mitigations-of',
    style: 'text2cypher',
    feature: 'basic',
    query:
      "MATCH (c:CourseOfAction)-[:Mitigates]->(t:AttackPattern {external_id: 'T0857'}) RETURN c.name ORDER BY c.name",
    ordered: true,
    expect: (f) => {
      const t = f.withLabel('AttackPattern').find((n) => n.external_id === 'T0857') as FactNode
      return names(f.in(t, 'Mitigates', 'CourseOfAction')).map((n) => [n])
    },
  },
  {
    id: 'top-malware-by-techniques',
    style: 'text2cypher',
    feature: 'aggregation',
    query:
      'MATCH (m:Malware)-[:Uses]->(t:AttackPattern) RETURN m.name AS malware, count(t) AS techniques ORDER BY techniques DESC, malware LIMIT 10',
    ordered: true,
    expect: (f) =>
      f
        .withLabel('Malware')
        .map((m) => [m.name, uses(f, m, 'AttackPattern').length] as [string, number])
        .filter(([, n]) => n > 0)
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
        .slice(0, 10),
  },
  {
    id: 'subtechniques-collect',
    style: 'text2cypher',
    feature: 'aggregation',
    query:
      'MATCH (t:AttackPattern)-[:SubtechniqueOf]->(p:AttackPattern) RETURN p.name AS parent, collect(t.name) AS subs ORDER BY parent',
    sortLists: true,
    expect: (f) => {
      const byParent = new Map<string, string[]>()
      for (const r of f.rels.filter((r) => r.type === 'SubtechniqueOf')) {
        const p = f.nodes.get(r.target)?.name as string
        byParent.set(p, [...(byParent.get(p) ?? []), f.nodes.get(r.source)?.name as string])
      }
      return [...byParent].map(([p, subs]) => [p, subs])
    },
  },
  {
    id: 'two-hop-shared-techniques',
    style: 'text2cypher',
    feature: 'multi-hop',
    query:
      'MATCH (g:IntrusionSet {name: $group})-[:Uses]->(t:AttackPattern)<-[:Uses]-(m:Malware) RETURN DISTINCT m.name ORDER BY m.name',
    params: { group: 'APT-C-23' },
    ordered: true,
    expect: (f) => {
      const techniques = new Set(uses(f, f.byName('APT-C-23'), 'AttackPattern').map((t) => t.id))
      return names(f.withLabel('Malware').filter((m) => uses(f, m).some((t) => techniques.has(t.id)))).map(
        (n) => [n],
      )
    },
  },
  {
    id: 'campaign-attribution',
    style: 'browser-guide',
    feature: 'basic',
    query: 'MATCH (c:Campaign)-[:AttributedTo]->(g) RETURN c.name AS campaign, g.name AS group',
    expect: (f) =>
      f.rels
        .filter((r) => r.type === 'AttributedTo' && f.nodes.get(r.source)?.type === 'campaign')
        .map((r) => [f.nodes.get(r.source)?.name, f.nodes.get(r.target)?.name]),
  },
  {
    id: 'unmitigated-count',
    style: 'text2cypher',
    feature: 'pattern-predicate',
    query: 'MATCH (n:AttackPattern) WHERE NOT (n)<-[:Mitigates]-() RETURN count(n) AS unmitigated',
    expect: (f) => count(f.withLabel('AttackPattern').filter((t) => f.in(t, 'Mitigates').length === 0)),
  },
  {
    id: 'exists-subquery',
    style: 'text2cypher',
    feature: 'subquery',
    query: 'MATCH (n:AttackPattern) WHERE EXISTS { (n)<-[:Detects]-() } RETURN count(n) AS detected',
    expect: (f) => count(f.withLabel('AttackPattern').filter((t) => f.in(t, 'Detects').length > 0)),
  },
  {
    id: 'count-subquery',
    style: 'text2cypher',
    feature: 'subquery',
    query:
      'MATCH (g:IntrusionSet) RETURN g.name AS group, COUNT { (g)-[:Uses]->(:Malware) } AS malware ORDER BY malware DESC, group LIMIT 5',
    ordered: true,
    expect: (f) =>
      f
        .withLabel('IntrusionSet')
        .map((g) => [g.name, uses(f, g, 'Malware').length] as [string, number])
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, 5),
  },
  {
    id: 'collect-subquery',
    style: 'text2cypher',
    feature: 'subquery',
    query:
      'MATCH (g:IntrusionSet {name: $group}) RETURN COLLECT { MATCH (g)-[:Uses]->(t:AttackPattern) RETURN t.external_id } AS techniques',
    params: { group: 'Sandworm Team' },
    sortLists: true,
    expect: (f) => [[uses(f, f.byName('Sandworm Team'), 'AttackPattern').map((t) => t.external_id)]],
  },
  {
    id: 'call-scoped',
    style: 'text2cypher',
    feature: 'subquery',
    query:
      'MATCH (m:Malware) CALL (m) { MATCH (m)-[:Uses]->(t:AttackPattern) RETURN count(t) AS n } RETURN m.name AS malware, n ORDER BY n DESC, malware LIMIT 5',
    ordered: true,
    expect: (f) =>
      f
        .withLabel('Malware')
        .map((m) => [m.name, uses(f, m, 'AttackPattern').length] as [string, number])
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, 5),
  },
  {
    id: 'call-importing-with',
    style: 'text2cypher',
    feature: 'subquery',
    query:
      'MATCH (m:Malware) CALL { WITH m MATCH (m)-[:Uses]->(t) RETURN count(t) AS n } WITH m, n WHERE n > 25 RETURN m.name ORDER BY m.name',
    ordered: true,
    expect: (f) => names(f.withLabel('Malware').filter((m) => uses(f, m).length > 25)).map((n) => [n]),
  },
  {
    id: 'call-union',
    style: 'text2cypher',
    feature: 'subquery',
    query:
      'CALL { MATCH (m:Malware) RETURN m.name AS name UNION MATCH (t:Tool) RETURN t.name AS name } RETURN count(name) AS software',
    // UNION removes duplicate rows: names that two objects share count once.
    expect: (f) =>
      count([...new Set([...f.withLabel('Malware'), ...f.withLabel('Tool')].map((n) => n.name))]),
  },
  {
    id: 'shortest-path-length',
    style: 'text2cypher',
    feature: 'path',
    query:
      'MATCH (a:Malware {name: $a}), (b:IntrusionSet {name: $b}), p = shortestPath((a)-[*..8]-(b)) RETURN length(p) AS hops',
    params: { a: 'Backdoor.Oldrea', b: 'APT-C-23' },
    expect: (f) => [[f.distances(f.byName('Backdoor.Oldrea', 'Malware')).get(f.byName('APT-C-23').id)]],
  },
  {
    id: 'all-shortest-paths',
    style: 'text2cypher',
    feature: 'path',
    query:
      'MATCH (a:Campaign {name: $a}), (b:Campaign {name: $b}) MATCH p = allShortestPaths((a)-[*]-(b)) RETURN count(p) AS paths, min(length(p)) AS hops',
    params: { a: '2015 Ukraine Electric Power Attack', b: '2016 Ukraine Electric Power Attack' },
    expect: (f) => {
      const a = f.byName('2015 Ukraine Electric Power Attack')
      const b = f.byName('2016 Ukraine Electric Power Attack')
      return [[f.shortestPathCount(a, b), f.distances(a).get(b.id)]]
    },
  },
  {
    id: 'shortest-keyword',
    style: 'text2cypher',
    feature: 'path',
    query:
      'MATCH p = SHORTEST 1 (a:Malware {name: $a})-[]-+(b:Malware {name: $b}) RETURN length(p) AS hops, size(nodes(p)) AS nodes',
    params: { a: 'Backdoor.Oldrea', b: 'BlackEnergy' },
    expect: (f) => {
      const d = f
        .distances(f.byName('Backdoor.Oldrea', 'Malware'))
        .get(f.byName('BlackEnergy', 'Malware').id) as number
      return [[d, d + 1]]
    },
  },
  {
    id: 'quantified-path',
    style: 'text2cypher',
    feature: 'path',
    query: 'MATCH (s:AttackPattern)-[:SubtechniqueOf]->+(p:AttackPattern) RETURN count(*) AS pairs',
    expect: (f) => count(f.rels.filter((r) => r.type === 'SubtechniqueOf')),
  },
  {
    id: 'quantified-group',
    style: 'text2cypher',
    feature: 'path',
    query:
      "MATCH (g:IntrusionSet {name: 'Sandworm Team'}) ((x)-[:Uses]->(y)){1,1} (t:AttackPattern) RETURN count(DISTINCT t) AS techniques",
    expect: (f) => count(uses(f, f.byName('Sandworm Team'), 'AttackPattern')),
  },
  {
    id: 'optional-match-count',
    style: 'browser-guide',
    feature: 'basic',
    query:
      "MATCH (t:AttackPattern {external_id: 'T0839'}) OPTIONAL MATCH (t)<-[:Mitigates]-(c) RETURN t.name AS technique, count(c) AS mitigations",
    expect: (f) => {
      const t = f.withLabel('AttackPattern').find((n) => n.external_id === 'T0839') as FactNode
      return [[t.name, f.in(t, 'Mitigates').length]]
    },
  },
  {
    id: 'pattern-comprehension',
    style: 'text2cypher',
    feature: 'pattern-predicate',
    query:
      'MATCH (g:IntrusionSet) WITH g, [(g)-[:Uses]->(m:Malware) | m.name] AS malware WHERE size(malware) > 1 RETURN g.name AS group, size(malware) AS n ORDER BY n DESC, group',
    ordered: true,
    expect: (f) =>
      f
        .withLabel('IntrusionSet')
        .map((g) => [g.name, uses(f, g, 'Malware').length] as [string, number])
        .filter(([, n]) => n > 1)
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
  },
  {
    id: 'revoked-by',
    style: 'browser-guide',
    feature: 'basic',
    query:
      'MATCH (a:AttackPattern)-[:RevokedBy]->(b) RETURN a.external_id AS old, b.external_id AS new ORDER BY old, new LIMIT 10',
    ordered: true,
    expect: (f) =>
      f.rels
        .filter((r) => r.type === 'RevokedBy' && f.nodes.get(r.source)?.type === 'attack-pattern')
        .map((r) => [f.nodes.get(r.source)?.external_id ?? null, f.nodes.get(r.target)?.external_id ?? null])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1])))
        .slice(0, 10),
  },
  {
    id: 'labels-histogram',
    style: 'browser-guide',
    feature: 'aggregation',
    query: 'MATCH (n) RETURN labels(n) AS labels, count(*) AS count ORDER BY count DESC',
    sortLists: true,
    expect: (f) => {
      const byKey = new Map<string, [string[], number]>()
      for (const n of f.nodes.values()) {
        const key = [...n.labels].sort().join()
        byKey.set(key, [n.labels, (byKey.get(key)?.[1] ?? 0) + 1])
      }
      return [...byKey.values()]
    },
  },
  {
    id: 'type-histogram',
    style: 'browser-guide',
    feature: 'aggregation',
    query: 'MATCH ()-[r]->() RETURN type(r) AS type, count(*) AS count ORDER BY count DESC',
    ordered: true,
    expect: (f) => {
      const byType = new Map<string, number>()
      for (const r of f.rels) byType.set(r.type, (byType.get(r.type) ?? 0) + 1)
      return [...byType].sort((a, b) => b[1] - a[1])
    },
  },
  {
    id: 'limit-any',
    style: 'browser-guide',
    feature: 'basic',
    query: 'MATCH (n:Malware) RETURN n.name LIMIT 25',
    check: (rows, _c, f) => {
      const all = new Set(f.withLabel('Malware').map((m) => m.name))
      if (rows.length !== 25) return `${rows.length} rows`
      return rows.every(([name]) => all.has(name as string)) ? null : 'a name that is no malware'
    },
  },
  {
    id: 'group-software',
    style: 'text2cypher',
    feature: 'basic',
    query:
      'MATCH (g:IntrusionSet {name: $g})-[:Uses]->(s) WHERE s:Malware OR s:Tool RETURN s.name ORDER BY s.name',
    params: { g: 'Dark Caracal' },
    ordered: true,
    expect: (f) =>
      names(uses(f, f.byName('Dark Caracal')).filter((s) => s.type === 'malware' || s.type === 'tool')).map(
        (n) => [n],
      ),
  },
  {
    id: 'unwind-params',
    style: 'graphrag',
    feature: 'basic',
    query: 'UNWIND $ids AS id MATCH (t:AttackPattern {external_id: id}) RETURN id, t.name ORDER BY id',
    params: { ids: ['T0887', 'T0857', 'T0839'] },
    ordered: true,
    expect: (f) =>
      ['T0839', 'T0857', 'T0887'].map((id) => [
        id,
        f.withLabel('AttackPattern').find((t) => t.external_id === id)?.name,
      ]),
  },
  {
    id: 'in-list-param',
    style: 'graphrag',
    feature: 'basic',
    query: 'MATCH (m:Malware) WHERE m.name IN $names RETURN m.name ORDER BY m.name',
    params: { names: ['EKANS', 'Industroyer', 'no such thing'] },
    ordered: true,
    expect: (f) =>
      names(f.withLabel('Malware').filter((m) => ['EKANS', 'Industroyer'].includes(m.name ?? ''))).map(
        (n) => [n],
      ),
  },
  {
    id: 'inline-where',
    style: 'text2cypher',
    feature: 'label-expression',
    query: "MATCH (g:IntrusionSet WHERE g.name STARTS WITH 'APT')-[:Uses]->(m:Malware) RETURN g.name, m.name",
    expect: (f) =>
      f
        .withLabel('IntrusionSet')
        .filter((g) => g.name?.startsWith('APT'))
        .flatMap((g) => uses(f, g, 'Malware').map((m) => [g.name, m.name])),
  },
  {
    id: 'degree-top',
    style: 'text2cypher',
    feature: 'aggregation',
    query:
      'MATCH (t:AttackPattern) WITH t, COUNT { (t)--() } AS degree ORDER BY degree DESC, t.external_id LIMIT 3 RETURN t.external_id AS id, degree',
    ordered: true,
    expect: (f) =>
      f
        .withLabel('AttackPattern')
        .map(
          (t) =>
            [t.external_id, f.rels.filter((r) => r.source === t.id || r.target === t.id).length] as [
              string,
              number,
            ],
        )
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, 3),
  },
]
