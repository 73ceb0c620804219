// Event-loop stalls while `work` runs: a 1 ms timer notes how late each of its turns came (longest and
// p99, in ms). A turn that comes on time counts ~1 ms. `over20PerSec`: turns later than 20 ms per second of
// the window, comparable between windows of different lengths (a busy machine's own stalls show in idle).
export async function loopDelay(work) {
  const gaps = []
  const started = performance.now()
  let last = started
  const timer = setInterval(() => {
    const now = performance.now()
    gaps.push(now - last)
    last = now
  }, 1)
  try {
    await work()
  } finally {
    clearInterval(timer)
  }
  gaps.push(performance.now() - last)
  const seconds = (performance.now() - started) / 1000
  gaps.sort((a, b) => a - b)
  return {
    max: gaps.at(-1),
    p99: gaps[Math.floor((gaps.length - 1) * 0.99)],
    over20PerSec: gaps.filter((g) => g > 20).length / seconds,
  }
}
