import { CursorStore } from './cursor-store.js'
import { runCycle } from './cycle.js'
import type { HttpDeps } from './http.js'
import { describeError } from './log.js'
import { waitForReady } from './service-client.js'
import { type ConnectorSettings, redactedSettings } from './settings.js'
import type { Stopper } from './stopper.js'

export const ConnectorExit = {
  Ok: 0,
  /** `--once`: the cycle failed (nothing was committed to the cursor). */
  CycleFailed: 1,
  Config: 2,
  /** The server never became ready within the bound. */
  Startup: 3,
} as const

export interface RunOptions {
  once: boolean
  http: HttpDeps
  stopper: Stopper
}

/**
 * Waits for the server, then runs one cycle (`--once`) or cycles every poll interval until stopped. In loop mode
 * a failed cycle is logged and the next interval tries again from the same cursor.
 */
export async function runConnector(
  settings: ConnectorSettings,
  { once, http, stopper }: RunOptions,
): Promise<number> {
  const log = http.log
  const policy = { maxRetries: settings.maxRetries, baseMs: settings.retryBaseMs, maxMs: settings.retryMaxMs }
  const cursors = new CursorStore(settings.stateDir)
  log('info', 'connector_start', { mode: once ? 'once' : 'loop', settings: redactedSettings(settings) })
  try {
    if (!(await waitForReady(http, settings, stopper))) return stopped(log)
  } catch (error) {
    log('error', 'service_not_ready', { error: describeError(error) })
    return ConnectorExit.Startup
  }
  for (;;) {
    let failed = false
    try {
      await runCycle({ http, policy, settings, cursors })
    } catch (error) {
      failed = true
      log('error', 'cycle_failed', { collection: settings.collectionId, error: describeError(error) })
    }
    if (once) return failed ? ConnectorExit.CycleFailed : ConnectorExit.Ok
    if (stopper.stopped) return stopped(log)
    await stopper.sleep(settings.pollIntervalMs)
    if (stopper.stopped) return stopped(log)
  }
}

function stopped(log: HttpDeps['log']): number {
  log('info', 'connector_stopped', {})
  return ConnectorExit.Ok
}
