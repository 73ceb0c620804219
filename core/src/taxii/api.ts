/**
 * TAXII 2.1 over the engine: collections (published workspaces), their objects, versions and manifest,
 * and object additions through the STIX import. Every door (the HTTP routes, an embedding application)
 * goes through here, so the publication settings, page bounds and version rules are the same everywhere.
 */

import { EngineError, isEngineError } from '../errors.js'
import type { Engine } from '../runtime/engine.js'
import type { ImportResult } from '../stix/outcomes.js'
import { versionOf } from '../stix/timestamps.js'
import { type Page, selectPage } from './pages.js'
import { FILTERS, type PageLimits, parseObjectQuery, type RawQuery } from './query.js'
import type { WorkspaceSelection } from './selection.js'
import { type StatusResource, StatusStore } from './status.js'

export const STIX_MEDIA_TYPE = 'application/stix+json;version=2.1'

export interface TaxiiPolicy {
  published: WorkspaceSelection
  writable: WorkspaceSelection
  limits: PageLimits
  /** Called with every import result of an addition (e.g. for the import metrics). */
  onImport?: (result: ImportResult) => void
}

export interface CollectionResource {
  id: string
  title: string
  description: string
  can_read: boolean
  can_write: boolean
  media_types: string[]
}

const notFound = (what: string) => new EngineError('TAXII_NOT_FOUND', `${what} not found`)
const forbidden = (message: string) => new EngineError('TAXII_FORBIDDEN', message)
const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)

export class TaxiiApi {
  private readonly statuses = new StatusStore()
  private readonly running = new Set<Promise<void>>()

  constructor(
    private readonly engine: Engine,
    private readonly policy: TaxiiPolicy,
  ) {}

  /** Published or writable workspaces that are collections: holding STIX objects, or named explicitly. */
  private workspaces(): string[] {
    const { published, writable } = this.policy
    const held = this.engine.stixVersions.workspaceIds()
    const named = [...published.ids, ...writable.ids]
    const all = new Set([...held.filter((w) => published.has(w) || writable.has(w)), ...named])
    return [...all].sort()
  }

  private resource(workspaceId: string, id: string): CollectionResource {
    return {
      id,
      title: workspaceId,
      description: `STIX objects of workspace ${workspaceId}`,
      can_read: this.policy.published.has(workspaceId),
      can_write: this.policy.writable.has(workspaceId),
      media_types: [STIX_MEDIA_TYPE],
    }
  }

  async collections(): Promise<CollectionResource[]> {
    const ids = await this.engine.taxiiCollections.publish(this.workspaces())
    return [...ids].map(([w, id]) => this.resource(w, id))
  }

  /** The collection named by `collectionId`, or 404 when unknown or no longer published. */
  collection(collectionId: string): CollectionResource {
    const workspace = this.engine.taxiiCollections.workspaceOf(collectionId)
    if (workspace === undefined || !this.workspaces().includes(workspace)) throw notFound('collection')
    return this.resource(workspace, collectionId)
  }

  private readable(collectionId: string): string {
    const c = this.collection(collectionId)
    if (!c.can_read) throw forbidden('this collection is not readable')
    return c.title
  }

  private page(workspace: string, query: ReturnType<typeof parseObjectQuery>): Promise<Page> {
    return this.engine.readGraph(workspace, (store) =>
      selectPage(this.engine.stixVersions.workspace(workspace), store, query),
    )
  }

  objects(collectionId: string, raw: RawQuery): Promise<Page> {
    const workspace = this.readable(collectionId)
    return this.page(workspace, parseObjectQuery(raw, this.policy.limits, FILTERS.objects))
  }

  manifest(collectionId: string, raw: RawQuery): Promise<Page> {
    const workspace = this.readable(collectionId)
    return this.page(workspace, parseObjectQuery(raw, this.policy.limits, FILTERS.manifest))
  }

  /** One object's versions matching the filters; 404 when the collection does not hold the object. */
  async object(collectionId: string, objectId: string, raw: RawQuery): Promise<Page> {
    const workspace = this.readable(collectionId)
    const query = { ...parseObjectQuery(raw, this.policy.limits, FILTERS.object), ids: new Set([objectId]) }
    return this.held(workspace, objectId, query)
  }

  /** Every version of one object (the filters of section 5.7); 404 when the collection does not hold it. */
  async versions(collectionId: string, objectId: string, raw: RawQuery): Promise<Page> {
    const workspace = this.readable(collectionId)
    const parsed = parseObjectQuery(raw, this.policy.limits, FILTERS.versions)
    const query = { ...parsed, ids: new Set([objectId]), versions: { ...parsed.versions, all: true } }
    return this.held(workspace, objectId, query)
  }

  private async held(
    workspace: string,
    objectId: string,
    query: ReturnType<typeof parseObjectQuery>,
  ): Promise<Page> {
    const everything = { ...query, after: -1, limit: 1, types: null, specVersions: null }
    const [page, any] = await Promise.all([
      this.page(workspace, query),
      this.page(workspace, { ...everything, versions: { ...query.versions, all: true } }),
    ])
    if (any.items.length === 0) throw notFound(`object ${objectId}`)
    return page
  }

  /**
   * Adds an envelope's objects to a writable collection through the STIX import (one atomic transaction),
   * answering at once with a pending status that completes when the import is done.
   */
  add(collectionId: string, envelope: unknown): StatusResource {
    const c = this.collection(collectionId)
    if (!c.can_write) throw forbidden('this collection is not writable')
    if (!isObject(envelope) || !Array.isArray(envelope.objects))
      throw new EngineError('TAXII_INVALID_ENVELOPE', 'the body must be an envelope with objects')
    const objects = envelope.objects.map((o, i) => {
      if (!isObject(o) || typeof o.id !== 'string' || typeof o.type !== 'string')
        throw new EngineError(
          'TAXII_INVALID_ENVELOPE',
          `objects[${i}] is not a STIX object with a type and an id`,
        )
      return { id: o.id, version: versionOf(o) }
    })
    const status = this.statuses.open(objects, Date.now())
    const answer = structuredClone(status)
    if (objects.length === 0) {
      this.statuses.fail(status, 'no objects')
      return structuredClone(status)
    }
    const bundle = { type: 'bundle', id: `bundle--${status.id}`, objects: envelope.objects }
    const run = (async () => {
      try {
        const report = await this.engine.stix.import({ bundle, workspaceId: c.title })
        this.policy.onImport?.(report.result)
        this.statuses.complete(status, report.result)
      } catch (error) {
        this.statuses.fail(
          status,
          isEngineError(error) ? `${error.code}: ${error.message}` : 'internal error',
        )
      }
    })()
    this.running.add(run)
    void run.finally(() => this.running.delete(run))
    return answer
  }

  status(statusId: string): StatusResource {
    const status = this.statuses.get(statusId)
    if (status === undefined) throw notFound('status')
    return structuredClone(status)
  }

  /** Resolves once every addition under way has completed (for shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.running])
  }
}
