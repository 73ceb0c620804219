// A deterministic property graph for benchmarks: the same seed always gives the same nodes and edges.
export function lcg(seed) {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 4294967296
  }
}

const CITIES = 50

/** The labels, relationship types and property types `generateGraph` produces (schema-first peers need it). */
export const GRAPH_SCHEMA = {
  nodes: {
    Person: [
      ['uid', 'int'],
      ['name', 'string'],
      ['age', 'int'],
      ['city', 'string'],
      ['score', 'float'],
    ],
    Company: [
      ['uid', 'int'],
      ['name', 'string'],
      ['employees', 'int'],
    ],
    City: [
      ['uid', 'int'],
      ['name', 'string'],
    ],
  },
  relationships: {
    KNOWS: { from: 'Person', to: 'Person', properties: [['since', 'int']] },
    WORKS_AT: { from: 'Person', to: 'Company', properties: [['since', 'int']] },
    LOCATED_IN: { from: 'Company', to: 'City', properties: [] },
  },
}

/** Yields nodes then relationships; indices are positions in the node sequence. */
export function* generateGraph({ nodes = 100_000, relationships = 500_000, seed = 42 } = {}) {
  const rand = lcg(seed)
  const persons = Math.floor(nodes * 0.6)
  const companies = Math.floor(nodes * 0.3)
  for (let i = 0; i < nodes; i++) {
    if (i < persons) {
      yield {
        kind: 'node',
        index: i,
        labels: ['Person'],
        props: {
          uid: i,
          name: `person-${i}`,
          age: Math.floor(rand() * 90),
          city: `city-${Math.floor(rand() * CITIES)}`,
          score: Math.round(rand() * 1000) / 10,
        },
      }
    } else if (i < persons + companies) {
      yield {
        kind: 'node',
        index: i,
        labels: ['Company'],
        props: { uid: i, name: `company-${i}`, employees: Math.floor(rand() * 10000) },
      }
    } else {
      yield {
        kind: 'node',
        index: i,
        labels: ['City'],
        props: { uid: i, name: `city-${i - persons - companies}` },
      }
    }
  }
  for (let r = 0; r < relationships; r++) {
    const roll = rand()
    if (roll < 0.7) {
      yield {
        kind: 'rel',
        type: 'KNOWS',
        start: Math.floor(rand() * persons),
        end: Math.floor(rand() * persons),
        props: { since: 1990 + Math.floor(rand() * 35) },
      }
    } else if (roll < 0.95) {
      yield {
        kind: 'rel',
        type: 'WORKS_AT',
        start: Math.floor(rand() * persons),
        end: persons + Math.floor(rand() * companies),
        props: { since: 1990 + Math.floor(rand() * 35) },
      }
    } else {
      yield {
        kind: 'rel',
        type: 'LOCATED_IN',
        start: persons + Math.floor(rand() * companies),
        end: persons + companies + Math.floor(rand() * (nodes - persons - companies)),
        props: {},
      }
    }
  }
}

/** Loads the generated graph into an engine through `transact`, in batches of `batchSize` records. */
export async function loadGenerated(engine, workspace, graph = {}, { batchSize = 20_000, sessionId } = {}) {
  const ids = []
  let batch = []
  const flush = async () => {
    const items = batch
    batch = []
    await engine.transact(
      workspace,
      (tx, store) => {
        const props = (p) =>
          new Map(Object.entries(p).map(([k, v]) => [store.names.id(k), Number.isInteger(v) ? BigInt(v) : v]))
        for (const item of items) {
          if (item.kind === 'node')
            ids[item.index] = tx.createNode(
              item.labels.map((l) => store.names.id(l)),
              props(item.props),
            )
          else
            tx.createRelationship(
              store.names.id(item.type),
              ids[item.start],
              ids[item.end],
              props(item.props),
            )
        }
      },
      sessionId === undefined ? {} : { sessionId },
    )
  }
  for (const item of generateGraph(graph)) {
    batch.push(item)
    if (batch.length === batchSize) await flush()
  }
  await flush()
  return ids
}
