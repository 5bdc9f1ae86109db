/** How every `[id]` argument reads in --help: left out, it is the linked folder's (link.ts). */
export const FOLIO_ID_HELP = 'folio id (default: the linked folder’s, see folio --help)'
