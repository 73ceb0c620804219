import { Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { REQUEST_DURATION_BUCKETS } from './metrics.js'
import { RequestDurationHistogram } from './request-histogram.js'

const NAME = 'service_http_request_duration_seconds'
const observations: [string, string, number, number][] = [
  ['GET', '/health', 200, 0.0001],
  ['GET', '/health', 200, 0.0005], // on a bound: counted in that bucket (le is inclusive)
  ['GET', '/health', 200, 0.0031],
  ['POST', '/v1/query', 400, 0.2],
  ['POST', '/v1/query', 200, 45], // above every bound: only +Inf
  ['GET', 'unmatched', 404, 0],
]

describe('RequestDurationHistogram', () => {
  it('renders exactly the text prom-client’s own Histogram renders for the same observations', async () => {
    const ours = new Registry()
    const theirs = new Registry()
    const fast = new RequestDurationHistogram(NAME, 'help text', REQUEST_DURATION_BUCKETS, ours)
    const reference = new Histogram({
      name: NAME,
      help: 'help text',
      labelNames: ['method', 'route', 'status_code'],
      buckets: REQUEST_DURATION_BUCKETS,
      registers: [theirs],
    })
    for (const [method, route, status, seconds] of observations) {
      fast.observe(method, route, status, seconds)
      reference.observe({ method, route, status_code: String(status) }, seconds)
    }
    const text = await ours.metrics()
    expect(text).toBe(await theirs.metrics())
    expect(text).toContain(`${NAME}_count{method="GET",route="/health",status_code="200"} 3`)
    expect(text).toContain(`${NAME}_bucket{le="0.0005",method="GET",route="/health",status_code="200"} 2`)
    expect(text).toContain(`${NAME}_bucket{le="+Inf",method="POST",route="/v1/query",status_code="200"} 1`)
  })

  it('starts empty again after a registry reset', async () => {
    const registry = new Registry()
    const fast = new RequestDurationHistogram(NAME, 'help', REQUEST_DURATION_BUCKETS, registry)
    fast.observe('GET', '/health', 200, 0.001)
    registry.resetMetrics()
    expect(await registry.metrics()).not.toContain(`${NAME}_count`)
  })
})
