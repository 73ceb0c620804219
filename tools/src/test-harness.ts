import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/**
 * What the conformance runners (openCypher TCK, Neo4j manual examples) share: they test semantics, not the
 * service's budgets (some TCK scenarios load a million rows), and they walk a directory for their sources.
 */
export const CONFORMANCE_BUDGETS = {
  maxQueryLength: 1_000_000,
  maxLoadedRecords: 10_000_000,
  maxReturnedRecords: 10_000_000,
  maxMutations: 10_000_000,
  maxListSize: 10_000_000,
  maxPayloadBytes: 1 << 30,
  maxVariableLengthHops: 100,
  maxWarmAdjacencyEntries: 10_000_000,
}

/** Every file under root whose name ends with `suffix`, depth first, sorted by name. */
export function listFiles(root: string, suffix: string): string[] {
  const out: string[] = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry)
      if (statSync(path).isDirectory()) walk(path)
      else if (entry.endsWith(suffix)) out.push(path)
    }
  }
  walk(root)
  return out
}
