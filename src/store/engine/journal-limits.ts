/*
 * The write journal's limits and timings (write-journal.ts): when a journal file is retired, how
 * many may wait for their checkpoint, and how a full disk is waited out.
 */

/** A journal file is retired past this size, or this long after its first record. */
export const ROTATE_BYTES = 32 * 1024 * 1024
export const ROTATE_MS = 2000
/** Retired journal files waiting for their checkpoint, at most: then writers wait for the disk. */
export const MAX_RETIRED = 3
/** fsyncs in flight while replaying on start (nothing else runs then). */
export const REPLAY_FSYNCS = 8
/** While the disk is full (or a checkpoint failed), how often checkpoints are tried again and the free space looked at. */
export const RECHECK_MS = 1000
/**
 * Writes are refused this long at least once the disk is full: an operation that read (or queued
 * without waiting) what a failed append lost would rest on it only if it made no write (all fail
 * meanwhile) for this long, then one after writes are taken again.
 */
export const FULL_AT_LEAST_MS = 3000
/** At most this long between two tries of a checkpoint that fails for another reason than space. */
export const MAX_RECHECK_MS = 60_000
/** Writes are taken again once the disk has this much room (and every checkpoint due has been written). */
export const FREE_TO_RESUME = 1024 * 1024
