import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'

export interface PageFile {
  body: Buffer
  contentType: string
  etag: string
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
}

/**
 * The built page, read once at start-up: a handful of small files, so serving them from memory is simpler and
 * faster than a static-file server, and no request path ever reaches the file system (no traversal to guard).
 * Files of an unknown type are left out rather than served with a guessed type.
 */
export function loadPageFiles(dir: string): Map<string, PageFile> {
  const files = new Map<string, PageFile>()
  if (!existsSync(dir)) return files
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name)
      if (statSync(path).isDirectory()) {
        walk(path)
        continue
      }
      const contentType = CONTENT_TYPES[extname(name)]
      if (contentType === undefined) continue
      const body = readFileSync(path)
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
      files.set(relative(dir, path).split(sep).join('/'), { body, contentType, etag })
    }
  }
  walk(dir)
  return files
}
