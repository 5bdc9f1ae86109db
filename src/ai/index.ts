/**
 * The AI module: providers behind one interface (the Vercel AI SDK), prompts, output parsing and
 * tools. The server loads it with import() on the first AI request, so starting a server (and
 * folio --help) does not pay for the SDK.
 */
export { designSystemText } from './design-systems-text.js'
export { generate, generateStreaming, isAbort, ProviderError, type GenerationResult } from './generation.js'
export { mergeProposal, parseModelOutput, UnusableOutputError } from './files-output.js'
export { afterPlanMessages, chatTurns, conversationMessages, namedTexts, planningMessages, systemPrompt, type FolioPromptContext } from './prompt.js'
export { CLIENT_TOOLS, folioTools, type ToolCallReport } from './tools.js'
