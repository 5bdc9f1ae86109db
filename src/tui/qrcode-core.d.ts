// The encoder alone: `qrcode`'s main entry also loads its PNG/SVG/terminal renderers (and pngjs),
// which the bundle does not need.
declare module 'qrcode/lib/core/qrcode.js' {
  import type { create } from 'qrcode'
  const core: { create: typeof create }
  export default core
}
