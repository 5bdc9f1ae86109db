import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import type { Storage } from 'unstorage'
import { readJson, writeJson } from '../engine/json-io.js'
import { keys } from '../keys.js'
import { KeyedMutex } from '../coordination/keyed-mutex.js'
import { aiChatLock } from '../coordination/lock-keys.js'
import type { Locks } from '../coordination/locks.js'

/** One message of a folio's AI conversation, as kept. */
export interface StoredChatTurn {
  role: 'user' | 'assistant'
  content: string
  createdAt: string
}

/** A folio's AI conversation: its turns and, if the model waits on the client, that call. */
export interface StoredChat {
  turns: StoredChatTurn[]
  /** The model asked the client (ask_user): what to continue from once it answers. Opaque here. */
  pending?: { toolCallId: string } & Record<string, unknown>
}

/** A conversation keeps its newest turns only: older ones cost tokens on every request. */
export const MAX_CHAT_TURNS = 40

/**
 * The AI conversation of each folio (folios:<id>:ai-chat.json: deleted with the folio, since
 * deletion clears its folder) and each Cloud workspace's AI provider settings, whose key is
 * sealed with AES-256-GCM under a secret the server holds (never stored beside it in clear).
 */
export class AiRecords {
  readonly #storage: Storage
  readonly #locks: Locks

  /** Nothing is cached: every read is the storage's, so another instance's write is never stale here. */
  constructor(storage: Storage, locks: Locks = new KeyedMutex()) {
    this.#storage = storage
    this.#locks = locks
  }

  async chat(folioId: string): Promise<StoredChat> {
    return (await readJson<StoredChat>(this.#storage, keys.aiChat(folioId))) ?? { turns: [] }
  }

  /** Changes a conversation under its lock (two turns at once keep both). */
  updateChat(folioId: string, change: (chat: StoredChat) => StoredChat): Promise<StoredChat> {
    return this.#locks.run(aiChatLock(folioId), async () => {
      const next = change(await this.chat(folioId))
      next.turns = next.turns.slice(-MAX_CHAT_TURNS)
      await writeJson(this.#storage, keys.aiChat(folioId), next)
      return next
    })
  }

  clearChat(folioId: string): Promise<void> {
    return this.#locks.run(aiChatLock(folioId), () => this.#storage.removeItem(keys.aiChat(folioId)))
  }

  async workspaceSettings(workspaceId: string, secret: Buffer): Promise<WorkspaceAiRecord | undefined> {
    const stored = await readJson<SealedWorkspaceAi>(this.#storage, keys.workspaceAi(workspaceId))
    if (!stored) return undefined
    const { sealedKey, ...rest } = stored
    return { ...rest, apiKey: sealedKey ? openSealed(sealedKey, secret) : undefined }
  }

  async setWorkspaceSettings(workspaceId: string, settings: WorkspaceAiRecord | undefined, secret: Buffer): Promise<void> {
    if (!settings) return this.#storage.removeItem(keys.workspaceAi(workspaceId))
    const { apiKey, ...rest } = settings
    const sealed: SealedWorkspaceAi = { ...rest, ...(apiKey ? { sealedKey: seal(apiKey, secret) } : {}) }
    await writeJson(this.#storage, keys.workspaceAi(workspaceId), sealed)
  }
}

export interface WorkspaceAiRecord {
  provider: 'openai' | 'anthropic'
  model?: string
  baseURL?: string
  apiKey?: string
  updatedAt: string
  updatedBy: string
}

type SealedWorkspaceAi = Omit<WorkspaceAiRecord, 'apiKey'> & { sealedKey?: string }

/** Any secret text becomes a 256-bit key. */
const keyOf = (secret: Buffer) => createHash('sha256').update(secret).digest()

/** "v1." + base64url(iv | tag | ciphertext) */
export function seal(plain: string, secret: Buffer): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv)
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`
}

/** Undefined when the secret is not the one it was sealed with (the operator changed it). */
export function openSealed(sealed: string, secret: Buffer): string | undefined {
  if (!sealed.startsWith('v1.')) return undefined
  const raw = Buffer.from(sealed.slice(3), 'base64url')
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), raw.subarray(0, 12))
    decipher.setAuthTag(raw.subarray(12, 28))
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
  } catch {
    return undefined
  }
}
