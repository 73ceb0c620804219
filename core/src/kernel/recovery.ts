import type { GraphCatalog } from '../graph/catalog.js'
import { type CommitOp, commitOpsJson } from '../graph/commit.js'
import { memoize } from '../memo.js'
import type { DurableStore, RecoveryFigures } from '../storage/durable-store.js'
import { PersistentStorage, type ReplaySink } from '../storage/persistent-storage.js'
import { PostgresStorage } from '../storage/postgres/postgres-storage.js'
import { JsonText, type WalRecord } from '../storage/wal-record.js'
import { SERVICE_VERSION } from '../version.js'
import type { GraphImageLine } from './graph-image.js'
import { GraphImageLoader } from './graph-image-loader.js'
import type { Histories, HistoryImageLine } from './histories.js'
import type { LedgerEntry, LedgerRegistry } from './ledger.js'
import type { JournaledState, KernelOptions, StorageOptions } from './types.js'
import { type GraphWalBody, runsJson, walOps, walRuns } from './wal-graph-body.js'

export type { GraphWalBody } from './wal-graph-body.js'

/**
 * A graph commit's body as the WAL writes it: `JSON.stringify` of a GraphWalBody, written directly; a bulk
 * commit's long runs of creates as columns (wal-graph-body.ts).
 */
export function graphWalBody(workspace: string, ops: readonly CommitOp[], ledgers: LedgerEntry[]): JsonText {
  const tail = ledgers.length > 0 ? `,"ledgers":${JSON.stringify(ledgers)}}` : '}'
  const runs = walRuns(ops)
  const graph = runs === null ? `"ops":${commitOpsJson(ops)}` : `"runs":${runsJson(runs)}`
  return new JsonText(`${bodyHead(workspace)}${graph}${tail}`)
}

/** `{"workspace":"<id>",` of a body: written once per workspace, not per commit. */
const bodyHead = memoize((workspace) => `{"workspace":${JSON.stringify(workspace)},`)

/** Everything recovery fills: the graph, its history, the ledgers and each feature's journaled state. */
export interface RecoveryTargets {
  catalog: GraphCatalog
  histories: Histories
  ledgers: LedgerRegistry
  states: readonly JournaledState[]
}

const GRAPH_LINES = new Set(['graph_batch', 'graph_nodes', 'graph_rels', 'graph_counters'])

/**
 * Opens the storage directory and rebuilds state from it: the checkpoint image first, then the WAL above it.
 * Every ledger and journaled state must be registered before this runs, or its records would be skipped.
 */
export async function recover(
  storage: StorageOptions,
  options: KernelOptions,
  targets: RecoveryTargets,
): Promise<DurableStore> {
  const replay = replaySink(targets)
  // What both stores take: durability controls, checkpoint cadence, clock and warnings.
  const common = {
    requireFsync: storage.requireFsync ?? true,
    strictRecovery: storage.strictRecovery ?? true,
    ...(storage.checkpointEveryBytes === undefined
      ? {}
      : { checkpointEveryBytes: storage.checkpointEveryBytes }),
    ...(storage.checkpointEveryMs === undefined ? {} : { checkpointEveryMs: storage.checkpointEveryMs }),
    ...(options.now ? { now: options.now } : {}),
    ...(options.onWarning ? { warn: options.onWarning } : {}),
  }
  let opened: DurableStore
  if (storage.postgres !== undefined) {
    const pg = storage.postgres
    opened = await PostgresStorage.open(
      {
        ...common,
        url: pg.url,
        role: pg.role,
        promote: pg.promote,
        primaryUrl: pg.primaryUrl ?? null,
        ...(pg.leaseMs === undefined ? {} : { leaseMs: pg.leaseMs }),
        ...(pg.pollMs === undefined ? {} : { pollMs: pg.pollMs }),
      },
      replay.sink,
    )
  } else {
    if (storage.dir === undefined) throw new Error('persistent storage needs a directory or a PostgreSQL URL')
    opened = await PersistentStorage.open(
      {
        ...common,
        dir: storage.dir,
        version: SERVICE_VERSION,
        ...(storage.segmentBytes === undefined ? {} : { segmentBytes: storage.segmentBytes }),
        ...(storage.walArchiveDir === undefined ? {} : { walArchiveDir: storage.walArchiveDir }),
        ...(storage.payloadCacheBytes === undefined ? {} : { payloadCacheBytes: storage.payloadCacheBytes }),
      },
      replay.sink,
    )
  }
  replay.finish()
  return opened
}

/**
 * After a log failure: reads what is durable (asynchronously where the store must), then empties every
 * target and rebuilds it (the checkpoint, then the log up to its durable sequence), leaving no commit that
 * was not acknowledged. Returns that sequence. The rebuild itself is synchronous, so no reader sees a
 * half-built state.
 */
export async function reloadDurable(storage: DurableStore, targets: RecoveryTargets): Promise<number> {
  const reload = await storage.prepareReload()
  targets.catalog.reset()
  targets.histories.reset()
  targets.ledgers.reset()
  for (const state of targets.states) state.reset()
  const replay = replaySink(targets)
  const seq = reload(replay.sink)
  replay.finish()
  return seq
}

/** The replay sink over the targets: checkpoint lines, then WAL records; `finish` once all are in. */
function replaySink(targets: RecoveryTargets): { sink: ReplaySink; finish: () => void } {
  const { catalog, histories, ledgers } = targets
  const lineOwners = ownersBy(targets.states, (s) => s.lineKinds)
  const loader = new GraphImageLoader(catalog, (workspace, kind) => histories.createdAt(workspace, kind))
  let imageDone = false
  const finishImage = () => {
    if (!imageDone) {
      loader.finish()
      histories.finishLoad()
    }
    imageDone = true
  }
  const applyRecord = recordApplier(targets)
  return {
    sink: {
      usePayloads: (file) => {
        loader.payloads = file
      },
      loadCheckpointLine: (text) => {
        const line = JSON.parse(text) as { kind: string }
        if (line.kind === 'ledger') ledgers.apply([line as unknown as LedgerEntry])
        else if (GRAPH_LINES.has(line.kind)) loader.add(line as GraphImageLine)
        else if (line.kind === 'history') histories.loadLine(line as HistoryImageLine)
        else lineOwners.get(line.kind)?.loadLine(line)
      },
      applyRecord: (record: WalRecord) => {
        finishImage()
        applyRecord(record)
      },
    },
    finish: finishImage,
  }
}

/**
 * Applies one committed record to the targets: the path recovery replays the log through, and the one a
 * follower applies the primary's records through as it tails the log.
 */
export function recordApplier(targets: RecoveryTargets): (record: WalRecord) => void {
  const { catalog, histories, ledgers } = targets
  const recordOwners = ownersBy(targets.states, (s) => s.recordKinds)
  return (record) => {
    if (record.kind === 'graph') {
      const body = record.body as GraphWalBody
      const ops = walOps(body)
      if (ops.length > 0) {
        const store = catalog.workspace(body.workspace)
        histories.capture(body.workspace, { ops }, record.seq)
        store.applyCommit({ ops }, store.sequence + 1)
      }
      if (body.ledgers !== undefined) ledgers.apply(body.ledgers, ops)
      return
    }
    recordOwners.get(record.kind)?.applyRecord(record.kind, record.body)
  }
}

function ownersBy(
  states: readonly JournaledState[],
  kinds: (state: JournaledState) => readonly string[],
): Map<string, JournaledState> {
  const owners = new Map<string, JournaledState>()
  for (const state of states) for (const kind of kinds(state)) owners.set(kind, state)
  return owners
}

/** What the last recovery did, as /health and the engine's recovery facts report it (zeros when ephemeral). */
export function recoveryFacts(r: RecoveryFigures | undefined) {
  return {
    replayed_transactions: r?.replayedTransactions ?? 0,
    checkpoint_records: r?.checkpointRecords ?? 0,
    recovery_path: r?.recoveryPath ?? null,
    elapsed_ms: r?.elapsedMs ?? 0,
    warnings: r?.warnings ?? [],
  }
}
