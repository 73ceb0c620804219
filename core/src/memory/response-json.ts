import type { MemoryResponse } from './types.js'

/** Serialised members of a recall result, in the order of the arrays they were made from. */
interface Prepared {
  items: readonly object[]
  itemsJson: readonly string[]
  relationships: readonly object[]
  relationshipsJson: readonly string[]
}

const prepared = new WeakMap<object, Prepared>()
const ITEMS = '\u0000items'
const RELATIONSHIPS = '\u0000relationships'

/**
 * Remembers the JSON text of a recall's items and relationships, already made once to count them against the
 * payload budget, so `memoryResponseJson` reuses it instead of serialising the working set again.
 */
export function prepareRecallJson(response: MemoryResponse, parts: Prepared): MemoryResponse {
  prepared.set(response, parts)
  return response
}

/**
 * Exactly `JSON.stringify(response)`: what the HTTP route sends and the embedded door returns as an object.
 * For a prepared recall only the small envelope is serialised; the members' text is spliced in.
 */
export function memoryResponseJson(response: MemoryResponse): string {
  const parts = prepared.get(response)
  const result = response.result.result
  // Reused only while the arrays are the ones the text was made from.
  if (parts === undefined || result.items !== parts.items || result.relationships !== parts.relationships)
    return JSON.stringify(response)
  const shell = JSON.stringify({
    ...response,
    result: { ...response.result, result: { ...result, items: ITEMS, relationships: RELATIONSHIPS } },
  })
  // Both marks are found in the shell before any caller text is spliced in: the envelope holds none (ids,
  // enums, numbers, a base64url token), so each mark occurs there exactly once.
  const items = JSON.stringify(ITEMS)
  const relationships = JSON.stringify(RELATIONSHIPS)
  const i = shell.indexOf(items)
  const r = shell.indexOf(relationships)
  const [first, second] = i < r ? [i, r] : [r, i]
  const text = (at: number) =>
    at === i ? `[${parts.itemsJson.join(',')}]` : `[${parts.relationshipsJson.join(',')}]`
  const length = (at: number) => (at === i ? items.length : relationships.length)
  return (
    shell.slice(0, first) +
    text(first) +
    shell.slice(first + length(first), second) +
    text(second) +
    shell.slice(second + length(second))
  )
}
