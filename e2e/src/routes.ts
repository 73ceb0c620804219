import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { baseEnv, serverMain } from './harness.js'

export interface RegisteredRoute {
  method: string
  url: string
  access: 'admin' | 'bearer' | 'operational' | 'public'
}

/** The route table as the built server registers it (`service-http-server routes`). */
export async function registeredRoutesFromCli(env: Record<string, string> = {}): Promise<RegisteredRoute[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [serverMain, 'routes'], {
    env: { ...baseEnv(0), ...env },
  })
  return JSON.parse(stdout) as RegisteredRoute[]
}

/** A concrete path for a route pattern: every parameter becomes a harmless placeholder. */
export const concretePath = (url: string): string =>
  url.replace(/:([A-Za-z_]+)/g, 'placeholder-$1').replace('*', 'x')
