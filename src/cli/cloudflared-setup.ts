import { cloudflaredDownloadUrl, findCloudflared, installCloudflared } from '../tunnel/cloudflared-binary.js'
import { confirm } from './confirm.js'
import { UsageError } from './errors.js'
import { progressBar } from './progress.js'

/**
 * Before a Cloudflare tunnel on this machine: cloudflared is there, or the user agrees to download
 * it (asked at a terminal; --yes or FOLIO_INSTALL_CLOUDFLARED=1 answer for scripts), with a
 * progress bar. Nothing is downloaded without a yes.
 */
export async function ensureCloudflared(options: { yes?: boolean; note: (message: string) => void }): Promise<void> {
  if (findCloudflared()) return
  const url = cloudflaredDownloadUrl()
  const agreed =
    options.yes ||
    process.env.FOLIO_INSTALL_CLOUDFLARED === '1' ||
    (await confirm(
      `The Cloudflare tunnel runs Cloudflare's cloudflared, which is not on this machine. Download it now (about 40 MB, once, from ${url})?`,
      `The Cloudflare tunnel needs cloudflared, which is not on this machine: add --yes (or FOLIO_INSTALL_CLOUDFLARED=1) to download it from ${url}, or set FOLIO_CLOUDFLARED to the path of one you have.`,
    ))
  if (!agreed)
    throw new UsageError('cloudflared was not downloaded, so no Cloudflare tunnel: folio tunnel start --provider localtunnel needs nothing to install.')
  let bar: ReturnType<typeof progressBar> | undefined
  let counted = 0
  const path = await installCloudflared({
    onProgress: ({ received, total }) => {
      bar ??= progressBar('Downloading cloudflared', total ?? 0)
      bar.add(received - counted)
      counted = received
    },
  })
  bar?.finish()
  options.note(`cloudflared installed at ${path}`)
}
