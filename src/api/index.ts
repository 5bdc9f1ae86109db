import { agentAuth, agentClaim, agentClaimComplete } from './agent-auth.js'
import { aiConversation, aiCreate, aiStream, deleteWorkspaceAi, getWorkspaceAi, setWorkspaceAi } from './ai.js'
import { currentSession, listSessions, requestSignInCode, revokeSession, signIn, signOut } from './sign-in.js'
import { getAsset } from './assets.js'
import type { Contract } from './contract.js'
import { getOpenApi, listDesignSystems } from './design-systems.js'
import { createLink, listLinks, revokeLink } from './links.js'
import { createComment, deleteComment, getReactions, listComments, react, recordAnalytics, resolveComment, setReactions } from './engagement.js'
import { createFolio, deleteFolio, getBrief, getFolio, listFolios, updateFolio } from './files.js'
import { getIntegrations, setIntegrations } from './integrations.js'
import { getHealth, getReadiness } from './health.js'
import { getKey, revokeKey, rotateKey } from './keys.js'
import {
  approveOAuth,
  authorizationServerMetadata,
  authorizeOAuth,
  listOAuthGrants,
  mcpResourceMetadata,
  oauthToken,
  protectedResourceMetadata,
  registerOAuthClient,
  revokeOAuthGrant,
  revokeOAuthToken,
} from './oauth.js'
import { mcp } from './mcp.js'
import { folioEvents, getPublicFolio, verifyAccessKey } from './sharing.js'
import { getSyncManifest, syncFiles } from './sync.js'
import { controlTunnel, getTunnel } from './tunnel.js'
import { uploadBatch, uploadFile } from './uploads.js'
import { getWorkspace, inviteMember, listMembers, removeMember, setMemberRole } from './workspace.js'
import { dashboardPage, folioPage, rawFile, renewFrame, sharePage, viewerAsset } from './viewer.js'

export * from './contract.js'
export * as files from './files.js'
export * as ai from './ai.js'
export * as designSystems from './design-systems.js'
export * as engagement from './engagement.js'
export * as sharing from './sharing.js'
export * as uploads from './uploads.js'
export * as sync from './sync.js'
export * as keys from './keys.js'
export * as integrations from './integrations.js'
export * as oauth from './oauth.js'
export * as tunnel from './tunnel.js'
export * as workspace from './workspace.js'
export * from './schemas.js'

/** Every endpoint the server has: the OpenAPI document and the client are built from this list. */
export const contracts = [
  listFolios,
  createFolio,
  aiCreate,
  aiConversation,
  aiStream,
  getWorkspaceAi,
  setWorkspaceAi,
  deleteWorkspaceAi,
  getFolio,
  updateFolio,
  deleteFolio,
  getBrief,
  getAsset,
  uploadFile,
  uploadBatch,
  getSyncManifest,
  syncFiles,
  listComments,
  createComment,
  resolveComment,
  deleteComment,
  getReactions,
  react,
  setReactions,
  recordAnalytics,
  listLinks,
  createLink,
  revokeLink,
  getPublicFolio,
  verifyAccessKey,
  folioEvents,
  renewFrame,
  getKey,
  rotateKey,
  revokeKey,
  agentAuth,
  agentClaim,
  agentClaimComplete,
  requestSignInCode,
  signIn,
  currentSession,
  signOut,
  listSessions,
  revokeSession,
  protectedResourceMetadata,
  mcpResourceMetadata,
  authorizationServerMetadata,
  registerOAuthClient,
  authorizeOAuth,
  approveOAuth,
  oauthToken,
  revokeOAuthToken,
  listOAuthGrants,
  revokeOAuthGrant,
  getWorkspace,
  listMembers,
  setMemberRole,
  removeMember,
  inviteMember,
  getIntegrations,
  setIntegrations,
  getTunnel,
  controlTunnel,
  mcp,
  listDesignSystems,
  getOpenApi,
  getHealth,
  getReadiness,
  dashboardPage,
  folioPage,
  sharePage,
  rawFile,
  viewerAsset,
] as const satisfies readonly Contract[]
