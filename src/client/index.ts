export { createClient, contractPath, type FolioClient, type ClientOptions } from './client.js'
export { ApiClientError, ServerUnreachableError } from './errors.js'
export { readEventStream, type StreamMessage } from './event-stream.js'
