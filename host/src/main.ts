#!/usr/bin/env node
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { EngineError, inspectStorage, SERVICE_NAME, SERVICE_VERSION, snapshotStorage } from '@service/core'
import { downloadBackup, restoreCommand, restorePointOf, verifyCommand } from './backup-command.js'
import { DEV_LICENSE_MODULES, devLicenseDir, devLicenseReport, issueDevLicense } from './dev-license.js'
import { ExitCode } from './exit-codes.js'
import { importFile } from './import-command.js'
import { importCsvCommand } from './import-csv-command.js'
import { serveMcpStdio } from './mcp-stdio.js'
import { openapiDocument, registeredRoutes } from './routes.js'
import { serve, settingsOrExit } from './run.js'
import { redactedSettings } from './settings.js'
import { renderConfigurationDoc } from './settings-catalog.js'

const USAGE = `usage: service-http-server [command]

commands:
  start                              start the server (default)
  check-config [--print-effective]   validate the settings from the environment and exit
  settings-doc                       print docs/configuration.md (every setting, default and meaning)
  routes                             print the registered route table (JSON) and exit
  openapi                            print the OpenAPI document the server serves at /openapi.json and exit
  mcp                                serve MCP on stdin/stdout: the engine embedded on the configured storage,
                                     or a running server with SERVICE_MCP_REMOTE_URL (see docs/agents.md)
  import FILE [--url URL] [--workspace ID] [--batch-bytes N]
                                     import a large STIX bundle file through a running server, in ordered
                                     batches, with a progress bar (token: SERVICE_HTTP_AUTH_TOKEN)
  import-csv --nodes [LABELS=]FILES … [--relationships [TYPE=]FILES …] --storage-dir DIR
             [--delimiter C] [--array-delimiter C] [--quote C] [--id-type string|integer]
             [--report FILE] [--bad-tolerance N]
                                     build a new store in an EMPTY directory from CSV files with neo4j-admin
                                     headers (id:ID(Group), :LABEL, :START_ID, :END_ID, :TYPE, name:int, …),
                                     writing its checkpoint directly; FILES are comma-separated (the first
                                     holds the header), .gz accepted; rejected rows go to the report (default
                                     ./import.report), and past N of them (default 1000) nothing is imported
  backup --out FILE [--url URL]      download an online backup (GET /v1/admin/backup) with a progress bar
                                     (token: SERVICE_HTTP_ADMIN_AUTH_TOKEN)
  restore BACKUP (--storage-dir DIR | --postgres-url URL) [--until-seq N | --until-time T] [--wal-archive DIR]
                                     restore a backup (of either store) into an empty directory or an empty
                                     PostgreSQL database: every checksum is checked before anything appears,
                                     then the store is recovered strictly; --until-* replays the WAL archive
                                     past the backup up to that commit
  verify BACKUP|DIR                  check a backup's checksums (or a storage directory) and replay it fully
                                     in a scratch directory, without starting the server
  storage check DIR                  validate a storage directory offline and print what recovery would do
                                     (exit 0 recoverable, 6 refused under strict recovery, 5 incompatible)
  storage snapshot DIR DEST          copy a live storage directory consistently into DEST
  dev-license [--modules cti,fimi,crisis] [--dir DIR]
                                     issue a development license signed by a key generated on this machine
                                     (default DIR .service-runtime/dev-license, or SERVICE_DEV_LICENSE_DIR);
                                     only a deployment configured with its public key trusts it
  version                            print the version
  help                               print this text

Settings are read from SERVICE_* environment variables; see docs/configuration.md.`

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'print-effective': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      url: { type: 'string' },
      workspace: { type: 'string' },
      'batch-bytes': { type: 'string' },
      modules: { type: 'string' },
      dir: { type: 'string' },
      out: { type: 'string' },
      'storage-dir': { type: 'string' },
      'postgres-url': { type: 'string' },
      'wal-archive': { type: 'string' },
      'until-seq': { type: 'string' },
      'until-time': { type: 'string' },
      nodes: { type: 'string', multiple: true },
      relationships: { type: 'string', multiple: true },
      delimiter: { type: 'string' },
      'array-delimiter': { type: 'string' },
      quote: { type: 'string' },
      report: { type: 'string' },
      'bad-tolerance': { type: 'string' },
      'id-type': { type: 'string' },
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
    case 'settings-doc':
      process.stdout.write(renderConfigurationDoc())
      return
    case 'routes': {
      const routes = await registeredRoutes(settingsOrExit())
      process.stdout.write(`${JSON.stringify(routes, null, 2)}\n`)
      return
    }
    case 'openapi': {
      const document = await openapiDocument(settingsOrExit())
      process.stdout.write(`${JSON.stringify(document, null, 2)}\n`)
      return
    }
    case 'mcp':
      return serveMcpStdio(settingsOrExit(process.env, 'stdio'))
    case 'import': {
      const file = positionals[1]
      const token = process.env.SERVICE_HTTP_AUTH_TOKEN?.trim()
      if (file === undefined || !token) {
        process.stderr.write(
          'usage: SERVICE_HTTP_AUTH_TOKEN=… service-http-server import FILE [--url URL] [--workspace ID]\n',
        )
        process.exit(ExitCode.Config)
      }
      process.exitCode = await importFile({
        file: resolve(file),
        url: values.url ?? `http://127.0.0.1:${process.env.SERVICE_HTTP_PORT ?? '8080'}`,
        token,
        workspaceId: values.workspace,
        batchBytes: Number(values['batch-bytes'] ?? 8 * 1024 * 1024),
      })
      return
    }
    case 'import-csv': {
      process.exitCode = await importCsvCommand({
        nodes: values.nodes ?? [],
        relationships: values.relationships ?? [],
        storageDir: values['storage-dir'],
        delimiter: values.delimiter,
        arrayDelimiter: values['array-delimiter'],
        quote: values.quote,
        report: values.report,
        badTolerance: values['bad-tolerance'],
        idType: values['id-type'],
      })
      return
    }
    case 'backup': {
      const token = process.env.SERVICE_HTTP_ADMIN_AUTH_TOKEN?.trim()
      if (values.out === undefined || !token) {
        process.stderr.write(
          'usage: SERVICE_HTTP_ADMIN_AUTH_TOKEN=… service-http-server backup --out FILE [--url URL]\n',
        )
        process.exit(ExitCode.Config)
      }
      process.exitCode = await downloadBackup({
        url: values.url ?? `http://127.0.0.1:${process.env.SERVICE_HTTP_PORT ?? '8080'}`,
        token,
        out: resolve(values.out),
      })
      return
    }
    case 'restore': {
      const archive = positionals[1]
      const dir = values['storage-dir']
      const postgresUrl = values['postgres-url']
      if (archive === undefined || (dir === undefined) === (postgresUrl === undefined)) {
        process.stderr.write(
          'usage: service-http-server restore BACKUP (--storage-dir DIR | --postgres-url URL)\n',
        )
        process.exit(ExitCode.Config)
      }
      const point = restorePointOf(values['until-seq'], values['until-time'])
      const archiveDir = values['wal-archive'] ?? process.env.SERVICE_STORAGE_WAL_ARCHIVE_DIR
      if (typeof point === 'string' || (point !== undefined && !archiveDir)) {
        process.stderr.write(
          `${typeof point === 'string' ? point : '--until-seq/--until-time need --wal-archive DIR (or SERVICE_STORAGE_WAL_ARCHIVE_DIR)'}\n`,
        )
        process.exit(ExitCode.Config)
      }
      process.exitCode = await restoreCommand(
        resolve(archive),
        dir === undefined ? { postgresUrl: postgresUrl as string } : { dir: resolve(dir) },
        point === undefined ? undefined : { archiveDir: resolve(archiveDir as string), point },
      )
      return
    }
    case 'verify': {
      const path = positionals[1]
      if (path === undefined) {
        process.stderr.write('usage: service-http-server verify BACKUP|DIR\n')
        process.exit(ExitCode.Config)
      }
      process.exitCode = await verifyCommand(resolve(path))
      return
    }
    case 'storage':
      return storageCommand(positionals.slice(1))
    case 'dev-license': {
      const modules =
        values.modules === undefined
          ? [...DEV_LICENSE_MODULES]
          : values.modules
              .split(',')
              .map((m) => m.trim().toLowerCase())
              .filter((m) => m !== '')
      const files = issueDevLicense({ dir: devLicenseDir(values.dir), modules })
      process.stdout.write(devLicenseReport(files, modules))
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

function storageCommand(args: string[]): void {
  const [action, dir, destination] = args
  try {
    if (action === 'check' && dir !== undefined) {
      const report = inspectStorage(resolve(dir))
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
      if (report.plan.strict_outcome === 'refuses') process.exitCode = ExitCode.RecoveryIntegrity
      return
    }
    if (action === 'snapshot' && dir !== undefined && destination !== undefined) {
      const report = snapshotStorage(resolve(dir), resolve(destination))
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
      return
    }
  } catch (error) {
    if (error instanceof EngineError) {
      process.stderr.write(`service-http-server: ${error.code}: ${error.message}\n`)
      process.exit(
        error.code === 'STORAGE_INCOMPATIBLE' ? ExitCode.IncompatibleStorage : ExitCode.RecoveryIntegrity,
      )
    }
    throw error
  }
  process.stderr.write('usage: service-http-server storage check DIR | storage snapshot DIR DEST\n')
  process.exit(ExitCode.Config)
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`service-http-server: ${(error as Error).stack ?? String(error)}\n`)
  process.exit(3)
})
