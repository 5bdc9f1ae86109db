// Preloaded into a CLI run (node --import) by tests that need a host name which is not this
// machine yet reaches a local listener: FOLIO_TEST_DNS_ALIASES={"evil.example":"127.0.0.1"}
// makes dns.lookup (which net and fetch connect through) answer those names with those addresses.
import dns from 'node:dns'

const aliases = JSON.parse(process.env.FOLIO_TEST_DNS_ALIASES || '{}')
const lookup = dns.lookup
dns.lookup = function (hostname, ...rest) {
  return lookup.call(this, Object.hasOwn(aliases, hostname) ? aliases[hostname] : hostname, ...rest)
}
