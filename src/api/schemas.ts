import { z } from 'zod'
import { checkFilePath } from '../domain/file-paths.js'
import { COMMENT_MODERATIONS, FOLIO_STATUSES, PROJECT_MODES } from '../domain/model.js'
import { ERRORS } from './errors.js'

/** Schemas named here become components of the OpenAPI document (and $refs where used). */
export const namedSchemas = new Map<z.ZodType, string>()

export function named<T extends z.ZodType>(id: string, schema: T): T {
  namedSchemas.set(schema, id)
  return schema
}

export const ErrorBody = named(
  'Error',
  z.object({
    error: z.string().describe("The spec's error string, stable for programs to match"),
    message: z.string().optional().describe('A sentence for people: what went wrong and what to do'),
  }),
)

export const ProjectMode = z.enum(PROJECT_MODES)
export const FolioStatus = z.enum(FOLIO_STATUSES)
export const CommentModeration = z
  .enum(COMMENT_MODERATIONS)
  .describe(
    "Who may resolve or delete comments: anyone who can view the folio (default, as the spec has it), or only the owner and each comment's author (X-Comment-Token)",
  )

/** path → content; binary files as base64 data URLs. Paths are relative and may not climb out. */
export const FileMap = named(
  'FileMap',
  z
    .record(z.string(), z.string())
    .superRefine((files, ctx) => {
      // Two spellings of one path (index.html, ./index.html) would silently keep only one.
      const seen = new Map<string, string>()
      for (const path of Object.keys(files)) {
        const checked = checkFilePath(path)
        if (!checked.ok) {
          ctx.addIssue({ code: 'custom', path: [path], message: `file path ${JSON.stringify(path.slice(0, 80))} ${checked.reason}` })
          continue
        }
        const earlier = seen.get(checked.path)
        if (earlier !== undefined)
          ctx.addIssue({ code: 'custom', path: [path], message: `${JSON.stringify(earlier)} and ${JSON.stringify(path)} name the same file` })
        seen.set(checked.path, path)
      }
    })
    .describe(
      'Map of file path (relative, / between folders) to content. Binary files are base64 data URLs (data:image/png;base64,…). Cloud mode shows images as asset://<sha256 of the bytes> pointers into its asset store (the raw route serves the bytes by path) and takes them back in a write, for images of the same workspace.',
    ),
)

/**
 * Metadata travels with every list answer and is cached per folio: each field has a ceiling
 * far above real use, so no folio can make the list (or the server's memory) explode.
 */
const jsonSize = (value: unknown) => JSON.stringify(value)?.length ?? 0
const maxChars = (field: string, max: number) => ({ error: `${field} must be at most ${max.toLocaleString('en')} characters` })

export const Title = z.string({ error: ERRORS.titleRequired.error }).trim().min(1, { error: ERRORS.titleRequired.error }).max(500, maxChars('title', 500))
export const Description = z.string().max(10_000, maxChars('description', 10_000))
export const AccessKey = z.string().max(256, maxChars('accessKey', 256))
export const CommitMessage = z.string().max(2_000, maxChars('commitMessage', 2_000))
export const Collaborators = z.array(z.string().max(320)).max(100, { error: 'collaborators holds at most 100 addresses' })
export const ReferenceFiles = z
  .array(z.unknown())
  .max(100, { error: 'referenceFiles holds at most 100 items' })
  .refine((items) => jsonSize(items) <= 512 * 1024, { error: 'referenceFiles must be under 512 KB as JSON' })

export const DesignPreferences = z
  .record(z.string(), z.unknown())
  .refine((prefs) => jsonSize(prefs) <= 64 * 1024, { error: 'designPreferences must be under 64 KB as JSON' })
  .describe('Keys theme, typography, palette, libraries, customColors, customGuidelines; GET /api/design-systems gives ready-made values.')

export const Version = named(
  'Version',
  z.object({
    versionId: z.string().describe('v1, v2, …'),
    commitMessage: z.string(),
    createdAt: z.string(),
    author: z.string(),
    files: z.record(z.string(), z.string()).optional().describe('path → content; left out when the request asked for fewer files'),
    fileList: z.array(z.string()).optional().describe('The paths, when `files` is left out'),
  }),
)

const inBox = (field: string) =>
  z
    .number({ error: `${field} must be a number` })
    .min(0, { error: `${field} must be between 0 and 100 (percent of the element's box)` })
    .max(100, { error: `${field} must be between 0 and 100 (percent of the element's box)` })
const pixels = (field: string) =>
  z
    .number({ error: `${field} must be a number` })
    .positive({ error: `${field} must be above 0` })
    .max(100_000, { error: `${field} must be at most 100,000` })

/** Where a pin was made (issue 9): an optional extension of the spec's Comment. */
export const CommentAnchor = named(
  'CommentAnchor',
  z
    .object(
      {
        selector: z
          .string({ error: 'anchor.selector must be a string' })
          .trim()
          .min(1, { error: 'anchor.selector must not be empty' })
          .max(2000, { error: 'anchor.selector must be at most 2,000 characters' })
          .describe(
            'A robust CSS selector of the element the pin is on: its id, else data attributes, else a short structural path. Re-anchoring rewrites it when the element moves in a new version',
          ),
        quote: z
          .string({ error: 'anchor.quote must be a string' })
          .max(300, { error: 'anchor.quote must be at most 300 characters' })
          .optional()
          .describe(
            "The element's trimmed text, whitespace collapsed, at most 300 characters: how the element is found again when its selector no longer fits",
          ),
        offsetX: inBox('anchor.offsetX').describe("Where across the element's box, percent 0–100"),
        offsetY: inBox('anchor.offsetY').describe("Where down the element's box, percent 0–100"),
        hash: z
          .string({ error: 'anchor.hash must be a string' })
          .max(200, { error: 'anchor.hash must be at most 200 characters' })
          .optional()
          .describe('location.hash inside the frame when the pin was made, e.g. "#3" or "#/slide-3"'),
        slide: z
          .number({ error: 'anchor.slide must be a number' })
          .int({ error: 'anchor.slide must be a whole number' })
          .min(0, { error: 'anchor.slide must be 0 or more' })
          .max(100_000, { error: 'anchor.slide must be at most 100,000' })
          .optional()
          .describe('Index of the active slide (from 0) when the page is a deck and it could be told'),
        viewport: z
          .object({ width: pixels('anchor.viewport.width'), height: pixels('anchor.viewport.height') }, { error: 'anchor.viewport must be {width, height}' })
          .optional()
          .describe('Size of the frame in CSS pixels when the pin was made'),
      },
      { error: 'anchor must be an object {selector, offsetX, offsetY, …}' },
    )
    .describe('Extension (issue 9): where the pin was made. x/y of the comment stay the fallback'),
)

export const Comment = named(
  'Comment',
  z.object({
    id: z.string().describe('c_<timestamp>'),
    author: z.string(),
    text: z.string(),
    createdAt: z.string(),
    versionId: z.string(),
    filename: z.string(),
    resolved: z.boolean(),
    x: z.number().optional(),
    y: z.number().optional(),
    selector: z.string().optional(),
    elementHtml: z.string().optional().describe('Left out where the share page is served (GET /public, its boot data and live events): it never shows it'),
    deletedAt: z
      .string()
      .optional()
      .describe('Owner views only: when someone other than the owner deleted it. Viewers no longer see it; the owner can restore it (PUT deleted: false)'),
    deletedBy: z.enum(['author', 'viewer', 'owner']).optional().describe('Owner views only: who deleted it (the author proved it with the author token)'),
    anchor: CommentAnchor.optional(),
    parentId: z
      .string()
      .optional()
      .describe(
        'Extension: the c_… id of the comment this one answers (a reply). Replies have no anchor of their own, show under their parent and are resolved, reopened and deleted with it',
      ),
    anchoredVersionId: z
      .string()
      .optional()
      .describe(
        'Extension: the newest version on which the anchored element was found; set to versionId at creation, moved forward by the server when a version lands. On the page of the latest version when it equals latestVersionId',
      ),
    outdated: z
      .boolean()
      .optional()
      .describe(
        'Extension: true when the anchored element could not be found in the newest version (anchoredVersionId keeps the last version it was found on): listed, not pinned',
      ),
  }),
)

export const Reactions = named('Reactions', z.record(z.string(), z.number().int().nonnegative()).describe('emoji → count; only 👍 ❤️ 💡 🔥'))

const RecentView = z.object({
  at: z.string(),
  type: z.enum(['started', 'ended']),
  link: z.string().optional(),
  linkName: z.string().optional(),
  device: z.enum(['mobile', 'desktop']),
  text: z.string().describe('"Dana at Acme read 9 of 12 slides in 4 min, longest on slide 7"'),
  summary: z.object({ seen: z.number(), total: z.number().optional(), seconds: z.number(), longest: z.number().optional() }).optional(),
})

const PartFigure = z.object({
  slide: z.number().int().optional().describe('Decks: the slide, from 1'),
  section: z.number().int().optional().describe('Documents: the section (by heading), from 1'),
  title: z.string().optional(),
  views: z.number().describe('Views that reached it'),
  totalTimeSeconds: z.number().describe('Seconds it was on screen, in all views'),
})

export const Analytics = named(
  'Analytics',
  z.object({
    views: z.number(),
    totalTimeSeconds: z.number(),
    avgTimeSeconds: z.number(),
    mobileViews: z.number(),
    desktopViews: z.number(),
    botViews: z.number().optional().describe('Extension: link previews, crawlers and non-browsers that fetched the share page; never in views'),
    returningViews: z.number().optional().describe('Extension: views from a browser that had seen this folio (a random id in its own storage)'),
    newViews: z.number().optional(),
    completedViews: z.number().optional().describe('Extension: views that reached the last slide or section'),
    completionRate: z.number().optional().describe('Extension: completedViews / views, 0 to 1'),
    lastView: RecentView.optional().describe('Extension: the latest start or end of a view (lists carry it too)'),
    slides: z.array(PartFigure).optional().describe('Extension, decks (GET /api/files/{id} only): time per slide'),
    sections: z.array(PartFigure).optional().describe('Extension, documents (GET /api/files/{id} only): time per section, by heading'),
    dropOff: z
      .array(z.object({ slide: z.number().int().optional(), section: z.number().int().optional(), views: z.number() }))
      .optional()
      .describe('Extension: how many views went no further than each slide or section'),
    viewsByDay: z
      .array(z.object({ date: z.string(), views: z.number() }))
      .optional()
      .describe('Extension: views per day (UTC): the last 90 days, in lists the last 14'),
    topParts: z.array(PartFigure).optional().describe('Extension, lists only: the three slides or sections that held viewers longest'),
    versions: z
      .array(
        z.object({
          versionId: z.string(),
          views: z.number(),
          totalTimeSeconds: z.number(),
          slides: z.array(PartFigure).optional(),
          sections: z.array(PartFigure).optional(),
        }),
      )
      .optional()
      .describe('Extension: the figures of the 10 newest versions viewed'),
    links: z
      .array(
        z.object({
          id: z.string(),
          name: z.string(),
          status: z.enum(['active', 'expired', 'revoked']),
          createdAt: z.string(),
          expiresAt: z.string().optional(),
          maxViews: z.number().optional(),
          revokedAt: z.string().optional(),
          lastViewAt: z.string().optional(),
          views: z.number(),
          totalTimeSeconds: z.number(),
          comments: z.number().optional().describe('Comments made through it'),
          slides: z.array(PartFigure).optional(),
          sections: z.array(PartFigure).optional(),
        }),
      )
      .optional()
      .describe('Extension: each recipient link (POST /api/files/{id}/links) and what came through it'),
    recentViews: z.array(RecentView).optional().describe('Extension: the 20 latest starts and ends of views'),
  }),
)

const folioFields = {
  id: z.string(),
  title: z.string(),
  description: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  isPrivate: z.boolean(),
  accessKey: z.string().describe('Empty when none. Never returned by public endpoints'),
  allowComments: z.boolean(),
  presentationModeOnly: z.boolean(),
  status: FolioStatus,
  projectMode: ProjectMode,
  collaborators: z.array(z.unknown()),
  designPreferences: DesignPreferences,
  referenceFiles: z.array(z.unknown()),
  publicTunnelEnabled: z.boolean(),
  commentModeration: CommentModeration.optional(),
  notifyViews: z.boolean().optional().describe('Extension: view summaries go to chat integrations and e-mail'),
  latestVersionId: z.string(),
  versionCount: z.number().int(),
  reactions: Reactions,
  analytics: Analytics,
  _storageBytes: z.number().describe('Bytes of the distinct file contents in this folio’s history'),
}

export const Folio = named(
  'Folio',
  z
    .object({ ...folioFields, versions: z.array(Version), comments: z.array(Comment).describe('Every comment, soft-deleted ones marked with deletedAt') })
    .describe('GET /api/files/{id} lists every version, oldest first. Write responses (POST, PUT) list only the new latest version.'),
)

export const VersionSummary = named(
  'VersionSummary',
  z
    .object({ versionId: z.string().describe('v1, v2, …'), commitMessage: z.string(), createdAt: z.string(), author: z.string() })
    .describe('A version as lists show it: without its files (GET /api/files/{id} has them)'),
)

export const FolioListItem = named(
  'FolioListItem',
  z
    .object({
      ...folioFields,
      versions: z.array(VersionSummary).describe('Every version, oldest first, without file contents'),
      comments: z.array(Comment).describe('Every comment of the folio, soft-deleted ones marked with deletedAt'),
    })
    .describe('A folio in a list: the Folio of GET /api/files/{id} with versions that leave out their files'),
)

export const FolioIdParams = z.object({ id: z.string().describe('Folio id') })
