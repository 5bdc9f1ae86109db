/** UI state shared by the container and the view. */
export type TunnelAction = 'start' | 'stop'
/** The tunnel request in flight, if any. */
export type Busy = TunnelAction | null
export interface Message {
  text: string
  tone: 'info' | 'error'
}
