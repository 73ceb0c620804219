/**
 * Layering checks run by `npm test` (and so by CI): no import cycle among sources, type-only imports
 * included, and dependencies pointing one way (host -> plugins/packs/connectors -> core).
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle of files is a layering knot whatever the import kind: break it with a port.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-knows-no-door',
      severity: 'error',
      comment: 'core/ is the engine: it never imports a plugin, a pack, the host or a connector.',
      from: { path: '^core/' },
      to: { path: '^(plugins|packs|host|connectors)/' },
    },
    {
      name: 'kernel-knows-no-feature',
      severity: 'error',
      comment: 'The kernel composes nothing: features register on it through its ports.',
      from: { path: '^core/src/kernel/' },
      to: {
        path: '^core/src/(memory|ref|seed|stix|sessions|explorer|gates|runtime)/',
      },
    },
    {
      name: 'plugins-know-no-host',
      severity: 'error',
      from: { path: '^(plugins|packs|connectors)/' },
      to: { path: '^host/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/|\\.test\\.ts$|test-support\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
    moduleSystems: ['es6'],
  },
}
