#!/usr/bin/env node
// Thin shim: the CLI lives in one bundled ESM file so start-up stays fast.
import { runMain } from '../dist/cli.mjs'

process.exitCode = await runMain(process.argv.slice(2))
