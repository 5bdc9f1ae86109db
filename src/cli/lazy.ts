/**
 * A command's work lives in its own module, imported only when the command runs: defining
 * every command (names, options, help) costs next to nothing, so `folio --help` and each
 * command start fast; the contracts, the client and their dependencies load on use.
 */
export function lazyAction<A extends unknown[]>(load: () => Promise<{ default: (...args: A) => Promise<void> | void }>) {
  return async (...args: A): Promise<void> => {
    const { default: run } = await load()
    await run(...args)
  }
}
