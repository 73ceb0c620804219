// Where tests and benchmarks find the shared test data (TCK, ATT&CK, OASIS schemas, TAXII fixture).
// One setting, SHARED_DIR, defaulting to ../shared beside the repository. The product never reads it.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { root } from './lib/run.mjs'

export const sharedDir = resolve(root, process.env.SHARED_DIR ?? '../shared')
export const sharedPresent = () => existsSync(resolve(sharedDir, 'spec', 'interface-spec.md'))
