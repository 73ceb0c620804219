export { ExitCode } from './exit-codes.js'
export { createLogger, REDACT_PATHS } from './logger.js'
export { type RegisteredRoute, registeredRoutes } from './routes.js'
export { serve, settingsOrExit } from './run.js'
export { buildServer, type ServerParts } from './server.js'
export {
  isLoopback,
  loadSettings,
  MEMORY_PERMISSIONS,
  redactedSettings,
  type Settings,
  SettingsError,
} from './settings.js'
