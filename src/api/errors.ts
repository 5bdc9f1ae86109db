/**
 * Every error the API answers with, each declared once: its status, the spec's exact `error`
 * string (programs match on it; tests assert it) and when it happens. Contracts list these in
 * their `errors` (the OpenAPI document is built from them); the server throws them with
 * `fail(ERRORS.x, message)` (server/http/errors.ts), the message saying what to do about it; zod
 * schemas whose failure is one of these carry its string. So `grep -rn ERRORS.` finds every
 * place an error is declared, described or thrown.
 */
export interface ErrorCase {
  status: number
  /** The exact `error` string the server answers with. */
  error: string
  when: string
}

const errorCase = (status: number, error: string, when: string): ErrorCase => ({ status, error, when })

export const ERRORS = {
  // 400: the request is wrong
  badRequest: errorCase(400, 'Bad request', 'The request is malformed in a way no endpoint describes'),
  invalidJson: errorCase(400, 'INVALID_JSON', 'The body is not JSON'),
  invalidBody: errorCase(400, 'INVALID_BODY', 'A field has the wrong type, or the gzip payload cannot be decompressed'),
  invalidQuery: errorCase(400, 'INVALID_QUERY', 'A query parameter has a value the endpoint does not take'),
  titleRequired: errorCase(400, 'Title is required', 'title is missing or blank'),
  versionNotFound: errorCase(400, 'VERSION_NOT_FOUND', 'restoreVersionId names no version of this folio'),
  missingCommentParameters: errorCase(400, 'Missing comment parameters', 'text, versionId or filename is missing or blank'),
  missingCommentId: errorCase(400, 'Missing commentId param', 'commentId is missing'),
  invalidReactions: errorCase(400, 'Invalid reactions format.', 'Neither reactions nor increments is an object'),
  missingFilePath: errorCase(400, 'Missing x-file-path header', 'No x-file-path header'),
  invalidFilePath: errorCase(400, 'Invalid file path', 'A path is empty, absolute, contains .., a backslash or NUL'),
  unsupportedFileType: errorCase(400, 'Unsupported file type', 'The bytes are not an image format uploads take'),
  octetStreamRequired: errorCase(400, 'Content-Type must be application/octet-stream', 'Another content type was sent'),
  multipartRequired: errorCase(400, 'Content-Type must be multipart/form-data', 'Another content type was sent'),
  noImageFiles: errorCase(400, 'No image files in form data', 'No part is a valid image'),
  invalidTunnelAction: errorCase(400, 'Invalid action', 'action is not start, stop or save_custom'),
  promptRequired: errorCase(400, 'A non-empty prompt is required.', 'prompt is missing or blank'),
  noAiModel: errorCase(400, 'No AI model configured.', 'No AI provider is configured on the server nor named by the request'),
  missingType: errorCase(400, 'Missing type', 'The agent auth body has no type'),
  invalidAssertionFormat: errorCase(400, 'Invalid assertion format', 'The assertion is not three dot-separated base64url parts with a JSON payload'),
  invitationInvalid: errorCase(400, 'Invalid invitation', 'The invitation is unknown, expired, already used, or for another address'),
  invalidCode: errorCase(400, 'Invalid code', 'The e-mailed code is wrong, or was never sent to this address (the message says how many attempts are left)'),

  // OAuth 2.0 endpoints answer RFC 6749 / RFC 7591 codes, which OAuth clients act on (the body
  // carries error_description as well as message).
  oauthInvalidRequest: errorCase(400, 'invalid_request', 'A parameter is missing, repeated or malformed (PKCE S256 is required)'),
  oauthInvalidClient: errorCase(401, 'invalid_client', 'The client_id is unknown or its secret is wrong'),
  oauthInvalidGrant: errorCase(
    400,
    'invalid_grant',
    'The code or refresh token is unknown, expired, used, revoked, another client’s, or its PKCE verifier or redirect_uri does not match',
  ),
  oauthUnauthorizedClient: errorCase(400, 'unauthorized_client', 'The client did not register this grant type'),
  oauthUnsupportedGrantType: errorCase(400, 'unsupported_grant_type', 'grant_type is not authorization_code or refresh_token'),
  oauthInvalidScope: errorCase(400, 'invalid_scope', 'A scope other than folio was asked for'),
  oauthInvalidTarget: errorCase(400, 'invalid_target', 'resource names another server than this one (RFC 8707)'),
  oauthInvalidRedirectUri: errorCase(400, 'invalid_redirect_uri', 'A redirect URI is not https, loopback http or a private-use scheme, or has a fragment'),
  oauthInvalidClientMetadata: errorCase(400, 'invalid_client_metadata', 'A registration field has the wrong type or value'),
  grantNotFound: errorCase(404, 'Grant not found', 'No live OAuth grant of this workspace has that id'),

  // 402: the plan
  storageExceeded: errorCase(402, 'STORAGE_EXCEEDED', 'The write would take the workspace over its storage quota (Cloud)'),
  quotaExceeded: errorCase(402, 'QUOTA_EXCEEDED', 'The workspace has used its monthly AI messages (Cloud)'),

  // 401, 403: who is asking
  unauthorized: errorCase(401, 'Unauthorized', 'Missing or invalid credential'),
  assertionVerificationFailed: errorCase(
    401,
    'assertion verification failed',
    'The assertion has no email or sub claim, or its signature does not verify against a trusted issuer',
  ),
  forbidden: errorCase(403, 'Forbidden', 'The caller is not the Owner or an Admin (or, for an Owner, not an Owner)'),
  accessKeyRequired: errorCase(403, 'Access key required', 'The folio is private (or a draft) and this viewer has not proved its access key'),
  commentsDisabled: errorCase(403, 'Comments are disabled for this folio.', 'allowComments is false'),
  tunnelOssOnly: errorCase(403, 'Tunnel API only available in OSS mode', 'The server runs in Cloud mode'),
  cloudOnly: errorCase(403, 'Endpoint not available in OSS', 'The server runs in OSS mode; this endpoint exists in Cloud mode only'),

  // 404, 405, 408: what is asked for
  projectNotFound: errorCase(404, 'Project not found', 'No folio has this id'),
  /** GET /api/files/{id} says it with a full stop (spec). */
  projectNotFoundFullStop: errorCase(404, 'Project not found.', 'No folio has this id'),
  /** Pages, files and assets, unknown routes, and (spec) uploads into an unknown folio. */
  notFound: errorCase(404, 'Not found', 'No such page, file or route'),
  commentNotFound: errorCase(404, 'Comment not found', 'No comment of this folio has that id'),
  sessionNotFound: errorCase(404, 'Session not found', 'No live sign-in session of this workspace has that id'),
  noApiKey: errorCase(404, 'No API key', 'No key is active: create one with POST /api/keys'),
  linkNotFound: errorCase(404, 'Link not found', 'No recipient link of this folio has that id'),
  memberNotFound: errorCase(404, 'Member not found', 'No member of the workspace has this e-mail address'),
  methodNotAllowed: errorCase(405, 'Method not allowed', 'The path exists, but not for this method'),
  requestTimeout: errorCase(408, 'Request timeout', 'The body stopped arriving, or came slower than the server’s minimum rate; the connection closes'),

  // 409, 410, 413, 429: the state of things
  sessionExpired: errorCase(
    410,
    'session expired',
    'The registration session is past its 15 minutes (or never existed): start again with POST /api/agent/auth',
  ),
  registrationCompleted: errorCase(409, 'Registration already completed', 'The registration session has already issued its key'),
  commentLimitReached: errorCase(
    409,
    'COMMENT_LIMIT_REACHED',
    'The folio holds as many comments (or comment bytes) as the server allows: FOLIO_MAX_COMMENTS, FOLIO_MAX_COMMENT_BYTES',
  ),
  tooManyLinks: errorCase(409, 'TOO_MANY_LINKS', 'The folio has 200 recipient links (revoked ones included)'),
  versionConflict: errorCase(409, 'VERSION_CONFLICT', 'baseVersionId is not the latest version any more: fetch the manifest and diff again'),
  keyFromEnvironment: errorCase(409, 'KEY_FROM_ENVIRONMENT', 'The key comes from FOLIO_API_KEY: change the environment instead'),
  folioTooLarge: errorCase(413, 'FOLIO_TOO_LARGE', 'The body (or its decompressed gzip payload) is over the limit'),
  fileTooLarge: errorCase(413, 'FILE_TOO_LARGE', 'The body is over 25 MB'),
  payloadTooLarge: errorCase(413, 'Payload too large', 'The body is over the limit of an endpoint that names none'),
  tooManyRequests: errorCase(429, 'Too many requests', 'The client passed the rate limit; retry after Retry-After seconds'),
  tooManyAttempts: errorCase(429, 'Too many attempts', 'Five wrong codes: this code no longer works; ask for a new one'),

  // 500: ours
  tunnelFailed: errorCase(500, 'Tunnel failed', 'The tunnel could not start or stop (the message says why)'),
  aiFailed: errorCase(500, 'AI failed to generate HTML content.', 'The model answered without a usable HTML document'),
  aiNotConfigured: errorCase(500, 'AI is not configured for this workspace.', 'The workspace has no AI provider keys (Cloud)'),
  mailFailed: errorCase(502, 'MAIL_FAILED', 'The code could not be handed to the mail server (FOLIO_SMTP_URL); try again later'),
  notReady: errorCase(
    503,
    'NOT_READY',
    'GET /readyz: the store is closing, its disk is full (writes refused), or the database cannot be reached or its migrations are not current',
  ),
  databaseUnavailable: errorCase(
    503,
    'DATABASE_UNAVAILABLE',
    'The server cannot reach its PostgreSQL database now (a restart, a failover, the network); retry after Retry-After seconds',
  ),
  insufficientStorage: errorCase(
    507,
    'INSUFFICIENT_STORAGE',
    'The server’s disk is full: the write was not made, and nothing acknowledged before was lost. Writes resume by themselves once space is freed on the server; retry after Retry-After seconds',
  ),
  internalError: errorCase(500, 'Internal error', 'The server failed (it logged why), or the folio’s stored data is damaged'),
} as const satisfies Record<string, ErrorCase>

/** The same error, where a contract can say more precisely when it happens. */
export const when = (error: ErrorCase, when: string): ErrorCase => ({ ...error, when })
