export { createClient, contractPath, type FolioClient, type ClientOptions } from './client.js'
export { ApiClientError, ServerUnreachableError } from './errors.js'
