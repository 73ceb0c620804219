import type { Registry } from 'prom-client'

type Labels = Record<string, string | number>
interface Value {
  metricName: string
  labels: Labels
  value: number
}

interface Series {
  labels: { method: string; route: string; status_code: string }
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  counts: Float64Array
  sum: number
  count: number
}

/**
 * The HTTP request duration histogram. prom-client's own Histogram validates and hashes the label set on
 * every observation, about a microsecond: the largest single cost of a probe after the socket. Here an
 * observation is one Map lookup by a joined key and two increments; the registry renders the series at
 * scrape time through its metric interface (`get`), in the same text prom-client's Histogram produces.
 */
export class RequestDurationHistogram {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  private readonly series = new Map<string, Series>()

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never)
  }

  observe(method: string, route: string, statusCode: number, seconds: number): void {
    const key = `${method} ${statusCode} ${route}`
    let series = this.series.get(key)
    if (series === undefined) {
      series = {
        labels: { method, route, status_code: String(statusCode) },
        counts: new Float64Array(this.buckets.length + 1),
        sum: 0,
        count: 0,
      }
      this.series.set(key, series)
    }
    let bucket = 0
    while (bucket < this.buckets.length && seconds > (this.buckets[bucket] as number)) bucket++
    series.counts[bucket] = (series.counts[bucket] as number) + 1
    series.sum += seconds
    series.count += 1
  }

  get(): { name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: Value[] } {
    const values: Value[] = []
    for (const { labels, counts, sum, count } of this.series.values()) {
      let cumulative = 0
      this.buckets.forEach((le, i) => {
        cumulative += counts[i] as number
        values.push({ metricName: `${this.name}_bucket`, labels: { le, ...labels }, value: cumulative })
      })
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...labels }, value: count })
      values.push({ metricName: `${this.name}_sum`, labels, value: sum })
      values.push({ metricName: `${this.name}_count`, labels, value: count })
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }

  reset(): void {
    this.series.clear()
  }
}
