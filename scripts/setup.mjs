// Installs every dependency and builds everything (TypeScript and the native providers).
import { build, install } from './lib/run.mjs'

install()
build()
