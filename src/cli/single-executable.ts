/**
 * The single executable's entry (scripts/build-binary.ts bundles it, with everything it imports,
 * into one ESM file that Node's SEA runs): what bin/folio.mjs is to the npm install.
 */
import { runMain } from './index.js'

process.exitCode = await runMain(process.argv.slice(2))
