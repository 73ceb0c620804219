import { openEngine } from '@service/core'
const engine = await openEngine()
const w = await engine.write("UNWIND range(1, 60000) AS i CREATE (:Person {age: i % 90, city: 'c' + toString(i % 20)})")
console.log(w.status, JSON.stringify(w.validation_errors ?? w))
const q = "MATCH (p:Person) RETURN p.city AS city, sum(duration.between(date({year: 1950 + p.age % 50, month: 1, day: 1 + p.age % 28}), date('2024-06-30'))) AS total"
for (let i = 0; i < 3; i++) {
  const t = performance.now()
  const r = await engine.read(q)
  console.log(r.status, r.data?.rows.length, (performance.now() - t).toFixed(0), 'ms')
}
await engine.close()
