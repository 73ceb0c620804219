/** The multipart form of a file import (FACTS §5): one `file` part (.json/.stix) and optional text fields. */
import { badRequest } from '@service/plugin-errors'
import type { FastifyRequest } from 'fastify'

export interface FileImport {
  bundle: unknown
  workspace_id?: string
  session_id?: string
  budget_ref?: string
}

const FIELDS = new Set(['workspace_id', 'session_id', 'budget_ref'])
const EXTENSION = /\.(json|stix)$/i

export async function readFileImport(request: FastifyRequest): Promise<FileImport> {
  if (!request.isMultipart()) throw badRequest('INVALID_MULTIPART', 'the request must be multipart/form-data')
  const form: Record<string, string> = {}
  let file: Buffer | null = null
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || file !== null) {
          part.file.resume() // other file parts are ignored
          continue
        }
        if (part.filename !== '' && !EXTENSION.test(part.filename)) {
          part.file.resume()
          throw badRequest('UNSUPPORTED_FILE_EXTENSION', `file ${part.filename} must end in .json or .stix`)
        }
        file = await part.toBuffer()
      } else if (FIELDS.has(part.fieldname) && typeof part.value === 'string' && part.value.trim() !== '') {
        form[part.fieldname] = part.value.trim()
      }
    }
  } catch (error) {
    const e = error as { code?: string; statusCode?: number }
    if (
      e.statusCode === 413 ||
      e.code === 'FST_REQ_FILE_TOO_LARGE' ||
      e.code === 'UNSUPPORTED_FILE_EXTENSION'
    )
      throw error
    throw badRequest('INVALID_MULTIPART', `malformed multipart body: ${(error as Error).message}`)
  }
  if (file === null) throw badRequest('MISSING_FILE_FIELD', 'the form has no file part named "file"')
  let bundle: unknown
  try {
    bundle = JSON.parse(file.toString('utf8'))
  } catch {
    throw badRequest('INVALID_STIX_FILE', 'the file is not valid JSON')
  }
  return { bundle, ...form }
}
