import type { Contract } from './contract.js'
import { getOpenApi, listDesignSystems } from './design-systems.js'
import { createComment, deleteComment, getReactions, listComments, react, recordAnalytics, resolveComment, setReactions } from './engagement.js'
import { createFolio, deleteFolio, getBrief, getFolio, listFolios, updateFolio } from './files.js'
import { folioEvents, getPublicFolio, verifyAccessKey } from './sharing.js'
import { uploadBatch, uploadFile } from './uploads.js'
import { dashboardPage, rawFile, sharePage, viewerAsset } from './viewer.js'

export * from './contract.js'
export * as files from './files.js'
export * as designSystems from './design-systems.js'
export * as engagement from './engagement.js'
export * as sharing from './sharing.js'
export * as uploads from './uploads.js'
export * from './schemas.js'

/** Every endpoint the server has: the OpenAPI document and the client are built from this list. */
export const contracts = [
  listFolios,
  createFolio,
  getFolio,
  updateFolio,
  deleteFolio,
  getBrief,
  uploadFile,
  uploadBatch,
  listComments,
  createComment,
  resolveComment,
  deleteComment,
  getReactions,
  react,
  setReactions,
  recordAnalytics,
  getPublicFolio,
  verifyAccessKey,
  folioEvents,
  listDesignSystems,
  getOpenApi,
  dashboardPage,
  sharePage,
  rawFile,
  viewerAsset,
] as const satisfies readonly Contract[]
