import { defineConfig } from 'vitest/config'

// Unit tests sit beside the code (`*.test.ts`); e2e tests start the built server as a real process.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'core/src/**/*.test.ts',
            'plugins/*/src/**/*.test.ts',
            'packs/*/src/**/*.test.ts',
            'host/src/**/*.test.ts',
            'connectors/*/src/**/*.test.ts',
            'clients/*/src/**/*.test.ts',
            'tools/src/**/*.test.ts',
          ],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/src/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Each file starts its own server processes; two cores, so keep the fan-out small.
          maxWorkers: 2,
        },
      },
    ],
  },
})
