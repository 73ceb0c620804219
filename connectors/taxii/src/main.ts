#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { jsonLogger } from './log.js'
import { ConnectorExit, runConnector } from './runner.js'
import { loadSettings, SettingsError } from './settings.js'
import { Stopper } from './stopper.js'

const USAGE = `usage: service-taxii-connector [--once]

Polls a TAXII 2.1 collection and imports new objects into the server (POST /v1/import/stix).
  --once   run one cycle and exit (0 ok, 1 cycle failed)
Settings come from SERVICE_INGEST_* environment variables; see the package README.`

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      once: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    return ConnectorExit.Ok
  }
  let settings: ReturnType<typeof loadSettings>
  try {
    settings = loadSettings(process.env)
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error
    process.stderr.write(`service-taxii-connector: ${error.message}\n`)
    return ConnectorExit.Config
  }
  const stopper = new Stopper()
  const log = jsonLogger()
  // First signal: finish the running cycle, then exit. Second: exit now.
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopper.stopped) process.exit(130)
    log('info', 'stop_requested', { signal })
    stopper.stop()
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  const http = {
    fetch: (url: string, init: RequestInit) => fetch(url, init),
    log,
    sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    random: Math.random,
  }
  return runConnector(settings, { once: values.once, http, stopper })
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    const usage = (error as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
    process.stderr.write(`service-taxii-connector: ${(error as Error).message ?? String(error)}\n`)
    process.exitCode = usage ? ConnectorExit.Config : ConnectorExit.Startup
  },
)
