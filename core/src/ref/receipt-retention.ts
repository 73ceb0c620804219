/**
 * The window inside which a retried write is answered from its receipt: the newest `count` receipts, none
 * older than `ageMs`. A receipt leaving the window leaves its key behind as a retired key (the first 64 bits
 * of the key hash, 16 hex digits), so a retry outside the window is told apart from a new write and gets a
 * conflict instead of being applied a second time. Receipts of writes not yet delivered to the reference
 * stay, whatever their age: the projector compares against them.
 */
/** What the window reads of a receipt (state.ts's Receipt). */
interface Receipt {
  sequence: number
  /** Commit time (epoch ms); absent in receipts written before the window existed. */
  at?: number | undefined
}

export interface RetentionWindow {
  count: number
  ageMs: number
}

export const DEFAULT_RETENTION: RetentionWindow = { count: 100_000, ageMs: 7 * 86_400_000 }

const retiredId = (keyHash: string): string => keyHash.slice(keyHash.indexOf(':') + 1).slice(0, 16)

export class ReceiptRetention {
  window: RetentionWindow = DEFAULT_RETENTION
  private readonly retired = new Set<string>()

  /**
   * Drops receipts outside the window as of `now` (the commit time of the newest receipt, so replaying the
   * log prunes exactly as the live process did); `held` keeps a receipt its outbox entry still needs.
   */
  prune(receipts: Map<string, Receipt>, now: number | undefined, held: (sequence: number) => boolean): void {
    const oldestKept = now === undefined ? Number.NEGATIVE_INFINITY : now - this.window.ageMs
    let over = receipts.size - this.window.count
    for (const [key, receipt] of receipts) {
      const stale = receipt.at !== undefined && receipt.at < oldestKept
      if (over <= 0 && !stale) break
      if (held(receipt.sequence)) continue
      receipts.delete(key)
      this.retired.add(retiredId(key))
      over -= 1
    }
  }

  /** Whether `receipt` is still inside the window at `now` (a receipt aged out between commits). */
  fresh(receipt: Receipt, now: number): boolean {
    return receipt.at === undefined || receipt.at >= now - this.window.ageMs
  }

  /** Whether a write with this key hash once committed and its receipt left the window. */
  isRetired(keyHash: string): boolean {
    return this.retired.has(retiredId(keyHash))
  }

  get retiredCount(): number {
    return this.retired.size
  }

  retiredKeys(): string[] {
    return [...this.retired]
  }

  restore(keys: string[]): void {
    for (const key of keys) this.retired.add(key)
  }

  clear(): void {
    this.retired.clear()
  }
}

/** The answer to a retry whose receipt left the window: a conflict, never a second application. */
export const receiptExpired = (window: RetentionWindow) => ({
  code: 'CONFLICT' as const,
  message:
    `the receipt of this idempotency key is no longer kept (receipts are kept for the newest ${window.count} ` +
    `writes and at most ${window.ageMs} ms); the write is not applied again: use a new key for a new write`,
  retryable: false,
})
