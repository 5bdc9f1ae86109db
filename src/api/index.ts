import type { Contract } from './contract.js'
import { getOpenApi, listDesignSystems } from './design-systems.js'
import { createFolio, deleteFolio, getBrief, getFolio, listFolios, updateFolio } from './files.js'

export * from './contract.js'
export * as files from './files.js'
export * as designSystems from './design-systems.js'
export * from './schemas.js'

/** Every endpoint the server has: the OpenAPI document and the client are built from this list. */
export const contracts = [listFolios, createFolio, getFolio, updateFolio, deleteFolio, getBrief, listDesignSystems, getOpenApi] as const satisfies readonly Contract[]
