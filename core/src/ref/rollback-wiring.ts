/** Connects the rollback (rollback.ts) to the write path: its ledgers, the kernel, search and replay. */
import type { GraphAccess } from '../kernel/types.js'
import type { EvidenceState } from './evidence-state.js'
import type { RefJournal } from './journal.js'
import { REF_WORKSPACE_ID } from './records.js'
import type { ReferenceProbe } from './reference-probe.js'
import { RefRollback, type RollbackPort } from './rollback.js'
import type { RefState } from './state.js'

/** Full-text search on the canonical workspace, for the parity report (wired by the runtime). */
export interface RefSearchPort {
  fullText(objective: string): Promise<{ node_id: string; score: number }[]>
  fullTextDocuments(): Promise<number>
}

export const NO_SEARCH: RefSearchPort = { fullText: async () => [], fullTextDocuments: async () => 0 }

/** What the write path lends the rollback besides its ledgers. */
export type WritePathPort = Pick<
  RollbackPort,
  'commitEvidence' | 'relationshipIndex' | 'resetRelationshipIndex' | 'replayWrite' | 'now'
>

export function wireRollback(
  engine: GraphAccess,
  ledgers: { state: RefState; journal: RefJournal; evidence: EvidenceState },
  probe: ReferenceProbe | null,
  search: RefSearchPort,
  writes: WritePathPort,
): RefRollback {
  return new RefRollback({
    ...ledgers,
    ...writes,
    probe,
    persistent: engine.storageMode === 'persistent',
    fullText: (objective) => search.fullText(objective),
    fullTextDocuments: () => search.fullTextDocuments(),
    readGraph: (fn) => engine.readGraph(REF_WORKSPACE_ID, fn),
    transact: async (fn) =>
      (await engine.transact(REF_WORKSPACE_ID, (tx, _store, ledger) => fn(tx, ledger))).value,
  })
}
