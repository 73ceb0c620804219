/**
 * A token bucket: `burst` requests at once, refilled at `perSecond`. The reference limits with exactly this
 * pair (rate and burst), which a fixed-window limiter cannot express.
 */
export class TokenBucket {
  private tokens: number
  private last: number

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst
    this.last = now()
  }

  /** Takes one token; when none is left, returns how long until one is. */
  take(): { ok: true } | { ok: false; retryAfterMs: number } {
    const t = this.now()
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) * this.perSecond) / 1000)
    this.last = t
    if (this.tokens >= 1) {
      this.tokens -= 1
      return { ok: true }
    }
    return { ok: false, retryAfterMs: Math.ceil(((1 - this.tokens) * 1000) / this.perSecond) }
  }
}
