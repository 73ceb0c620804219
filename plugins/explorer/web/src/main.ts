import { ExplorerApp } from './app.js'
import { TokenKeeper, takeFragmentToken } from './token.js'

declare global {
  interface Window {
    graphExplorer?: ReturnType<ExplorerApp['debugHandle']>
  }
}

// The token handed over in the fragment is taken and removed from the address bar (and so from history)
// before anything else runs.
const tokens = new TokenKeeper(sessionStorage)
const { token, rest } = takeFragmentToken(location.hash)
if (token !== null) {
  tokens.set(token)
  history.replaceState(null, '', `${location.pathname}${location.search}${rest === '' ? '' : `#${rest}`}`)
}

const start = () => {
  const app = new ExplorerApp(tokens)
  window.graphExplorer = app.debugHandle()
  void app.start()
}
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start)
else start()
