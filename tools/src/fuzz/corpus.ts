import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Seed corpora. The repository's own live in `tools/corpus/`; the shared test data (TCK features,
 * ATT&CK and OASIS examples) is read from SHARED_DIR (default `../shared` beside the repository) and
 * never copied into the repository.
 */
const toolsRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const repoRoot = resolve(toolsRoot, '..')

export function sharedDir(): string {
  const shared = process.env.SHARED_DIR ?? '../shared'
  return isAbsolute(shared) ? shared : resolve(repoRoot, shared)
}

export const ownCorpus = (file: string): string => readFileSync(join(toolsRoot, 'corpus', file), 'utf8')

/** Files under `dir` (recursively) whose name ends with `suffix`; empty when `dir` is absent. */
export function filesUnder(dir: string, suffix: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) return filesUnder(path, suffix)
    return path.endsWith(suffix) ? [path] : []
  })
}

/** The repository's own Cypher seeds: one query a line, `//` lines are comments. */
export function ownCypherSeeds(): string[] {
  return ownCorpus('cypher.txt')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('//'))
}

/** Every query of the TCK feature files (the doc strings of their steps). */
export function tckQueries(): string[] {
  const queries: string[] = []
  for (const file of filesUnder(join(sharedDir(), 'tck', 'features'), '.feature')) {
    const text = readFileSync(file, 'utf8')
    for (const match of text.matchAll(/"""\n([\s\S]*?)\n\s*"""/g)) {
      const body = (match[1] ?? '')
        .split('\n')
        .map((line) => line.trim())
        .join('\n')
      if (/\b(MATCH|RETURN|CREATE|MERGE|UNWIND|WITH)\b/i.test(body)) queries.push(body)
    }
  }
  return queries
}
