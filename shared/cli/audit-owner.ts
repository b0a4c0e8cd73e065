/**
 * `wf audit verify --owner`: reads the caller's owner-level chains (`GET /v1/audit`, every page) and verifies
 * them HERE, not only on the server: the workflow-change chain, the anchor chain, and the signed heads with a
 * public key the operator holds (`--public-key FILE`; locally the stack's key file by default).
 */
import { existsSync, readFileSync } from 'node:fs';
import {
  type SignedHeadVerification,
  verifyOwnerChain,
  verifyOwnerChanges,
  verifySignedHeads,
} from '../audit/index.ts';
import { heldPublicKeyVerifier, localSigningKeyFiles } from '../audit-signing/index.ts';
import { type OwnerAuditPage, readOwnerAudit } from '../runs/audit-reader.ts';
import type { ApiClient } from './client.ts';
import type { Output } from './commands.ts';

/**
 * The public key to check signatures with: the flag, else the local stack's key file in `dataDir` (config.ts
 * localDataDir) when it exists.
 */
export function auditPublicKeyPath(flags: { publicKey?: string; dataDir: string; aws?: boolean }) {
  if (flags.publicKey) return flags.publicKey;
  if (flags.aws) return undefined;
  const local = localSigningKeyFiles(flags.dataDir).publicKey;
  return existsSync(local) ? local : undefined;
}

const status = (ok: boolean) => (ok ? 'verified' : 'BROKEN');

export async function verifyOwnerAudit(
  client: ApiClient,
  options: { publicKeyPath?: string },
  out: Output,
): Promise<number> {
  // Every page: a busy owner's chains pass one Lambda response (the API pages them), verified here whole.
  const body = await readOwnerAudit((path) => client.get<OwnerAuditPage>(path));
  const { owner } = body;
  const changes = verifyOwnerChanges(body.changes.entries, { owner });
  const anchors = verifyOwnerChain(body.anchors.entries, { owner });
  const chains = { anchors: body.anchors.entries, changes: body.changes.entries };
  const signed: SignedHeadVerification = options.publicKeyPath
    ? await verifySignedHeads(body.signedHeads.entries, chains, {
        owner,
        verifier: heldPublicKeyVerifier(readFileSync(options.publicKeyPath, 'utf8')),
      })
    : body.signedHeads.verification;
  out.data({ owner, changes, anchors, signedHeads: signed, checkedWith: options.publicKeyPath ?? 'server' });
  out.line(`owner ${owner}`);
  out.line(
    `workflow changes: ${status(changes.ok)}, ${body.changes.entries.length} entries${changes.ok ? '' : ` — ${changes.message}`}`,
  );
  out.line(
    `anchors: ${status(anchors.ok)}, ${body.anchors.entries.length} runs${anchors.ok ? '' : ` — ${anchors.message}`}`,
  );
  if (signed.ok) {
    const newest = signed.newest;
    out.line(
      newest
        ? `signed heads: ${signed.count} valid; newest signed ${newest.signedAt} by ${newest.keyId} ` +
            `(anchors ${newest.anchors?.seq ?? '-'}, changes ${newest.changes?.seq ?? '-'}); ` +
            `not yet signed: ${signed.unsigned.anchors} anchors, ${signed.unsigned.changes} changes`
        : 'signed heads: none (nothing to sign yet)',
    );
  } else {
    out.line(`signed heads: BROKEN — ${signed.message}`);
  }
  out.line(
    options.publicKeyPath
      ? `signatures checked here with ${options.publicKeyPath}`
      : 'signatures checked by the server only: pass --public-key FILE to check them here',
  );
  return changes.ok && anchors.ok && signed.ok ? 0 : 4;
}
