/**
 * The fixture engine's executions and scripts: deterministic, driven by how many times each execution has
 * been observed (never by time). A script says how an execution lives: phases of accepted, waiting and
 * running observes, then its outcome, its artifacts (good or corrupted) and how it takes an abort.
 */
import { createHash } from 'node:crypto';
import type { TerminalOutcome, WaitReason } from '../contract.ts';
import type { ExecutionStatus } from '../http/protocol.ts';

/** How a served artifact is corrupted: bytes changed (same size), bytes added, or served under another path. */
export type Corruption = 'digest' | 'size' | 'path';

/** An artifact the execution produces; `corrupt` makes the served bytes disagree with the manifest. */
export type FixtureArtifact = { path: string; content: string | Uint8Array; corrupt?: Corruption };

/** How one execution (or every execution, as the global script) behaves. Every field is optional. */
export type ExecutionScript = {
  /** Dispatch answers this HTTP status (e.g. 429, 403) and admits nothing. */
  refuse?: number;
  /** With `refuse`: only the first this-many dispatches of each key are refused, then it is admitted. */
  refuseTimes?: number;
  /** With `refuse`: the refusal's `Retry-After` header, as sent (delay-seconds or an HTTP-date). */
  retryAfter?: string;
  /** Observes answered `accepted` first. Default 0. */
  accepted?: number;
  /** Observes answered `waiting` next, with the reason. */
  waiting?: { reason: WaitReason; observes: number };
  /** Observes answered `running` next ("run slowly"). Default 0. */
  running?: number;
  /** How it ends. Default `succeeded`. */
  outcome?: TerminalOutcome;
  summary?: string;
  artifacts?: FixtureArtifact[];
  /**
   * A misbehaving engine: the value of this request header (lower-case name) received with dispatch replaces
   * `{echo}` in the summary and in text artifacts, as an engine that echoes its credential would.
   */
  echoHeader?: string;
  /** `stop` (default): cancelled at once; `later`: acknowledged, cancelled at the next observe; `ignore`. */
  abort?: 'stop' | 'later' | 'ignore';
};

/** One admitted execution. */
export type Execution = {
  key: string;
  incarnation: string;
  payload: unknown;
  payloadSha256: string;
  callbackUrl: string | undefined;
  script: ExecutionScript;
  observes: number;
  cancel: 'none' | 'pending' | 'done';
};

/** The state an execution reports after `observes` observes. */
export function currentStatus(execution: Execution): ExecutionStatus {
  const base = {
    key: execution.key,
    incarnation: execution.incarnation,
    payload_sha256: execution.payloadSha256,
  };
  if (execution.cancel === 'done') return { ...base, state: 'cancelled', summary: 'cancelled on request' };
  const { script } = execution;
  let left = execution.observes;
  const accepted = script.accepted ?? 0;
  if (left < accepted) return { ...base, state: 'accepted' };
  left -= accepted;
  if (script.waiting !== undefined && left < script.waiting.observes) {
    return { ...base, state: 'waiting', wait_reason: script.waiting.reason };
  }
  left -= script.waiting?.observes ?? 0;
  if (left < (script.running ?? 0)) return { ...base, state: 'running', progress: `step ${left + 1}` };
  const outcome = script.outcome ?? 'succeeded';
  return { ...base, state: outcome, summary: script.summary ?? `fixture execution ${outcome}` };
}

/** Whether the execution no longer runs. */
export const isFinished = (execution: Execution): boolean =>
  ['succeeded', 'failed', 'cancelled'].includes(currentStatus(execution).state);

/** The true bytes of an artifact (what the manifest describes). */
export const artifactBytes = (artifact: FixtureArtifact): Uint8Array =>
  typeof artifact.content === 'string' ? new TextEncoder().encode(artifact.content) : artifact.content;

/** The manifest entry of an artifact: always its true path, size and digest. */
export function manifestEntry(artifact: FixtureArtifact) {
  const bytes = artifactBytes(artifact);
  return { path: artifact.path, size: bytes.byteLength, sha256: sha256Hex(bytes) };
}

/** What the fixture serves for an artifact: the corruption applied. */
export function servedArtifact(artifact: FixtureArtifact): { path: string; bytes: Uint8Array } {
  const bytes = artifactBytes(artifact);
  switch (artifact.corrupt) {
    case 'digest': {
      const changed = new Uint8Array(bytes);
      changed[0] = ((changed[0] ?? 0) + 1) % 256;
      return { path: artifact.path, bytes: changed.byteLength === 0 ? new Uint8Array([1]) : changed };
    }
    case 'size':
      return { path: artifact.path, bytes: new Uint8Array([...bytes, 0x0a]) };
    case 'path':
      return { path: `${artifact.path}.other`, bytes };
    default:
      return { path: artifact.path, bytes };
  }
}

export const sha256Hex = (bytes: Uint8Array | string): string =>
  createHash('sha256').update(bytes).digest('hex');
