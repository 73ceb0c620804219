// Event-loop stalls while `work` runs: a 1 ms timer notes how late each of its turns came (longest and
// p99, in ms). A turn that comes on time counts ~1 ms.
export async function loopDelay(work) {
  const gaps = []
  let last = performance.now()
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
  gaps.sort((a, b) => a - b)
  return { max: gaps.at(-1), p99: gaps[Math.floor((gaps.length - 1) * 0.99)] }
}
