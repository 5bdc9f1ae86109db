import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * Calls `ended` once when a request is over: its response closed, or its connection did. The
 * second matters for pipelined requests: node queues their responses until the earlier ones are
 * sent, and a queued response never emits 'close' when the client hangs up. Counting on it alone
 * left shutdown waiting for requests nobody could answer any more.
 */
export function onRequestEnd(req: IncomingMessage, res: ServerResponse, ended: () => void): void {
  const socket = req.socket
  let done = false
  // A flag, not only off(): the socket's 'close' makes the response emit its own 'close' first,
  // and a listener removed during an emit still runs in that emit.
  const once = () => {
    if (done) return
    done = true
    res.off('close', once)
    socket.off('close', once)
    ended()
  }
  res.once('close', once)
  socket.once('close', once)
}
