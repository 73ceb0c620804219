import { EngineError } from '../errors.js'
import { messageOf, RefErrors } from './codes.js'
import type { EvidenceEntry } from './evidence-state.js'
import { ROLLBACK_TRIGGERS, WRITE_AUTHORITIES, type WriteAuthority } from './request.js'
import type { RefLedgerEntry, RefState } from './state.js'

export interface AuthorityRequest {
  target: WriteAuthority
  reference_healthy: boolean
  replay_complete: boolean
  parity_verified: boolean
}

/** What the authority transitions need: the outbox state, a durable ledger commit, the service's evidence. */
export interface AuthorityPort {
  state: RefState
  /** Commits the authority entries and, in the same WAL record, the evidence entries recorded with them. */
  commit(entries: RefLedgerEntry[], evidence?: EvidenceEntry[]): Promise<void>
  /** The service's own evidence against an assignment (rollback.ts), and what to record when allowed. */
  evidence?(request: AuthorityRequest): Promise<{ refused: string[]; record: EvidenceEntry[] }>
}

export async function suspendWrites(
  port: AuthorityPort,
  trigger: string,
): Promise<{ authority: 'writes_suspended' }> {
  if (!(ROLLBACK_TRIGGERS as readonly string[]).includes(trigger))
    throw new EngineError('INVALID_REQUEST', `trigger must be one of ${ROLLBACK_TRIGGERS.join(', ')}`)
  await saveAuthority(port, {
    k: 'authority',
    authority: 'writes_suspended',
    trigger,
    resolve_quarantine: false,
  })
  return { authority: 'writes_suspended' }
}

/**
 * Gated authority transitions (FACTS §8): writes_suspended always; reference_primary from writes_suspended
 * with all three evidence flags and nothing prepared or pending; back to service_primary with replay and
 * parity evidence and nothing prepared or pending. Both non-suspend targets resolve quarantined entries.
 */
export async function assignAuthority(
  port: AuthorityPort,
  request: AuthorityRequest,
): Promise<{ authority: WriteAuthority }> {
  const target = request.target
  if (!(WRITE_AUTHORITIES as readonly string[]).includes(target))
    throw new EngineError('INVALID_REQUEST', `target must be one of ${WRITE_AUTHORITIES.join(', ')}`)
  let recorded: EvidenceEntry[] = []
  if (target !== 'writes_suspended') {
    const refused: string[] = []
    if (target === 'reference_primary' && port.state.authority !== 'writes_suspended')
      refused.push(`writes are not suspended (authority is ${port.state.authority})`)
    if (target === 'reference_primary' && !request.reference_healthy)
      refused.push('reference_healthy is false')
    if (!request.replay_complete) refused.push('replay_complete is false')
    if (!request.parity_verified) refused.push('parity_verified is false')
    const unsettled = port.state.count('prepared') + port.state.count('pending')
    if (unsettled > 0) refused.push(`${unsettled} outbox entries are prepared or pending`)
    // The flags are the operator's word; the service checks them against what it can establish itself.
    const checked = (await port.evidence?.(request)) ?? { refused: [], record: [] }
    refused.push(...checked.refused)
    if (refused.length > 0) throw RefErrors.gateFailed(`authority ${target} refused: ${refused.join('; ')}`)
    recorded = checked.record
  }
  await saveAuthority(
    port,
    {
      k: 'authority',
      authority: target,
      trigger: target === 'service_primary' ? null : port.state.trigger,
      resolve_quarantine: target !== 'writes_suspended',
    },
    recorded,
  )
  return { authority: target }
}

async function saveAuthority(
  port: AuthorityPort,
  entry: RefLedgerEntry,
  evidence: EvidenceEntry[] = [],
): Promise<void> {
  try {
    await port.commit([entry], evidence)
  } catch (error) {
    throw RefErrors.authorityFailed(`the authority could not be saved: ${messageOf(error)}`)
  }
}
