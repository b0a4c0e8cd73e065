/**
 * `GET /v1/audit`: the caller's owner-level chains, each verified: the workflow-change chain, the anchor chain
 * (one link per finished run) and the signed heads that pin both. Signatures are checked with the deployment's
 * verifier (a public key, never one read from the table); without one, the signed heads fail verification.
 */
import { Hono } from 'hono';
import {
  type AnchorVerifier,
  type SignedHeadVerification,
  verifyOwnerChain,
  verifyOwnerChanges,
  verifySignedHeads,
} from '../../audit/index.ts';
import type { ApiDeps, ApiEnv } from '../deps.ts';

const NO_VERIFIER: SignedHeadVerification = {
  ok: false,
  index: 0,
  reason: 'verifier_error',
  message: 'this deployment has no audit verifier configured: signed heads cannot be checked',
};

/** Reads and verifies an owner's changes, anchors and signed heads (shared with tests and the local stack). */
export async function ownerAuditReport(
  deps: Pick<ApiDeps, 'store'>,
  owner: string,
  verifier?: AnchorVerifier,
) {
  const [changes, anchors, signedHeads] = await Promise.all([
    deps.store.listOwnerChangeItems(owner),
    deps.store.listOwnerAnchorItems(owner),
    deps.store.listSignedHeadItems(owner),
  ]);
  const signed = verifier
    ? await verifySignedHeads(signedHeads, { anchors, changes }, { owner, verifier })
    : NO_VERIFIER;
  return {
    owner,
    changes: { entries: changes, verification: verifyOwnerChanges(changes, { owner }) },
    anchors: { entries: anchors, verification: verifyOwnerChain(anchors, { owner }) },
    signedHeads: { entries: signedHeads, verification: signed },
  };
}

export function auditRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/', async (c) =>
    c.json(await ownerAuditReport(deps, c.get('identity').owner, deps.auditVerifier)),
  );
  return app;
}
