/**
 * A folio's page as its author wrote it, from the page the raw route serves: without what the
 * server adds to every page (the storage stand-ins inline at the top, the bridge at the end).
 */
export function asAuthored(served: string): string {
  return served.replace(/<script>"use strict";[\s\S]*?<\/script>/, '').replace(/<script data-folio-base="[^"]*">[\s\S]*?<\/script>/, '')
}
