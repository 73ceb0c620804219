/**
 * Startup recovery of reference writes (spec, projection outbox and write authority): a prepared entry with
 * no committed payload is an abandoned intent and is removed; a committed one whose receipt cannot be read
 * blocks readiness; a pre-existing unresolved legacy dual-write record suspends writes with trigger
 * migration_failure (once per record: an operator who reconciled it is not suspended again by it).
 */
import { readFileSync } from 'node:fs'
import { hashOrderingKey } from './identity.js'
import type { RefLedgerEntry, RefState, StoredResponse } from './state.js'

const readable = (response: StoredResponse | null): boolean =>
  response !== null && typeof response === 'object' && typeof response.outcome?.status === 'string'

export function recoveryPlan(
  state: RefState,
  legacyStateFile: string | null,
): { entries: RefLedgerEntry[]; blocked: string | null } {
  const abandoned: number[] = []
  let blocked: string | null = null
  for (const entry of state.entries.values()) {
    const receipt = state.receipts.get(entry.key)
    const committed = receipt !== undefined && receipt.sequence === entry.sequence
    if (entry.status === 'prepared' && !committed) abandoned.push(entry.sequence)
    else if (entry.status === 'prepared' || (entry.status === 'pending' && !readable(entry.response)))
      blocked = `outbox entry ${entry.sequence} is committed but its receipt cannot be read`
  }
  const entries: RefLedgerEntry[] = []
  if (abandoned.length > 0) entries.push({ k: 'drop', sequences: abandoned })
  const legacy = legacyDigest(legacyStateFile)
  if (legacy !== null && !state.legacy.has(legacy)) {
    entries.push({ k: 'legacy', digest: legacy })
    entries.push({
      k: 'authority',
      authority: 'writes_suspended',
      trigger: 'migration_failure',
      resolve_quarantine: false,
    })
  }
  return { entries, blocked }
}

/** Digest of an unresolved legacy dual-write state file, or null when there is none (or all resolved). */
function legacyDigest(file: string | null): string | null {
  if (file === null) return null
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return null
  }
  let unresolved = true
  try {
    const parsed = JSON.parse(text) as {
      projections?: { status?: string }[]
      entries?: { status?: string }[]
    }
    const items = [...(parsed.projections ?? []), ...(parsed.entries ?? [])]
    unresolved = items.some((item) => item.status === 'prepared' || item.status === 'pending')
  } catch {
    unresolved = true // an unreadable legacy record cannot be shown resolved
  }
  return unresolved ? hashOrderingKey(text) : null
}
