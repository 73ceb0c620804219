/** The fake host for packs and helpers for `app.inject` tests of the provider host. */

export {
  generateLicenseKeyPair,
  issueLicense,
  type LicenseRequest,
  type TestKeyPair,
} from '../license-issuer.js'
export {
  createFakeHost,
  type FakeHost,
  type FakeHostOptions,
  type TestLicense,
  testLicense,
  testPack,
} from './fake-host.js'
export {
  type FakeProviderOptions,
  type FakeProviderProbe,
  type FakeValidate,
  fakeProvider,
} from './fake-provider.js'
export { buildProviderHostTestApp, type TestAppOptions } from './test-app.js'
