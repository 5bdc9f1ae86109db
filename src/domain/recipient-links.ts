import { randomBytes } from 'node:crypto'
import type { AnalyticsDoc, RecipientLink } from './analytics.js'

/**
 * Links for one recipient each ("Dana at Acme"): the folio's share page with `?link=<id>`. The id
 * is 16 random bytes, so nobody finds another recipient's link by trying. A link lives in the
 * folio's analytics document, beside its figures, so a beacon checks it and counts on it in one
 * write.
 */

/** Links one folio may have (revoked ones included: their figures stay). */
export const MAX_LINKS = 200

export type LinkStatus = 'active' | 'expired' | 'revoked'

export function newLinkId(): string {
  return randomBytes(16).toString('base64url')
}

/**
 * Whether a link still lets a view in. A link that reached its views cap lets no new view in
 * (`forNewView`), but the view that reached it keeps counting its time.
 */
export function linkStatus(link: RecipientLink, now: Date, forNewView = true): LinkStatus {
  if (link.revokedAt) return 'revoked'
  if (link.expiresAt && Date.parse(link.expiresAt) <= now.getTime()) return 'expired'
  if (forNewView && link.maxViews !== undefined && link.views >= link.maxViews) return 'expired'
  return 'active'
}

export interface NewLink {
  name: string
  expiresAt?: string
  maxViews?: number
}

export function addLink(doc: AnalyticsDoc, id: string, link: NewLink, now: Date): AnalyticsDoc {
  const made: RecipientLink = { name: link.name, createdAt: now.toISOString(), views: 0, seconds: 0 }
  if (link.expiresAt) made.expiresAt = new Date(link.expiresAt).toISOString()
  if (link.maxViews !== undefined) made.maxViews = link.maxViews
  return { ...doc, links: { ...doc.links, [id]: made } }
}

export function revokeLink(doc: AnalyticsDoc, id: string, now: Date): AnalyticsDoc {
  const link = doc.links?.[id]
  if (!link || link.revokedAt) return doc
  return { ...doc, links: { ...doc.links, [id]: { ...link, revokedAt: now.toISOString() } } }
}
