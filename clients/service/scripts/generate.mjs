#!/usr/bin/env node
// Regenerates src/openapi.ts from the document the built server serves at /openapi.json. No network: the
// document comes from `service-http-server openapi` (the server's own plugins, in-process, not listening).
// Run after `npm run build` whenever a route or schema changes; a unit test fails while the file is stale.
import { writeFileSync } from 'node:fs'
import { GENERATED_FILE, generatedTypes } from './render.mjs'

writeFileSync(GENERATED_FILE, await generatedTypes())
console.log(`wrote ${GENERATED_FILE}`)
