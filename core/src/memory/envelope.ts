import { createHash } from 'node:crypto'
import { CONTRACT_VERSION, type MemoryResponse, type Receipt } from './types.js'

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex')

/** The contract's success envelope around one operation's result. */
export const envelope = (operation: string, result: object): MemoryResponse => ({
  ok: true,
  contract_version: CONTRACT_VERSION,
  result: { operation, result: result as Record<string, unknown> },
})

/** A stored response as a replay: the same body with `receipt.replayed` true. */
export function replayed(response: MemoryResponse): MemoryResponse {
  const copy = structuredClone(response)
  const receipt = (copy.result.result as { receipt?: Receipt | null }).receipt
  if (receipt) receipt.replayed = true
  return copy
}
