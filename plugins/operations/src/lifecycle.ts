export type LifecycleState = 'initializing' | 'ready' | 'draining' | 'stopped' | 'failed'
export const LIFECYCLE_STATES: readonly LifecycleState[] = [
  'initializing',
  'ready',
  'draining',
  'stopped',
  'failed',
]

/** The server's lifecycle, owned by the host and read by readiness, the drain gate and metrics. */
export class Lifecycle {
  private current: LifecycleState = 'initializing'
  readonly startedAtMs = Date.now()
  shutdownStarted = 0
  shutdownFailures = 0

  get state(): LifecycleState {
    return this.current
  }

  set(state: LifecycleState): void {
    if (state === 'draining' && this.current !== 'draining') this.shutdownStarted += 1
    this.current = state
  }
}
