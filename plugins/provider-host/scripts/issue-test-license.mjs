#!/usr/bin/env node
/**
 * Issues a signed SERVICE LICENSE for tests and documentation.
 *
 *   node plugins/provider-host/scripts/issue-test-license.mjs --modules cti,fimi [--valid-until <RFC 3339> | --days <n>]
 *        [--email <addr>] [--uuid <uuid>] [--tags nfr,...] [--private-key-file <pkcs8.pem>] [--json]
 *
 * `--days=-1` (with the equals sign) issues an already expired license.
 *
 * Without --private-key-file a throw-away Ed25519 key pair is generated and its private key printed too, so
 * more licenses can be signed with it. Never commit a private key; production keys never come near this.
 * Needs the built package (`tsc -b plugins/provider-host`).
 */
import { createPrivateKey, createPublicKey, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { generateLicenseKeyPair, issueLicense } from '../dist/license-issuer.js'

const { values } = parseArgs({
  options: {
    modules: { type: 'string', default: '' },
    'valid-until': { type: 'string' },
    days: { type: 'string' },
    email: { type: 'string', default: 'licensee@example.com' },
    uuid: { type: 'string' },
    tags: { type: 'string' },
    'private-key-file': { type: 'string' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
})

if (values.help) {
  process.stdout.write(
    readFileSync(new URL(import.meta.url), 'utf8')
      .split('\n')
      .slice(2, 10)
      .join('\n') + '\n',
  )
  process.exit(0)
}

const list = (text) =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')

let keys
if (values['private-key-file'] !== undefined) {
  const privateKeyPem = readFileSync(values['private-key-file'], 'utf8')
  const publicKeyPem = createPublicKey(createPrivateKey(privateKeyPem))
    .export({ type: 'spki', format: 'pem' })
    .toString()
  keys = { privateKeyPem, publicKeyPem, generated: false }
} else {
  keys = { ...generateLicenseKeyPair(), generated: true }
}

const days = values.days === undefined ? 365 : Number(values.days)
if (!Number.isFinite(days)) {
  process.stderr.write('--days must be a number (negative issues an expired license)\n')
  process.exit(2)
}
const validUntil =
  values['valid-until'] ?? new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z')

const licensePem = issueLicense(
  {
    client_uuid: values.uuid ?? randomUUID(),
    client_email: values.email,
    modules: list(values.modules),
    valid_until: validUntil,
    ...(values.tags === undefined ? {} : { tags: list(values.tags) }),
  },
  keys.privateKeyPem,
)

if (values.json) {
  process.stdout.write(
    `${JSON.stringify({
      license_pem: licensePem,
      public_key_pem: keys.publicKeyPem,
      ...(keys.generated ? { private_key_pem: keys.privateKeyPem } : {}),
    })}\n`,
  )
} else {
  process.stdout.write(
    `# SERVICE_HTTP_LICENSE_PEM (or write it to a file for SERVICE_HTTP_LICENSE_PEM_FILE)\n${licensePem}\n`,
  )
  process.stdout.write(`# SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM\n${keys.publicKeyPem}\n`)
  if (keys.generated)
    process.stdout.write(`# Throw-away signing key (tests only; never commit it)\n${keys.privateKeyPem}`)
}
