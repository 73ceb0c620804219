import cliProgress from 'cli-progress'

/**
 * A progress line on stderr for the operator commands: redrawn on a terminal, a line every two seconds
 * otherwise (so a log collector gets figures, not carriage returns).
 */
export function progressBar(format: string): cliProgress.SingleBar {
  return new cliProgress.SingleBar(
    { format, hideCursor: true, stream: process.stderr, noTTYOutput: true, notTTYSchedule: 2000 },
    cliProgress.Presets.shades_classic,
  )
}
