import type { RequestAudit } from '../sessions/request-audit.js'
import { applyConsolidation, proposalOf } from './consolidate.js'
import { envelope } from './envelope.js'
import { memoryError } from './errors.js'
import { PageKeyLedger, ReceiptLedger, VersionLedger } from './ledgers.js'
import { MutationRunner } from './mutation.js'
import { forget, relate, remember, update } from './mutations.js'
import { type RecallHost, RecallOperation } from './recall-operation.js'
import {
  type ConsolidateInput,
  type ForgetInput,
  operationOf,
  parseRequest,
  type RecallInput,
  type RelateInput,
  type RememberInput,
  type TraceInput,
  type UpdateInput,
} from './request.js'
import { TraceOperation } from './trace.js'
import {
  type MemoryContext,
  type MemoryResponse,
  type OperationName,
  PERMISSION_OF,
  type Receipt,
} from './types.js'

/** What the memory service needs from the engine it runs in. */
export interface MemoryHost extends RecallHost {
  /** True when the id names a session that is not stopped: only then is a request audited and timeshot. */
  sessionOpen(sessionId: string): boolean
  /** Runs `work` as one audited request of a session (the same piece Cypher requests go through). */
  audited: RequestAudit['run']
}

export interface ExecuteOptions {
  signal?: AbortSignal | undefined
}

/** The embedded door: `engine.memory.execute(request, context)` returns exactly what the HTTP route sends. */
export interface MemoryApi {
  execute(request: unknown, context: MemoryContext, options?: ExecuteOptions): Promise<MemoryResponse>
}

const MUTATIONS: ReadonlySet<OperationName> = new Set(['remember', 'relate', 'update', 'forget'])

/** The memory contract v1 over the engine: permission and idempotency rules, then one operation. */
export class MemoryService implements MemoryApi {
  readonly receipts = new ReceiptLedger()
  readonly versions = new VersionLedger()
  readonly pageKey = new PageKeyLedger()
  private readonly mutations: MutationRunner
  private readonly recall: RecallOperation
  private readonly trace: TraceOperation

  constructor(private readonly host: MemoryHost) {
    this.mutations = new MutationRunner(host, this.receipts, this.versions)
    this.recall = new RecallOperation(host, this.pageKey)
    this.trace = new TraceOperation(host, this.versions, this.recall)
  }

  get ledgers() {
    return [this.receipts, this.versions, this.pageKey]
  }

  async execute(
    request: unknown,
    context: MemoryContext,
    options: ExecuteOptions = {},
  ): Promise<MemoryResponse> {
    const body = request as { input?: unknown; operation?: unknown; contract_version?: unknown } | null
    const session = this.host.sessionOpen(context.session_id) ? context.session_id : undefined
    return this.host.audited(
      session,
      context.workspace_id,
      'memory',
      {
        // Never the idempotency key: it is a secret of the caller's.
        operation: typeof body?.operation === 'string' ? body.operation : null,
        contract_version: typeof body?.contract_version === 'string' ? body.contract_version : null,
        input: body?.input ?? null,
        actor_id: context.actor_id,
        agent_id: context.agent_id,
        correlation_id: context.correlation_id,
      },
      () => this.run(request, context, session, options),
      (response) => {
        const result = response.result.result as { receipt?: Receipt | null; items?: unknown[] }
        return {
          status: 'ok',
          operation: response.result.operation,
          receipt: result.receipt ?? null,
          ...(result.items === undefined ? {} : { record_count: result.items.length }),
        }
      },
    )
  }

  private async run(
    request: unknown,
    context: MemoryContext,
    session: string | undefined,
    options: ExecuteOptions,
  ): Promise<MemoryResponse> {
    const operation = operationOf(request)
    const granted = new Set(context.permissions)
    if (!granted.has(PERMISSION_OF[operation]))
      throw memoryError('PERMISSION_DENIED', `${operation} needs the ${PERMISSION_OF[operation]} permission`)
    const parsed = parseRequest(request)
    const isMutation =
      MUTATIONS.has(operation) ||
      (operation === 'consolidate' && (parsed.input as ConsolidateInput).mode.mode === 'apply_approved')
    if (isMutation && parsed.idempotencyKey === null)
      throw memoryError('IDEMPOTENCY_KEY_REQUIRED', `${operation} is a mutation and needs an idempotency_key`)
    if (options.signal?.aborted) throw memoryError('CANCELLED', 'the request was cancelled')
    switch (parsed.operation) {
      case 'remember':
        return this.mutations.run(parsed, context, session, (m) => remember(m, parsed.input as RememberInput))
      case 'relate':
        return this.mutations.run(parsed, context, session, (m) => relate(m, parsed.input as RelateInput))
      case 'update':
        return this.mutations.run(parsed, context, session, (m) => update(m, parsed.input as UpdateInput))
      case 'forget':
        return this.mutations.run(parsed, context, session, (m) => forget(m, parsed.input as ForgetInput))
      case 'consolidate': {
        const input = parsed.input as ConsolidateInput
        if (input.mode.mode === 'propose')
          return this.host.readGraph(context.workspace_id, (store) =>
            envelope('consolidate', proposalOf(store, context.workspace_id, input)),
          )
        return this.mutations.run(parsed, context, session, (m) => applyConsolidation(m, input))
      }
      case 'recall':
        return this.recall.run(parsed.input as RecallInput, context, options)
      case 'trace':
        return this.trace.run(parsed.input as TraceInput, context)
    }
  }
}
