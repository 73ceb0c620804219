import { randomUUID } from 'node:crypto'
import { isStopReason, startDeadline } from './deadline.js'
import { type Domain, NODE_VALIDATE } from './domains.js'
import { GateErrors } from './errors.js'
import {
  encodeRequest,
  type ProviderMetadata,
  parseValidationResponse,
  type ValidationResponse,
} from './protocol.js'
import { SerialQueue, SkippedJob } from './serial-queue.js'
import type { Capability } from './strict-json.js'

/**
 * What an implementation offers the host: its metadata, one call that turns request bytes into reply bytes
 * (already bounded by `max_response_bytes`), and a destroy. The native binding and the in-process fake host
 * both implement it, so serialisation, limits, timeouts and response checks are the same code for both.
 */
export interface ProviderBackend {
  readonly metadata: ProviderMetadata
  /** Throws when the call fails (non-zero status, empty or oversized reply). */
  invoke(request: Buffer): Promise<Buffer>
  /** Called exactly once, after the last call has returned. */
  destroy(): void | Promise<void>
}

/** Non-sensitive identity and readiness (the admin status record). */
export interface ProviderStatusRecord {
  provider_id: string
  provider_version: string
  domain: Domain
  capabilities: Capability[]
  ready: boolean
}

export interface ValidateInput {
  payload: unknown
  /** Missing or blank: a new UUID. */
  requestId?: string | undefined
  workspaceId?: string | null | undefined
  snapshotId?: string | null | undefined
}

export interface CallBudget {
  /** The server request timeout; queue wait counts against it. */
  timeoutMs: number
  /** The request's abort signal, when there is one. */
  signal?: AbortSignal | undefined
}

/** One loaded provider instance with its calls serialised and bounded. */
export class DomainProvider {
  readonly domain: Domain
  readonly metadata: ProviderMetadata
  private readonly queue = new SerialQueue()
  private closing: Promise<void> | undefined
  private healthy: boolean

  constructor(
    private readonly backend: ProviderBackend,
    options: { ready?: boolean } = {},
  ) {
    this.metadata = backend.metadata
    this.domain = backend.metadata.domain
    this.healthy = options.ready ?? true
  }

  get ready(): boolean {
    return this.healthy && this.closing === undefined
  }

  /** Calls queued or still running (a timed-out call stays here until the provider returns). */
  get pendingCalls(): number {
    return this.queue.size
  }

  supports(capability: Capability): boolean {
    return this.metadata.capabilities.some(
      (c) => c.name === capability.name && c.version === capability.version,
    )
  }

  status(): ProviderStatusRecord {
    return {
      provider_id: this.metadata.provider_id,
      provider_version: this.metadata.provider_version,
      domain: this.domain,
      capabilities: this.metadata.capabilities.map((c) => ({ ...c })),
      ready: this.ready,
    }
  }

  /** Sends one `node.validate` request. Gate errors: DOMAIN_PROVIDER_ERROR (502), REQUEST_TIMEOUT (504). */
  async validate(input: ValidateInput, budget: CallBudget): Promise<ValidationResponse> {
    const requestId =
      input.requestId !== undefined && input.requestId.trim() !== '' ? input.requestId : randomUUID()
    const request = encodeRequest({
      schema_version: '1',
      request_id: requestId,
      domain: this.domain,
      operation: NODE_VALIDATE.name,
      workspace_id: input.workspaceId ?? null,
      snapshot_id: input.snapshotId ?? null,
      payload: input.payload,
    })
    // Refused before the provider sees it: the provider declared what it accepts.
    if (request.length > this.metadata.max_request_bytes)
      throw GateErrors.providerError(
        this.domain,
        `the request of ${request.length} bytes exceeds the provider's max_request_bytes of ${this.metadata.max_request_bytes}`,
      )
    if (this.closing !== undefined) throw GateErrors.notReady(this.domain)

    let abandoned = false
    const call = this.queue.push(
      () => this.backend.invoke(request),
      () => !abandoned,
    )
    const deadline = startDeadline(budget.timeoutMs, budget.signal)
    let reply: Buffer
    try {
      reply = await Promise.race([call, deadline.stopped])
    } catch (error) {
      abandoned = true
      // A late reply (or failure) of an abandoned call is dropped; the backend has already freed it.
      call.catch(() => undefined)
      if (isStopReason(error)) {
        if (error.kind === 'timeout') throw GateErrors.timeout(this.domain, budget.timeoutMs)
        throw error.reason instanceof Error ? error.reason : new Error('the request was aborted')
      }
      if (error instanceof SkippedJob) throw GateErrors.timeout(this.domain, budget.timeoutMs)
      throw GateErrors.providerError(this.domain, (error as Error).message, error)
    } finally {
      deadline.dispose()
    }
    // The native binding bounds the copy itself; this also holds any other backend to the declared limits.
    if (reply.length === 0)
      throw GateErrors.providerError(this.domain, 'the provider returned an empty reply')
    if (reply.length > this.metadata.max_response_bytes)
      throw GateErrors.providerError(
        this.domain,
        `the reply of ${reply.length} bytes exceeds the provider's max_response_bytes of ${this.metadata.max_response_bytes}`,
      )
    try {
      return parseValidationResponse(reply.toString('utf8'), requestId)
    } catch (error) {
      throw GateErrors.providerError(this.domain, (error as Error).message)
    }
  }

  /** Waits for running calls, then destroys the instance exactly once. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.queue.idle().then(() => this.backend.destroy())
    return this.closing
  }
}
