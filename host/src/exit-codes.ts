/** Process exit codes (as the reference defines them), so scripts and supervisors can tell failures apart. */
export const ExitCode = {
  Ok: 0,
  Config: 2,
  Startup: 3,
  DirectoryOwned: 4,
  IncompatibleStorage: 5,
  RecoveryIntegrity: 6,
  ShutdownTimeout: 7,
} as const
