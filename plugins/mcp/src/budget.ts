import { Type } from 'typebox'

/** A result sized for a model's context: 32 KiB unless the caller asks for more, never above 16 MiB. */
export const DEFAULT_PAYLOAD_BYTES = 32 * 1024
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024

export const PayloadBudget = Type.Optional(
  Type.Integer({
    minimum: 1024,
    maximum: MAX_PAYLOAD_BYTES,
    description: `Most bytes of result (JSON) to return; default ${DEFAULT_PAYLOAD_BYTES}.`,
  }),
)

export const Offset = Type.Optional(
  Type.Integer({ minimum: 0, description: 'Where the page starts (from a previous result’s page.next).' }),
)

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

/**
 * The longest run of `items` from `offset` whose JSON fits `budget` bytes beside `overhead` bytes of the rest
 * of the result. At least one item is returned when there is one, so a page always moves forward; a single item
 * larger than the budget is therefore returned alone, and said so by the caller's page.
 */
export function fitItems<T>(items: readonly T[], offset: number, budget: number, overhead: number) {
  let used = overhead
  let end = offset
  while (end < items.length) {
    const size = bytesOf(items[end]) + 1
    if (end > offset && used + size > budget) break
    used += size
    end++
  }
  return { page: items.slice(offset, end), end, more: end < items.length, bytes: used }
}

export const pageOf = (more: boolean, what: string, next: Record<string, unknown>) => ({
  complete: !more,
  truncated: more ? [what] : [],
  next: more ? next : null,
})

export { bytesOf }
