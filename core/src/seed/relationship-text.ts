import type { GraphReader, PropertyValue } from '../graph/types.js'
import { MEMORY_RELATION } from '../memory/layout.js'
import type { IndexedDocument } from './bm25-index.js'
import { analyzeWithContent } from './tokenizer.js'

const NOTHING = { stems: [] as string[], content: [] as string[] }

function str(reader: GraphReader, props: ReadonlyMap<number, PropertyValue>, key: string): string | null {
  const id = reader.names.lookup(key)
  const v = id < 0 ? undefined : props.get(id)
  return typeof v === 'string' ? v : null
}

/** Every string inside a JSON value, depth first (property values, provenance locators and ids). */
function jsonStrings(json: string | null, out: string[]): void {
  if (json === null) return
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v)
    else if (Array.isArray(v)) for (const x of v) walk(x)
    else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) walk(x)
  }
  try {
    walk(JSON.parse(json))
  } catch {
    // Not JSON: nothing to read.
  }
}

/**
 * What the relationship index stores of a memory relationship: its kind as the name field ("subtechnique-of"
 * reads "subtechnique of"), its text properties and its evidence (provenance source ids and locators) as the
 * body, its identity key as an exact id. Null for any other relationship.
 */
export function relationshipDocument(reader: GraphReader, rel: number): IndexedDocument | null {
  const type = reader.names.lookup(MEMORY_RELATION)
  if (type < 0 || reader.relType(rel) !== type) return null
  const props = reader.relProps(rel)
  if (props === undefined) return null
  const kind = str(reader, props, 'kind')
  const body: string[] = []
  jsonStrings(str(reader, props, 'properties_json'), body)
  jsonStrings(str(reader, props, 'provenance_json'), body)
  const name = kind === null ? NOTHING : analyzeWithContent(kind.replace(/[-_]/g, ' '))
  const text = body.length === 0 ? NOTHING : analyzeWithContent(body.join('\n'))
  const identity = str(reader, props, 'identity_key')
  return {
    fields: [name.stems, [], text.stems],
    sequence: [...name.content, ...text.content],
    ids: identity === null ? [] : [identity],
  }
}
