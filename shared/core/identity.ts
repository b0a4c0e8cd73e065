/** Stable identities derived from the ledger identity (run, tool_use id), so retries find the same records. */
import { argsHash } from '../approvals/index.ts';
import { sha256Hex } from '../audit/index.ts';

export const idempotencyKeyFor = (runId: string, turn: number, toolUseId: string): string =>
  `wf-${sha256Hex('wf-idem/v1\n', runId, '\n', String(turn), '\n', toolUseId).slice(0, 40)}`;

export const approvalIdFor = (runId: string, toolUseId: string): string =>
  `apr_${sha256Hex('wf-approval/v1\n', runId, '\n', toolUseId).slice(0, 32)}`;

/** SHA-256 over the canonical JSON of { tool, args }: what an approval is bound to (shared with the links). */
export const argsHashOf = (tool: string, args: unknown): string => argsHash(tool, args);
