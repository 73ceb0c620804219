/**
 * Retry backoff of projection attempts. Each entry that failed waits out its own delay, doubling with each
 * failure from `baseMs` up to `maxMs`, with "equal jitter" (a delay d is drawn in [d/2, d]) so primaries
 * that lost the same reference do not retry in step. While the oldest undelivered entry waits, nothing
 * overtakes it (the drain is ordered), and after a failure the projector sends one request at a time until
 * one succeeds: the attempt rate during an outage is bounded by the backoff, not by the write rate.
 */

export interface RetryPolicy {
  /** Delay after the first failure of an entry (ms). */
  baseMs: number
  /** Ceiling of the delay (ms). */
  maxMs: number
}

/** The nominal delay after an entry's `failures`-th failure, before jitter. */
export function nominalDelay(policy: RetryPolicy, failures: number): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 52)
  return Math.min(policy.maxMs, policy.baseMs * 2 ** exponent)
}

/**
 * The most attempts one entry can make within `windowMs` under `policy` (the first at the start, each
 * following one after at least half its nominal delay): what an outage of that length may cost.
 */
export function maxAttemptsWithin(policy: RetryPolicy, windowMs: number): number {
  let attempts = 1
  let elapsed = 0
  for (let failures = 1; ; failures++) {
    elapsed += nominalDelay(policy, failures) / 2
    if (elapsed > windowMs) return attempts
    attempts += 1
  }
}

interface EntryRetry {
  failures: number
  nextAt: number
}

export class EntryBackoff {
  private readonly retries = new Map<number, EntryRetry>()

  constructor(
    private readonly policy: RetryPolicy,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  /** Records a failed attempt of `sequence`; returns when it may be tried again (epoch ms). */
  failed(sequence: number): number {
    const failures = (this.retries.get(sequence)?.failures ?? 0) + 1
    const nominal = nominalDelay(this.policy, failures)
    const nextAt = this.now() + nominal / 2 + (nominal / 2) * this.random()
    this.retries.set(sequence, { failures, nextAt })
    return nextAt
  }

  /** The entry was decided (delivered or quarantined): it has no retry state any more. */
  settled(sequence: number): void {
    this.retries.delete(sequence)
  }

  /** When `sequence` may be tried (epoch ms; 0 when it never failed). */
  readyAt(sequence: number): number {
    return this.retries.get(sequence)?.nextAt ?? 0
  }

  /** True while some entry is waiting out a failure: the projector then probes one request at a time. */
  get failing(): boolean {
    return this.retries.size > 0
  }

  /** The earliest time an entry waiting out a failure may be tried again, or null. */
  earliest(): number | null {
    let first: number | null = null
    for (const retry of this.retries.values())
      if (first === null || retry.nextAt < first) first = retry.nextAt
    return first
  }

  /** The reference answered again: every entry may be tried now. */
  reset(): void {
    this.retries.clear()
  }

  /** Forgets entries no longer pending (delivered by a drain, dropped by recovery). */
  retain(isPending: (sequence: number) => boolean): void {
    for (const sequence of this.retries.keys()) if (!isPending(sequence)) this.retries.delete(sequence)
  }
}
