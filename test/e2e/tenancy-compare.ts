/**
 * What the tenancy check compares (tenancy-routes.test.ts): answers and owners' items with what differs between
 * any two requests of B's taken out, and the wait for A's and B's items to settle.
 */
import { openFormState } from '../../shared/approvals-http/form-state.ts';
import { ownerSnapshot } from '../api/helpers.ts';
import { eventually } from './support.ts';
import { leakable } from './tenancy-ids.ts';
import type { Reply } from './tenancy-request.ts';
import { e2e } from './tenancy-stack.ts';

/**
 * `value` with what differs between any two writes of B's own: the ids and keys the stack generates for B
 * (`<prefix>_` or `<prefix>-` and 32 hex digits, a waiting step's task token), B's counters (a job's number
 * under B's grant, which is its run's workflowVersion), times (an expiry in epoch seconds too), and where an
 * entry lands in B's own audit chain (its seq, its hashes, the signature over them). A's ids are kept as they
 * are: an answer or item showing one still differs.
 */
export function freshAsB<T>(value: T): T {
  const ofB = (generic: string) => (id: string) => (leakable.includes(id) ? id : generic);
  const text = JSON.stringify(value)
    .replace(/\b[a-z]+(?:-[a-z]+)*[_-][0-9a-f]{32}\b/g, ofB('<id of B>'))
    .replace(/\bjob_\d+g[A-Za-z0-9]+\b/g, ofB('<job of B>'))
    .replace(/\blsfn1\.[\w-]+\.[\w-]+/g, '<task token>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, '<time>')
    .replace(/\b[0-9a-f]{64}\b/g, '<hash>')
    .replace(/("(?:seq|anchorSeq|number|workflowVersion|expiresAtEpoch)\\?":)\d+/g, '$10')
    .replace(/\bJOB#\d{10}\b/g, 'JOB#<number>')
    .replace(/("signature\\?":\\?")[\w+/=]+/g, '$1<signature>')
    .replace(/#\d{9}\b/g, '#<seq>');
  return JSON.parse(text);
}

/** `reply` without the fields of its JSON body at `paths` (`job.status`): what a probe's `progress` names. */
export function withoutProgress(reply: Reply, paths: string[] = []): Reply {
  if (paths.length === 0 || typeof reply.body !== 'object' || reply.body === null) return reply;
  const body = structuredClone(reply.body) as Record<string, unknown>;
  for (const path of paths) {
    const names = path.split('.');
    const last = names.pop() ?? '';
    let at: unknown = body;
    for (const name of names) at = (at as Record<string, unknown> | undefined)?.[name];
    if (at !== null && typeof at === 'object') delete (at as Record<string, unknown>)[last];
  }
  return { ...reply, body };
}

/**
 * An approval page with its form's fresh values opened: the nonce (signed per render) as its claims without the
 * time and the random part, the sealed state as the approval and run it carries. What the page rests on (the
 * workflow head's revision, the run) stays compared; only what differs per render goes.
 */
export function openedForm(reply: Reply): Reply {
  if (typeof reply.body !== 'string' || !reply.body.includes('name="nonce"')) return reply;
  const nonce = /name="nonce" value="([^"]+)"/.exec(reply.body)?.[1] ?? '';
  const claims = JSON.parse(Buffer.from(nonce.split('.')[0] ?? '', 'base64url').toString('utf8'));
  const { iat: _iat, n: _n, ...kept } = claims;
  const body = reply.body
    .replace(/name="nonce" value="[^"]+"/, `name="nonce" value="${JSON.stringify(kept)}"`)
    .replace(/name="state" value="([^"]+)"/, (_m, state: string) => {
      const binding = { approvalId: claims.approvalId, approver: claims.approver, nonce };
      const opened = openFormState(state, binding, e2e.keyring);
      if (!opened.ok) throw new Error(`the approval page's form state does not open: ${opened.reason}`);
      return `name="state" value="${JSON.stringify(opened.load)}"`;
    });
  return { ...reply, body };
}

/** Every item of `owner`'s in the stack's table (by key, index key or owner attribute), as sorted JSON. */
export const itemsOf = (owner: string): Promise<string[]> => ownerSnapshot(e2e.stack.store, owner);

export const itemsOfA = () => itemsOf('team-a');
/** What the caller's owner got written by a request: B's answer to A's id may not differ even there. */
export const addedFor = (before: string[], after: string[]) => after.filter((item) => !before.includes(item));

/**
 * Resolves once A's and B's items stop changing (two reads 300 ms apart agree): nothing of theirs moves on its
 * own for long (the waits are an hour and a day long), so what B's items gain around a probe is the probe's.
 */
export async function settled(): Promise<void> {
  let before = [await itemsOfA(), await itemsOf('team-b')];
  await eventually('A and B to settle', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = [await itemsOfA(), await itemsOf('team-b')];
    const same = JSON.stringify(now) === JSON.stringify(before);
    before = now;
    return same ? true : undefined;
  });
}
