/**
 * What the Mcp function's bundle takes in place of `ajv` and `ajv-formats` (HANDLER_BUNDLE_ALIASES,
 * infra/constructs/runtime-function.ts). The MCP SDK's `Server` imports its Ajv provider at module level and
 * uses it only to check an elicitation answer; our server never elicits and is given NO_ELICITATION_VALIDATOR
 * (server.ts), so Ajv would be ~120 KB compiled on every cold start and never run. Constructed or called,
 * this fails loudly instead of validating nothing.
 */
export default function ajvNotBundled(): never {
  throw new Error('Ajv is not bundled in the Mcp function: the MCP server never validates JSON Schemas');
}
