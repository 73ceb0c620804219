import type { FactNode } from './bundle-facts.js'
import type { AgentQuery } from './query-set.js'

/** Temporal, APOC and string/list functions and the newer syntax, on the bundles' own values. */

const ms = (iso: string | undefined): number => Date.parse(iso as string)
const utcDay = (iso: string | undefined): number => Math.floor(ms(iso) / 86_400_000)
const raw = (n: FactNode) => n.raw as Record<string, unknown>

/** ISO text of a UTC instant as Neo4j prints a datetime with offset zero (`…Z`, milliseconds kept when not zero). */
function neo4jUtc(iso: string): string {
  const d = new Date(ms(iso))
  const base = d.toISOString().replace(/\.000Z$/, 'Z')
  return base
}

const byCount = (a: [string, number], b: [string, number]) =>
  b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)

function tally(values: string[]): [string, number][] {
  const counts = new Map<string, number>()
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1)
  return [...counts]
}

export const FUNCTION_QUERIES: AgentQuery[] = [
  {
    id: 'datetime-filter',
    style: 'text2cypher',
    feature: 'temporal',
    query:
      "MATCH (m:Malware) WHERE datetime(m.created) >= datetime('2023-01-01T00:00:00Z') RETURN count(m) AS recent",
    expect: (f) => [[f.withLabel('Malware').filter((m) => ms(m.created) >= Date.UTC(2023, 0, 1)).length]],
  },
  {
    id: 'year-histogram',
    style: 'text2cypher',
    feature: 'temporal',
    query: 'MATCH (m:Malware) RETURN datetime(m.created).year AS year, count(*) AS n ORDER BY year',
    ordered: true,
    expect: (f) =>
      tally(f.withLabel('Malware').map((m) => String(new Date(ms(m.created)).getUTCFullYear())))
        .map(([y, n]) => [Number(y), n])
        .sort((a, b) => (a[0] as number) - (b[0] as number)),
  },
  {
    id: 'days-between',
    style: 'text2cypher',
    feature: 'temporal',
    query:
      'MATCH (c:Campaign) RETURN c.name AS campaign, duration.inDays(date(datetime(c.created)), date(datetime(c.modified))).days AS days',
    expect: (f) => f.withLabel('Campaign').map((c) => [c.name, utcDay(c.modified) - utcDay(c.created)]),
  },
  {
    id: 'modified-after-date',
    style: 'text2cypher',
    feature: 'temporal',
    query:
      "MATCH (n:AttackPattern) WHERE date(datetime(n.modified)) > date('2025-01-01') RETURN count(n) AS updated",
    expect: (f) => [
      [
        f.withLabel('AttackPattern').filter((n) => utcDay(n.modified) > Date.UTC(2025, 0, 1) / 86_400_000)
          .length,
      ],
    ],
  },
  {
    id: 'epoch-millis',
    style: 'text2cypher',
    feature: 'temporal',
    query:
      'MATCH (c:Campaign) RETURN c.name AS campaign, datetime(c.created).epochMillis AS ms ORDER BY ms, campaign LIMIT 3',
    ordered: true,
    expect: (f) =>
      f
        .withLabel('Campaign')
        .map((c) => [c.name, ms(c.created)] as [string, number])
        .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, 3),
  },
  {
    id: 'truncate-month',
    style: 'text2cypher',
    feature: 'temporal',
    query:
      "MATCH (m:Malware {name: 'Backdoor.Oldrea'}) RETURN toString(date.truncate('month', datetime(m.created))) AS month",
    expect: (f) => [[`${f.byName('Backdoor.Oldrea', 'Malware').created?.slice(0, 7)}-01`]],
  },
  {
    id: 'latest-modified',
    style: 'text2cypher',
    feature: 'temporal',
    query: 'MATCH (m:Malware) RETURN toString(max(datetime(m.modified))) AS latest',
    expect: (f) => {
      const latest = f
        .withLabel('Malware')
        .reduce((a, m) => (ms(m.modified) > ms(a) ? (m.modified as string) : a), '1970-01-01T00:00:00Z')
      return [[neo4jUtc(latest)]]
    },
  },
  {
    id: 'year-month-filter',
    style: 'text2cypher',
    feature: 'temporal',
    query:
      'MATCH (m:Malware) WITH m, datetime(m.modified) AS mod WHERE mod.year = 2025 AND mod.month <= 6 RETURN count(m) AS n',
    expect: (f) => [
      [
        f.withLabel('Malware').filter((m) => {
          const d = new Date(ms(m.modified))
          return d.getUTCFullYear() === 2025 && d.getUTCMonth() + 1 <= 6
        }).length,
      ],
    ],
  },
  {
    id: 'duration-since',
    style: 'text2cypher',
    feature: 'temporal',
    query:
      "MATCH (c:Campaign {name: 'Maroochy Water Breach'}) RETURN duration.between(date('2020-01-01'), date(datetime(c.created))).months AS months",
    expect: (f) => {
      const d = new Date(ms(f.byName('Maroochy Water Breach').created))
      let months = (d.getUTCFullYear() - 2020) * 12 + d.getUTCMonth()
      if (d.getUTCDate() < 1) months--
      return [[months]]
    },
  },
  {
    id: 'apoc-json-platforms',
    style: 'text2cypher',
    feature: 'apoc',
    query:
      "MATCH (m:Malware {name: 'Backdoor.Oldrea'}) RETURN apoc.convert.fromJsonMap(m.stix_raw).x_mitre_platforms AS platforms",
    sortLists: true,
    expect: (f) => [[raw(f.byName('Backdoor.Oldrea', 'Malware')).x_mitre_platforms]],
  },
  {
    id: 'apoc-json-unwind',
    style: 'text2cypher',
    feature: 'apoc',
    query:
      'MATCH (m:Malware) WITH apoc.convert.fromJsonMap(m.stix_raw) AS raw UNWIND raw.x_mitre_platforms AS platform RETURN platform, count(*) AS n ORDER BY n DESC, platform',
    ordered: true,
    expect: (f) =>
      tally(
        f.withLabel('Malware').flatMap((m) => (raw(m).x_mitre_platforms as string[] | undefined) ?? []),
      ).sort(byCount),
  },
  {
    id: 'apoc-json-tactics',
    style: 'graphrag',
    feature: 'apoc',
    query:
      'MATCH (t:AttackPattern) WITH apoc.convert.fromJsonMap(t.stix_raw) AS raw UNWIND raw.kill_chain_phases AS k RETURN k.phase_name AS tactic, count(*) AS n ORDER BY n DESC, tactic LIMIT 5',
    ordered: true,
    expect: (f) =>
      tally(
        f
          .withLabel('AttackPattern')
          .flatMap((t) =>
            ((raw(t).kill_chain_phases as { phase_name: string }[] | undefined) ?? []).map(
              (k) => k.phase_name,
            ),
          ),
      )
        .sort(byCount)
        .slice(0, 5),
  },
  {
    id: 'apoc-text-join',
    style: 'text2cypher',
    feature: 'apoc',
    query: "MATCH (c:Campaign) WITH c ORDER BY c.name RETURN apoc.text.join(collect(c.name), '|') AS names",
    expect: (f) => [
      [
        f
          .withLabel('Campaign')
          .map((c) => c.name as string)
          .sort()
          .join('|'),
      ],
    ],
  },
  {
    id: 'apoc-coll-toset',
    style: 'text2cypher',
    feature: 'apoc',
    query: 'MATCH (m:Malware)-[:Uses]->(t) RETURN apoc.coll.toSet(collect(t.stix_type)) AS targets',
    sortLists: true,
    expect: (f) => [
      [
        [
          ...new Set(
            f.rels
              .filter((r) => r.type === 'Uses' && f.nodes.get(r.source)?.type === 'malware')
              .map((r) => f.nodes.get(r.target)?.type),
          ),
        ],
      ],
    ],
  },
  {
    id: 'map-projection-column',
    style: 'mcp-neo4j',
    feature: 'syntax',
    query: "MATCH (n:Malware {name: 'Backdoor.Oldrea'}) RETURN n {.name, .external_id}",
    columns: ['n'],
    expect: (f) => [
      [{ name: 'Backdoor.Oldrea', external_id: f.byName('Backdoor.Oldrea', 'Malware').external_id }],
    ],
  },
  {
    id: 'round-precision',
    style: 'text2cypher',
    feature: 'function',
    query: 'MATCH (c:Campaign) RETURN round(avg(size(c.name)), 2) AS avgLength',
    expect: (f) => {
      const lengths = f.withLabel('Campaign').map((c) => [...(c.name as string)].length)
      const avg = lengths.reduce((a, b) => a + b, 0) / lengths.length
      return [[Math.round(avg * 100) / 100]]
    },
  },
  {
    id: 'null-if',
    style: 'text2cypher',
    feature: 'function',
    query: "MATCH (m:Malware) WHERE nullIf(m.name, 'EKANS') IS NULL RETURN m.external_id AS id",
    expect: (f) => f.named('EKANS', 'Malware').map((m) => [m.external_id]),
  },
  {
    id: 'trim-from',
    style: 'text2cypher',
    feature: 'function',
    query:
      "MATCH (t:AttackPattern {external_id: 'T0887'}) RETURN trim(BOTH '*' FROM '**' + t.name + '**') AS name",
    expect: (f) => [[f.withLabel('AttackPattern').find((t) => t.external_id === 'T0887')?.name]],
  },
  {
    id: 'to-integer-list',
    style: 'text2cypher',
    feature: 'function',
    query:
      "MATCH (t:AttackPattern {external_id: 'T0887'}) RETURN toIntegerList([substring(t.external_id, 1), 'x']) AS parts",
    expect: () => [[[887, null]]],
  },
  {
    id: 'type-predicate',
    style: 'text2cypher',
    feature: 'syntax',
    query:
      "MATCH (m:Malware {name: 'Backdoor.Oldrea'}) RETURN m.name IS :: STRING AS isString, m.missing IS :: INTEGER NOT NULL AS isInt",
    expect: () => [[true, false]],
  },
  {
    id: 'cypher-prefix',
    style: 'mcp-neo4j',
    feature: 'syntax',
    query: 'CYPHER 5 MATCH (n:Tool) RETURN n.name ORDER BY n.name',
    ordered: true,
    expect: (f) =>
      f
        .withLabel('Tool')
        .map((t) => [t.name])
        .sort(),
  },
  {
    id: 'offset',
    style: 'text2cypher',
    feature: 'syntax',
    query: 'MATCH (n:Campaign) RETURN n.name ORDER BY n.name OFFSET 5 LIMIT 3',
    ordered: true,
    expect: (f) =>
      f
        .withLabel('Campaign')
        .map((c) => c.name as string)
        .sort()
        .slice(5, 8)
        .map((n) => [n]),
  },
  {
    id: 'explain',
    style: 'mcp-neo4j',
    feature: 'syntax',
    query: 'EXPLAIN MATCH (n:Malware) RETURN n.name',
    expect: () => [],
  },
  {
    id: 'distinct-prefix',
    style: 'text2cypher',
    feature: 'function',
    query:
      "MATCH (n:AttackPattern) WHERE n.external_id STARTS WITH 'T' RETURN count(DISTINCT substring(n.external_id, 0, 3)) AS prefixes",
    expect: (f) => [
      [
        new Set(
          f
            .withLabel('AttackPattern')
            .filter((n) => n.external_id?.startsWith('T'))
            .map((n) => (n.external_id as string).slice(0, 3)),
        ).size,
      ],
    ],
  },
  {
    id: 'case-kind',
    style: 'text2cypher',
    feature: 'basic',
    query:
      "MATCH (g:IntrusionSet {name: 'Sandworm Team'})-[:Uses]->(x) RETURN CASE WHEN x:Malware THEN 'malware' WHEN x:AttackPattern THEN 'technique' ELSE 'other' END AS kind, count(*) AS n",
    expect: (f) =>
      tally(
        f
          .out(f.byName('Sandworm Team'), 'Uses')
          .map((x) =>
            x.type === 'malware' ? 'malware' : x.type === 'attack-pattern' ? 'technique' : 'other',
          ),
      ),
  },
]
