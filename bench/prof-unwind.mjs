import { openEngine } from '@service/core'
const engine = await openEngine({ cypherBudgets: { maxLoadedRecords: 10_000_000, maxMutations: 1_000_000 } })
const q = 'UNWIND range(1, 10000) AS i CREATE (:Temp {i: i})'
for (let i = 0; i < 5; i++) await engine.cypher({ query: q, mode: 'auto', workspaceId: 'bench' })
const t = performance.now(); const c = process.cpuUsage()
for (let i = 0; i < 20; i++) await engine.cypher({ query: q, mode: 'auto', workspaceId: 'bench' })
const cpu = process.cpuUsage(c)
console.log('ms per 10k', ((performance.now() - t) / 20).toFixed(1), 'cpu ms per 10k', ((cpu.user + cpu.system) / 1000 / 20).toFixed(1))
globalThis.gc?.(); console.log('heap MB', (process.memoryUsage().heapUsed/1048576).toFixed(0), 'for', 250000, 'nodes')
