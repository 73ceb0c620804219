/**
 * File-content jobs (FACTS §8 files): enqueue one immutable object-storage version for extraction under a
 * deterministic job id, or delete the projections of files by id. Jobs are durable ledger state.
 */
import { messageOf, RefErrors } from './codes.js'
import { fileJobId } from './identity.js'
import { descriptorProblem, type FileDescriptor } from './request.js'
import type { RefLedgerEntry, RefState } from './state.js'

export interface FileHost {
  state: RefState
  persistent: boolean
  commit(entries: RefLedgerEntry[]): Promise<void>
}

export async function runFileCommand(
  command: unknown,
  host: FileHost,
): Promise<{ result: 'enqueued' | 'duplicate'; job_id: string } | { result: 'deleted' }> {
  const c = (command ?? {}) as { operation?: unknown; descriptor?: unknown; file_ids?: unknown }
  if (c.operation !== 'enqueue' && c.operation !== 'delete')
    throw RefErrors.fileCommandInvalid("operation must be 'enqueue' or 'delete'")
  if (c.operation === 'enqueue') {
    const problem = descriptorProblem(c.descriptor)
    if (problem !== null) throw RefErrors.fileEnqueueFailed(problem)
  } else if (
    !Array.isArray(c.file_ids) ||
    c.file_ids.length === 0 ||
    c.file_ids.some((id) => typeof id !== 'string' || id.trim() === '')
  )
    throw RefErrors.fileDeleteInvalid('file_ids must be a non-empty list of non-blank ids')
  if (!host.persistent) throw RefErrors.fileStorageRequired()
  if (c.operation === 'enqueue') {
    const d = c.descriptor as FileDescriptor
    const jobId = fileJobId(d.file_id, d.content_hash, d.version)
    if (host.state.files.has(jobId)) return { result: 'duplicate', job_id: jobId }
    try {
      await host.commit([
        {
          k: 'file_enqueue',
          job: {
            job_id: jobId,
            file_id: d.file_id,
            content_hash: d.content_hash,
            version: d.version,
            descriptor: d,
          },
        },
      ])
    } catch (error) {
      throw RefErrors.stateFailed(`the file job could not be saved: ${messageOf(error)}`)
    }
    return { result: 'enqueued', job_id: jobId }
  }
  try {
    await host.commit([{ k: 'file_delete', file_ids: c.file_ids as string[] }])
  } catch (error) {
    throw RefErrors.fileDeleteFailed(`the file projections could not be deleted: ${messageOf(error)}`)
  }
  return { result: 'deleted' }
}
