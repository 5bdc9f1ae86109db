/** What `folio --help` says after the commands: examples, linked folders, environment, exit codes. */
export const PROGRAM_HELP = `
Examples:
  $ folio serve                              the server on http://127.0.0.1:3000, data in ./.folio
  $ folio create "Q3 review" --dir ./site    a draft from a folder, linked to it (below)
  $ cd site && folio sync --watch            push every save to the linked folio
  $ folio publish                            viewers see it now (folio set: title, privacy, …)
  $ folio status                             live views, reactions, comments and the tunnel
  $ folio comments <id>                      open comments; resolve, delete, --watch for new ones
  $ folio links <id> add "Dana at Acme"       a link for one recipient: who read it, how far
  $ claude mcp add folio -- folio mcp        give an AI agent folio's tools (MCP over stdio)
  $ folio <command> --help                   every option of a command, with examples

Linked folders:
  folio create --dir <folder> and folio sync <id> <folder> write <folder>/.folio/link.json: the
  server and the folio's id, never a key (.folio/ is never pushed). Inside that folder or one
  below it, the <id> of sync, pull, open, versions, restore, comments, links, upload, publish, unpublish,
  set and rm can be left out, and with no --server, FOLIO_URL or login the commands talk to the
  link's server (localhost, 127.0.0.1 and [::1] on one port are one server).
  An id on the command line wins; a link to another server than the one in use is refused,
  naming both. A second folio create --dir in a linked folder is refused unless --new.

Environment:
  FOLIO_URL          the server the commands talk to (like --server)
  FOLIO_API_KEY      the key the commands send (like --key); for folio serve, the key that guards
                     the sync endpoint (alias SERVICE_API_KEY)
  FOLIO_CONFIG_DIR   where folio login keeps its profile and sync remembers folders
                     (default ~/.config/folio)
  FOLIO_TUNNEL_PROVIDER  localtunnel, cloudflare or custom: the tunnel of folio tunnel start and
                     folio serve --tunnel (else the last one used)
  FOLIO_TUNNEL_HOST  your own localtunnel server for the public tunnel of folio serve
  FOLIO_CLOUDFLARED  the cloudflared executable of the Cloudflare tunnel (else folio's download,
                     then PATH); FOLIO_INSTALL_CLOUDFLARED=1 downloads it without asking
  BROWSER            the browser folio open (and o in folio status) starts
  PORT               default port of folio serve
  FOLIO_DATA         default data folder of folio serve and folio admin
  FOLIO_RATE_LIMITS  per-client limits of the public endpoints, e.g. "public=600,analytics=600"
  FOLIO_MAX_COMMENTS, FOLIO_MAX_COMMENT_BYTES
                     what one folio's comments may reach (default 1000 and 4194304 bytes)
  FOLIO_LOG_LEVEL    silent, error, warn, info (default), debug or trace; --quiet and --verbose win
  FOLIO_AI_PROVIDER  for folio serve: the AI model's provider, openai, anthropic or ollama, with
                     FOLIO_AI_MODEL and the provider's own OPENAI_API_KEY, OPENAI_BASE_URL (any
                     OpenAI-compatible server), ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OLLAMA_HOST
  FOLIO_AI_SECRET    for folio serve --mode cloud: seals the workspaces' own AI keys at rest
  FOLIO_AI_ALLOW_PRIVATE, FOLIO_ALLOW_PRIVATE_HOSTS
                     for folio serve: AI providers a caller chose (a workspace's base URL) may
                     reach private addresses (=1), or these hosts, addresses and ranges only
                     (AI providers and webhooks: "ollama.internal,10.0.0.0/8")

The saved login key is sent only to the login's own server: with --server or FOLIO_URL
pointing elsewhere, pass that server's key with --key or FOLIO_API_KEY.

--server, FOLIO_URL and folio login take a URL or just host[:port]: localhost:3000 means
http://localhost:3000. Without a scheme, http:// is assumed for localhost, IP addresses, names
without a dot and .local, .lan, .internal and .home.arpa names; https:// for every other name.

Exit codes:
  0    done
  1    failed: the server refused or could not be reached, a file could not be read, …
  2    usage error: the command line was wrong, nothing was tried
  130  interrupted with work not done (folio sync --watch stopped before pushing everything)
With --json a failure is one JSON document on stdout, {"error": "<code>", "message": "<what to
do>"}, where <code> is the server's own error (e.g. "Project not found") or one of the CLI's:
usage, failed, server_unreachable, interrupted.

Shell completion: folio completion --help.`
