#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { SERVICE_NAME, SERVICE_VERSION } from '@service/core'
import { registeredRoutes } from './routes.js'
import { serve, settingsOrExit } from './run.js'
import { redactedSettings } from './settings.js'

const USAGE = `usage: service-http-server [command]

commands:
  start                              start the server (default)
  check-config [--print-effective]   validate the settings from the environment and exit
  routes                             print the registered route table (JSON) and exit
  version                            print the version
  help                               print this text

Settings are read from SERVICE_* environment variables; see README.md.`

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'print-effective': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  const command = values.help ? 'help' : (positionals[0] ?? 'start')
  switch (command) {
    case 'start':
      return serve(settingsOrExit())
    case 'check-config': {
      const settings = settingsOrExit()
      process.stdout.write(
        values['print-effective']
          ? `${JSON.stringify(redactedSettings(settings), null, 2)}\n`
          : 'settings ok\n',
      )
      return
    }
    case 'routes': {
      const routes = await registeredRoutes(settingsOrExit())
      process.stdout.write(`${JSON.stringify(routes, null, 2)}\n`)
      return
    }
    case 'version':
      process.stdout.write(`${SERVICE_NAME} ${SERVICE_VERSION}\n`)
      return
    case 'help':
      process.stdout.write(`${USAGE}\n`)
      return
    default:
      process.stderr.write(`unknown command '${command}'\n${USAGE}\n`)
      process.exit(2)
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`service-http-server: ${(error as Error).stack ?? String(error)}\n`)
  process.exit(3)
})
