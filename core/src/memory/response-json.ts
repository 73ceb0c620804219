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
 * payload budget, so `memoryResponseBody` reuses it instead of serialising the working set again.
 */
export function prepareRecallJson(response: MemoryResponse, parts: Prepared): MemoryResponse {
  prepared.set(response, parts)
  return response
}

/**
 * Exactly `JSON.stringify(response)` as UTF-8: what the HTTP route sends (the embedded door returns the object).
 * For a prepared recall only the small envelope is serialised; the members' text is written straight into
 * one buffer, with no joined or flattened copy of the working set on the JS heap.
 */
export function memoryResponseBody(response: MemoryResponse): Buffer {
  const parts = prepared.get(response)
  const result = response.result.result
  // Reused only while the arrays are the ones the text was made from.
  if (parts === undefined || result.items !== parts.items || result.relationships !== parts.relationships)
    return Buffer.from(JSON.stringify(response))
  const shell = JSON.stringify({
    ...response,
    result: { ...response.result, result: { ...result, items: ITEMS, relationships: RELATIONSHIPS } },
  })
  // Both marks are found in the shell before any caller text is written: the envelope holds none (ids, enums,
  // numbers, a base64url token), so each mark occurs there exactly once.
  const marks = [
    { at: shell.indexOf(JSON.stringify(ITEMS)), mark: JSON.stringify(ITEMS), members: parts.itemsJson },
    {
      at: shell.indexOf(JSON.stringify(RELATIONSHIPS)),
      mark: JSON.stringify(RELATIONSHIPS),
      members: parts.relationshipsJson,
    },
  ].sort((a, b) => a.at - b.at)
  const pieces: string[] = []
  let from = 0
  for (const { at, mark, members } of marks) {
    pieces.push(shell.slice(from, at), '[')
    members.forEach((m, i) => {
      if (i > 0) pieces.push(',')
      pieces.push(m)
    })
    pieces.push(']')
    from = at + mark.length
  }
  pieces.push(shell.slice(from))
  let size = 0
  for (const p of pieces) size += Buffer.byteLength(p)
  const body = Buffer.allocUnsafe(size)
  let offset = 0
  for (const p of pieces) offset += body.write(p, offset)
  return body
}
