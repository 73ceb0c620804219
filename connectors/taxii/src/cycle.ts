import { halveBundle, planBundles } from './bundles.js'
import type { CursorStore } from './cursor-store.js'
import type { HttpDeps, RetryPolicy } from './http.js'
import { addCounts, type ImportCounts, ImportError, importBundle, zeroCounts } from './service-client.js'
import type { ConnectorSettings } from './settings.js'
import { fetchCollection } from './taxii-client.js'

export interface CycleDeps {
  http: HttpDeps
  policy: RetryPolicy
  settings: ConnectorSettings
  cursors: CursorStore
}

export interface CycleReport {
  cursor: string | null
  next_cursor: string | null
  pages: number
  fetched: number
  /** Import requests that succeeded. */
  bundles: number
  counts: ImportCounts
  truncated: boolean
}

/**
 * One poll: fetch everything after the stored cursor, import it, and only then store the new cursor. Any
 * failure throws before the save, so the same window is fetched and imported again (at-least-once; the import
 * reports repeats as duplicates).
 */
export async function runCycle({ http, policy, settings, cursors }: CycleDeps): Promise<CycleReport> {
  const collection = settings.collectionId
  const cursor = await cursors.get(collection)
  http.log('info', 'cycle_start', { collection, cursor: cursor ?? null })
  const fetched = await fetchCollection(http, policy, settings, cursor)
  const queue = planBundles(fetched.objects, settings.maxBundleBytes, Buffer.byteLength(settings.workspaceId))
  let counts = zeroCounts()
  let sent = 0
  for (let bundle = queue.shift(); bundle !== undefined; bundle = queue.shift()) {
    const objects = bundle.objects.length
    http.log('info', 'import_start', { collection, bundle: sent + 1, objects, queued: queue.length })
    let result: ImportCounts
    try {
      result = await importBundle(http, policy, settings, bundle)
    } catch (error) {
      // The server's body limit may be below ours: halve and go on, down to single objects.
      if (error instanceof ImportError && error.status === 413 && objects > 1) {
        http.log('warn', 'bundle_split', { collection, objects, reason: 'HTTP 413' })
        queue.unshift(...halveBundle(bundle))
        continue
      }
      throw error
    }
    sent++
    http.log(result.unresolved_reference > 0 ? 'warn' : 'info', 'import_result', {
      collection,
      bundle: sent,
      ...result,
    })
    counts = addCounts(counts, result)
  }
  // An empty fetch carries no Date-Added header, so the cursor normally stays; a header without objects still counts.
  const nextCursor = fetched.dateAddedLast ?? cursor
  if (nextCursor !== undefined && nextCursor !== cursor) {
    await cursors.save(collection, nextCursor)
    http.log('info', 'cursor_saved', { collection, cursor: nextCursor })
  }
  const report: CycleReport = {
    cursor: cursor ?? null,
    next_cursor: nextCursor ?? null,
    pages: fetched.pages,
    fetched: fetched.objects.length,
    bundles: sent,
    counts,
    truncated: fetched.truncated,
  }
  http.log('info', 'cycle_end', { collection, ...report })
  return report
}
