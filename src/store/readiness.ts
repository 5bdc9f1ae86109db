/** Whether a store can serve requests now (GET /readyz); `reason` says what is wrong when it cannot. */
export interface Readiness {
  ready: boolean
  reason?: string
}
