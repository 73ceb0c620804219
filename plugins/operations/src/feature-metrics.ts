import type { MemoryResponse } from '@service/core'
import { IMPORT_METRIC_KEYS, type ImportResult } from '@service/core/stix'
import { Counter, Histogram, type Registry } from 'prom-client'

// Metrics of feature operations that are counted as they happen (not read from a source at scrape time).

/** service_stix_import_records_total{outcome}: STIX objects by import outcome, every outcome present from 0. */
export function stixImportMetrics(registry: Registry) {
  const importRecords = new Counter({
    name: 'service_stix_import_records_total',
    help: 'STIX objects by import outcome (requested, created, updated, duplicate, rejected, unresolved_reference, failed).',
    labelNames: ['outcome'],
    registers: [registry],
  })
  for (const outcome of IMPORT_METRIC_KEYS) importRecords.inc({ outcome }, 0)
  return (result: ImportResult) => {
    for (const outcome of IMPORT_METRIC_KEYS) {
      const n = result.metrics?.[outcome] ?? 0
      if (n > 0) importRecords.inc({ outcome }, n)
    }
  }
}

/** service_memory_operations_total{operation,outcome} and the recall usage histograms. */
export function memoryOperationMetrics(registry: Registry) {
  const registers = [registry]
  const operations = new Counter({
    name: 'service_memory_operations_total',
    help: 'Memory operations by name and outcome (ok or the error code).',
    labelNames: ['operation', 'outcome'],
    registers,
  })
  const usage = (name: string, help: string, buckets: number[]) =>
    new Histogram({ name: `service_memory_recall_${name}`, help, buckets, registers })
  const items = usage('items', 'Items returned per recall.', [0, 1, 10, 100, 1000, 10000])
  const depth = usage('depth', 'Depth reached per recall.', [0, 1, 2, 3, 4, 8, 16])
  const bytes = usage('payload_bytes', 'Payload bytes per recall.', [1024, 16384, 262144, 1048576, 16777216])
  const cost = usage(
    'cost',
    'Cost units (edges examined) per recall.',
    [10, 100, 1000, 10000, 100000, 1000000],
  )
  const seconds = usage(
    'duration_seconds',
    'Recall time in the engine.',
    [0.001, 0.005, 0.01, 0.05, 0.1, 1, 10, 60],
  )
  return (operation: string, outcome: string, response: MemoryResponse | null) => {
    operations.inc({ operation, outcome })
    const u = (response?.result.result as { usage?: Record<string, number> } | undefined)?.usage
    if (operation !== 'recall' || u === undefined) return
    items.observe(u.items ?? 0)
    depth.observe(u.depth ?? 0)
    bytes.observe(u.payload_bytes ?? 0)
    cost.observe(u.cost ?? 0)
    seconds.observe((u.elapsed_ms ?? 0) / 1000)
  }
}
