import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS } from './errors.js'
import { named } from './schemas.js'

export const HealthStatus = named(
  'HealthStatus',
  z.object({
    status: z.literal('ok').describe('The process answers'),
  }),
)

export const ReadinessStatus = named(
  'ReadinessStatus',
  z.object({
    status: z.literal('ready').describe('The store is open and, on PostgreSQL, reachable with its migrations current'),
  }),
)

/** For load balancers and orchestrators: no credential, no rate limit, nothing about the data. */
export const getHealth = defineContract({
  operationId: 'getHealth',
  method: 'GET',
  path: '/healthz',
  tag: 'Operations',
  summary: 'Liveness: the process answers HTTP',
  description: 'Beyond the spec. 200 for as long as the process serves requests; it does not look at the store (that is /readyz).',
  access: 'public',
  response: { status: 200, description: 'Alive', schema: HealthStatus },
  errors: [],
})

export const getReadiness = defineContract({
  operationId: 'getReadiness',
  method: 'GET',
  path: '/readyz',
  tag: 'Operations',
  summary: 'Readiness: this instance can serve requests now',
  description:
    'Beyond the spec. 200 while the store is open (flat files: from start until shutdown begins; PostgreSQL: the database is reachable and its migrations are the ones this folio knows); 503 NOT_READY otherwise, the message saying why. A load balancer stops sending requests here on 503.',
  access: 'public',
  response: { status: 200, description: 'Ready', schema: ReadinessStatus },
  errors: [ERRORS.notReady],
})
