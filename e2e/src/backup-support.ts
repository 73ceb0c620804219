import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { ADMIN_TOKEN, serverMain } from './harness.js'

const run = promisify(execFile)

/** The environment the backup commands run with: the admin token for `backup`, nothing else inherited. */
export const cliEnv = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN,
}

/** Runs `service-http-server ARGS`; resolves with its exit code and output instead of throwing on failure. */
export async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [serverMain, ...args], { env: cliEnv })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}
