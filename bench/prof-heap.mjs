import { openEngine } from '@service/core'
import v8 from 'node:v8'
const engine = await openEngine({ cypherBudgets: { maxLoadedRecords: 10_000_000, maxMutations: 1_000_000 } })
const q = 'UNWIND range(1, 10000) AS i CREATE (:Temp {i: i})'
for (let i = 0; i < 10; i++) await engine.cypher({ query: q, mode: 'auto', workspaceId: 'bench' })
globalThis.gc?.()
console.log(v8.writeHeapSnapshot('/tmp/unwind.heapsnapshot'))
