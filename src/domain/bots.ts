/**
 * Link-preview fetchers, crawlers and non-browsers, told by their User-Agent. They are counted
 * as `botViews` when they fetch the share page; a view is counted only when a browser's page
 * says it was shown (the analytics beacon), and a beacon from one of these counts nothing.
 *
 * Every browser's User-Agent starts with "Mozilla/": anything else (curl, wget, python-requests,
 * Go's and Java's clients, WhatsApp's and Slack's fetchers) is not one. Of those that do, the
 * named fetchers and crawlers, and headless browsers, are told by a token of their own.
 */
// Tokens of fetchers, not of the apps whose in-app browsers people read in ("LinkedInApp",
// "Twitter for iPhone" are people): "…bot" covers Twitterbot, Discordbot, LinkedInBot,
// TelegramBot, Slackbot, Googlebot, bingbot and most others.
const BOT_TOKENS =
  /bot\b|bot\/|crawler|spider|crawling|slurp|facebookexternalhit|facebookcatalog|meta-externalagent|embedly|iframely|whatsapp\/|skypeuripreview|bingpreview|google-inspectiontool|googleother|apis-google|mediapartners|headlesschrome|phantomjs|lighthouse|pingdom|preview service|prerender|vkshare|yandex|baiduspider|petalbot|bytespider|gptbot|claudebot|perplexity/i

/** Fetching the share page: a crawler, a link preview or anything that is not a browser. */
export function isBot(userAgent: string | null | undefined): boolean {
  return !userAgent?.startsWith('Mozilla/') || BOT_TOKENS.test(userAgent)
}

/**
 * Sending a beacon: a crawler or a headless browser that ran the page (its fetch of the share
 * page was its botView). A plain HTTP client that posts a beacon is an API caller doing what the
 * spec describes, and counts.
 */
export function isCrawler(userAgent: string | null | undefined): boolean {
  return Boolean(userAgent && BOT_TOKENS.test(userAgent))
}

/** Global Privacy Control or Do Not Track: the viewer asked not to be followed. */
export function asksNotToTrack(headers: { get(name: string): string | null }): boolean {
  return headers.get('sec-gpc') === '1' || headers.get('dnt') === '1'
}
