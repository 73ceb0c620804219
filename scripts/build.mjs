import { build } from './lib/run.mjs'

build()
