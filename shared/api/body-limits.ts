/**
 * Body limits of the HTTP entry points, apart from the route schemas (schemas.ts) so that an app which needs
 * only the limit (the MCP function) does not bundle every REST schema and the workflow validators behind them.
 */

/** Request bodies larger than this are refused with 413 before they are parsed. */
export const MAX_BODY_BYTES = 1024 * 1024;
